import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { type RecallResult, recallText } from '../../src/core/recall/recall';
import { SHARED_AGENT_ID } from '../../src/core/types';
import { openTemp, rejectsWith } from './helpers';

const HEADINGS = ['## Profile', '## Memories', '## Skills', '## Knowledge'];

/** Checks what every recall result must satisfy, whatever the query and options. */
function assertWellFormed(result: RecallResult): void {
  assert.equal(result.chars, result.formatted.length);
  assert.equal(result.tokens, Math.ceil(result.chars / 4));
  for (let i = 1; i < result.items.length; i++) {
    assert.ok(result.items[i - 1]!.score >= result.items[i]!.score, 'items best first');
  }
  for (const item of result.items) {
    assert.ok(result.formatted.includes(`id: ${item.entity.id}`), `${item.entity.id} is in the context`);
    // Whole, never cut: every line of the content is there (continuation lines are indented).
    for (const line of item.entity.content.trim().split('\n')) {
      assert.ok(result.formatted.includes(line), `"${line}" is in the context`);
    }
  }
  // Sections appear in a fixed order, each at most once.
  const positions = HEADINGS.map((heading) => result.formatted.indexOf(`${heading}\n`));
  const present = positions.filter((position) => position >= 0);
  assert.deepEqual(
    present,
    [...present].sort((a, b) => a - b),
    'Profile, Memories, Skills, Knowledge',
  );
  for (const heading of HEADINGS) {
    assert.ok(result.formatted.split(`${heading}\n`).length <= 2, `${heading} once`);
  }
  const sectionOf = (id: string) => {
    const at = result.formatted.indexOf(`id: ${id}`);
    let section = '';
    for (const heading of HEADINGS) {
      const position = result.formatted.indexOf(`${heading}\n`);
      if (position >= 0 && position < at) section = heading;
    }
    return section;
  };
  const expected = { memories: '## Memories', skills: '## Skills', knowledge: '## Knowledge' } as const;
  for (const item of result.items) assert.equal(sectionOf(item.entity.id), expected[item.collection]);
  assert.equal(result.formatted.startsWith('## Profile'), result.profile !== null);
}

describe('recall', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  describe('pooling and ranking', () => {
    it('pools memories, skills (own and shared) and knowledge and ranks them together', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'docker compose runs the local stack' });
      const [s] = await memory.skills.save('a', undefined, { content: 'restart docker compose after edits' });
      const [shared] = await memory.skills.saveShared({ content: 'docker compose logs show errors' });
      const [k] = await memory.knowledge.save('a', undefined, { content: 'docker compose file reference' });
      const [sharedK] = await memory.knowledge.saveShared({ content: 'compose networks in docker' });
      await memory.memories.save('a', 'u', { content: 'unrelated note about lunch' });
      const result = await memory.recall('a', 'u', 'docker compose');
      assertWellFormed(result);
      assert.deepEqual(
        result.items.map((item) => item.entity.id).sort(),
        [m.id, s.id, shared.id, k.id, sharedK.id].sort(),
      );
      const collectionOf = new Map(result.items.map((item) => [item.entity.id, item.collection]));
      assert.equal(collectionOf.get(m.id), 'memories');
      assert.equal(collectionOf.get(s.id), 'skills');
      assert.equal(collectionOf.get(shared.id), 'skills');
      assert.equal(collectionOf.get(k.id), 'knowledge');
      assert.equal(collectionOf.get(sharedK.id), 'knowledge');
    });

    it('gives each item the score search gives it', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'pin the node version in .nvmrc' });
      const [s] = await memory.skills.save('a', undefined, { content: 'upgrade node with nvm install' });
      const [searchedM] = await memory.memories.search('a', 'u', 'node version');
      const [searchedS] = await memory.skills.search('a', 'node version');
      const result = await memory.recall('a', 'u', 'node version');
      const scoreOf = (id: string) => result.items.find((item) => item.entity.id === id)?.score;
      assert.ok(searchedM && searchedS);
      assert.ok(Math.abs(scoreOf(m.id)! - searchedM.score) < 1e-6);
      assert.ok(Math.abs(scoreOf(s.id)! - searchedS.score) < 1e-6);
    });

    it('does not split the items equally: when only skills are relevant, all items can be skills', async () => {
      const skills = [];
      for (let i = 0; i < 6; i++) {
        skills.push((await memory.skills.save('a', undefined, { content: `terraform apply step ${i}` }))[0]);
      }
      await memory.memories.save('a', 'u', { content: 'terraform state is remote' });
      await memory.knowledge.save('a', undefined, { content: 'terraform docs' });
      for (let i = 0; i < 6; i++) await memory.memories.save('a', 'u', { content: `lunch option ${i}` });
      const result = await memory.recall('a', 'u', 'terraform apply step', { maxItems: 5 });
      assertWellFormed(result);
      assert.equal(result.items.length, 5);
      assert.deepEqual(
        result.items.map((item) => item.collection),
        ['skills', 'skills', 'skills', 'skills', 'skills'],
      );
      assert.ok(!result.formatted.includes('## Memories'));
      assert.ok(!result.formatted.includes('## Knowledge'));
    });

    it('takes the best items whatever their collection', async () => {
      const [strongMemory] = await memory.memories.save('a', 'u', {
        content: 'postgres vacuum schedule for postgres replicas',
        tags: ['postgres', 'vacuum'],
      });
      const [strongKnowledge] = await memory.knowledge.save('a', undefined, {
        content: 'postgres vacuum explained',
        title: 'Vacuum in postgres',
        tags: ['postgres'],
      });
      await memory.skills.save('a', undefined, {
        content: 'a long procedure that mentions postgres once among many other unrelated words here and there',
      });
      await memory.memories.save('a', 'u', {
        content: 'another long note that mentions vacuum once among many other unrelated words here and there',
      });
      const all = await memory.recall('a', 'u', 'postgres vacuum', { maxItems: 20 });
      assert.equal(all.items.length, 4);
      const top2 = all.items.slice(0, 2).map((item) => item.entity.id);
      assert.deepEqual(top2.sort(), [strongMemory.id, strongKnowledge.id].sort());
      const two = await memory.recall('a', 'u', 'postgres vacuum', { maxItems: 2 });
      assertWellFormed(two);
      assert.deepEqual(two.items.map((item) => item.entity.id).sort(), [strongMemory.id, strongKnowledge.id].sort());
      assert.ok(!two.formatted.includes('## Skills'));
    });

    it("never includes another user's or another agent's memories", async () => {
      const [mine] = await memory.memories.save('a', 'u', { content: 'vault token for u' });
      const [global] = await memory.memories.save('a', undefined, { content: 'vault address for everyone' });
      await memory.memories.save('a', 'v', { content: 'vault token for v' });
      await memory.memories.save('b', 'u', { content: 'vault token in agent b' });
      await memory.skills.save('b', undefined, { content: 'vault unseal steps in agent b' });
      const result = await memory.recall('a', 'u', 'vault token');
      assert.deepEqual(result.items.map((item) => item.entity.id).sort(), [mine.id, global.id].sort());
    });
  });

  describe('profile', () => {
    it("puts the user's profile first, in `formatted` and in `profile`", async () => {
      const [profile] = await memory.profiles.save('a', 'u', { content: 'Name: Ada\nPrefers TypeScript' });
      await memory.memories.save('a', 'u', { content: 'typescript strict mode is on' });
      const result = await memory.recall('a', 'u', 'typescript');
      assertWellFormed(result);
      assert.equal(result.profile?.id, profile.id);
      assert.ok(result.formatted.startsWith('## Profile\n\nName: Ada\nPrefers TypeScript\n\n## Memories\n\n'));
      assert.equal(result.items.length, 1);
    });

    it('leaves the profile out when includeProfile is false or there is no user', async () => {
      await memory.profiles.save('a', 'u', { content: 'Name: Ada' });
      await memory.profiles.saveShared('u', { content: 'Shared: Ada' });
      const [m] = await memory.memories.save('a', 'u', { content: 'typescript strict mode is on' });
      const off = await memory.recall('a', 'u', 'typescript', { includeProfile: false });
      assertWellFormed(off);
      assert.equal(off.profile, null);
      assert.ok(!off.formatted.includes('Ada'));
      assert.deepEqual(
        off.items.map((item) => item.entity.id),
        [m.id],
      );
      const noUser = await memory.recall('a', undefined, 'typescript');
      assertWellFormed(noUser);
      assert.equal(noUser.profile, null);
      assert.ok(!noUser.formatted.includes('## Profile'));
      const on = await memory.recall('a', 'u', 'typescript', { includeProfile: true });
      assert.ok(on.formatted.startsWith('## Profile\n\nName: Ada'));
    });

    it("falls back to the user's shared profile, and prefers the agent's own", async () => {
      const [shared] = await memory.profiles.saveShared('u', { content: 'Shared profile of u' });
      await memory.profiles.save('b', 'u', { content: 'Profile of u in agent b' });
      await memory.profiles.save('a', 'v', { content: 'Profile of v in agent a' });
      const fallback = await memory.recall('a', 'u', 'anything');
      assert.equal(fallback.profile?.id, shared.id);
      assert.equal(fallback.formatted, '## Profile\n\nShared profile of u');
      const [own] = await memory.profiles.save('a', 'u', { content: 'Own profile of u in agent a' });
      const preferred = await memory.recall('a', 'u', 'anything');
      assert.equal(preferred.profile?.id, own.id);
      assert.ok(!preferred.formatted.includes('Shared profile'));
      const none = await memory.recall('a', 'w', 'anything');
      assert.equal(none.profile, null);
      assert.equal(none.formatted, '');
    });

    it('drops a profile that does not fit the budget, and keeps the items that do', async () => {
      await memory.profiles.save('a', 'u', { content: 'p'.repeat(500) });
      const [m] = await memory.memories.save('a', 'u', { content: 'short note on redis' });
      const result = await memory.recall('a', 'u', 'redis', { maxChars: 200 });
      assertWellFormed(result);
      assert.equal(result.profile, null);
      assert.deepEqual(
        result.items.map((item) => item.entity.id),
        [m.id],
      );
      assert.ok(result.chars <= 200);
    });

    it('does not count an access for the profile', async () => {
      const [profile] = await memory.profiles.save('a', 'u', { content: 'Name: Ada' });
      await memory.recall('a', 'u', 'anything');
      assert.equal(await memory.profiles.accessCount(profile.id), 0);
    });
  });

  describe('budget', () => {
    async function fill(count: number, padding = '') {
      const saved = [];
      for (let i = 0; i < count; i++) {
        saved.push(
          (
            await memory.memories.save('a', 'u', {
              content: `kafka consumer note ${i}: ${'lag '.repeat(i % 5)}partition rebalancing detail ${i}${padding}`,
            })
          )[0],
        );
      }
      return saved;
    }

    it('respects maxItems, with a default of 20', async () => {
      await fill(30);
      assert.equal((await memory.recall('a', 'u', 'kafka')).items.length, 20);
      for (const maxItems of [1, 3, 7, 25]) {
        const result = await memory.recall('a', 'u', 'kafka', { maxItems, maxChars: 100_000 });
        assertWellFormed(result);
        assert.equal(result.items.length, maxItems);
      }
      const none = await memory.recall('a', 'u', 'kafka', { maxItems: 0 });
      assert.deepEqual(none.items, []);
      assert.equal(none.formatted, '');
    });

    it('keeps formatted within maxChars, with a default of 8000', async () => {
      await memory.profiles.save('a', 'u', { content: 'Name: Ada\nLikes Kafka' });
      await fill(40, ` ${'more words about brokers and topics '.repeat(6)}`);
      const big = await memory.recall('a', 'u', 'kafka', { maxItems: 200 });
      assertWellFormed(big);
      assert.ok(big.chars <= 8000);
      assert.ok(big.chars > 7000, 'the default budget is mostly used');
      assert.ok(big.items.length < 40, 'the default budget is what limits it');
      for (let maxChars = 0; maxChars <= 1500; maxChars += 37) {
        const result = await memory.recall('a', 'u', 'kafka consumer lag', { maxChars, maxItems: 200 });
        assertWellFormed(result);
        assert.ok(result.chars <= maxChars, `${result.chars} <= ${maxChars}`);
      }
    });

    it('keeps tokens within maxTokens, and uses the smaller of the two budgets', async () => {
      await fill(40);
      for (const maxTokens of [0, 10, 50, 100, 333, 1000]) {
        const result = await memory.recall('a', 'u', 'kafka', { maxTokens, maxItems: 200 });
        assertWellFormed(result);
        assert.ok(result.tokens <= maxTokens, `${result.tokens} <= ${maxTokens}`);
        assert.ok(result.chars <= maxTokens * 4);
      }
      const byChars = await memory.recall('a', 'u', 'kafka', { maxTokens: 1000, maxChars: 500, maxItems: 200 });
      assert.ok(byChars.chars <= 500);
      const byTokens = await memory.recall('a', 'u', 'kafka', { maxTokens: 100, maxChars: 5000, maxItems: 200 });
      assert.ok(byTokens.tokens <= 100);
      assert.ok(byTokens.items.length > 0);
    });

    it('uses the budget well: another item would not have fitted', async () => {
      await fill(40);
      const result = await memory.recall('a', 'u', 'kafka', { maxChars: 1000, maxItems: 200 });
      assert.ok(result.items.length >= 3);
      // Each item takes at most ~110 characters here, so a 1000-character budget is mostly used.
      assert.ok(result.chars > 1000 - 200, String(result.chars));
    });

    it('skips an item too big for the budget, never cutting it, and takes smaller lower-ranked ones', async () => {
      const [bigItem] = await memory.memories.save('a', 'u', {
        content: `Kafka retention: ${'kafka retention policy detail. '.repeat(40)}`,
        tags: ['kafka', 'retention'],
      });
      const [small] = await memory.memories.save('a', 'u', { content: 'kafka retention is seven days' });
      const [smaller] = await memory.memories.save('a', 'u', { content: 'ask ops before changing kafka' });
      const unlimited = await memory.recall('a', 'u', 'kafka retention');
      assert.equal(unlimited.items[0]?.entity.id, bigItem.id, 'the big item ranks first');
      assert.ok(unlimited.formatted.includes(bigItem.content.trim()));

      const tight = await memory.recall('a', 'u', 'kafka retention', { maxChars: 300 });
      assertWellFormed(tight);
      assert.deepEqual(
        tight.items.map((item) => item.entity.id),
        [small.id, smaller.id],
      );
      assert.ok(!tight.formatted.includes('retention policy detail'), 'no piece of the big item');
      assert.ok(!tight.formatted.includes(bigItem.id));
      assert.equal(await memory.memories.accessCount(bigItem.id), 1, 'only the unlimited recall counted it');
      assert.equal(tight.leftOut, 1, 'the big item matched but did not fit');
      assert.match(recallText(tight, 'kafka retention'), /1 matching item did not fit the budget/);

      const none = await memory.recall('a', 'u', 'kafka retention', { maxChars: 20 });
      assert.equal(none.formatted, '');
      assert.equal(none.leftOut, 3);
      assert.match(recallText(none, 'kafka retention'), /^Nothing fitted: 3 matching items .*larger budget/);
      const unrelated = await memory.recall('a', 'u', 'zeppelin');
      assert.equal(recallText(unrelated, 'zeppelin'), 'Nothing in memory is relevant to "zeppelin".');
    });

    it('keeps multi-line content whole and inside its bullet', async () => {
      const content = 'Release steps:\n1. bump the version\n2. tag the commit\n3. publish the package';
      const [skill] = await memory.skills.save('a', undefined, { content });
      const result = await memory.recall('a', 'u', 'release steps');
      assertWellFormed(result);
      assert.ok(
        result.formatted.includes(
          '- Release steps:\n  1. bump the version\n  2. tag the commit\n  3. publish the package\n  _(procedure; id: ',
        ),
        result.formatted,
      );
      assert.ok(result.formatted.includes(`id: ${skill.id})_`));
    });
  });

  describe('format', () => {
    it('has sections in the order Profile, Memories, Skills, Knowledge, each item with its id', async () => {
      await memory.profiles.save('a', 'u', { content: 'Name: Ada' });
      // Knowledge made the most relevant, memories the least, so the ranking differs from the section order.
      const [k] = await memory.knowledge.save('a', undefined, {
        content: 'grafana dashboards for grafana alerts',
        title: 'Grafana alerts',
        source: 'docs/grafana.md',
        tags: ['grafana', 'alerts'],
      });
      const [s] = await memory.skills.save('a', undefined, {
        content: 'silence grafana alerts during deploys',
        category: 'workflow',
        status: 'draft',
      });
      const [m] = await memory.memories.save('a', 'u', {
        content: 'we used grafana once before switching tools entirely',
        tags: ['history'],
        category: 'decision',
      });
      const result = await memory.recall('a', 'u', 'grafana alerts');
      assertWellFormed(result);
      assert.equal(result.items[0]?.entity.id, k.id, 'knowledge ranks first');
      assert.deepEqual(result.items.map((item) => item.collection).sort(), ['knowledge', 'memories', 'skills']);
      const expected = [
        '## Profile\n\nName: Ada',
        `## Memories\n\n- we used grafana once before switching tools entirely\n  _(decision; tags: history; id: ${m.id})_`,
        `## Skills\n\n- silence grafana alerts during deploys\n  _(workflow; draft; id: ${s.id})_`,
        `## Knowledge\n\n- grafana dashboards for grafana alerts\n  _(source: docs/grafana.md; tags: grafana, alerts; id: ${k.id})_`,
      ].join('\n\n');
      assert.equal(result.formatted, expected);
      assert.equal(result.chars, expected.length);
      assert.equal(result.tokens, Math.ceil(expected.length / 4));
    });

    it('lists the items of a section best first, one bullet each', async () => {
      const saved = [];
      for (const content of ['nginx', 'nginx reload nginx config', 'nginx config reload after cert renewal today']) {
        saved.push((await memory.memories.save('a', 'u', { content }))[0]);
      }
      const result = await memory.recall('a', 'u', 'nginx reload');
      assertWellFormed(result);
      assert.equal(result.items.length, 3);
      const order = result.items.map((item) => result.formatted.indexOf(`id: ${item.entity.id}`));
      assert.deepEqual(
        order,
        [...order].sort((a, b) => a - b),
      );
      assert.equal(result.formatted.match(/^- /gm)?.length, 3);
    });
  });

  describe('access counts', () => {
    it('counts one access for exactly the returned items', async () => {
      const memories = [];
      for (let i = 0; i < 8; i++) {
        memories.push((await memory.memories.save('a', 'u', { content: `helm chart values ${i}` }))[0]);
      }
      const [skill] = await memory.skills.saveShared({ content: 'helm chart upgrade' });
      const [unrelated] = await memory.memories.save('a', 'u', { content: 'lunch menu' });
      const [otherUser] = await memory.memories.save('a', 'v', { content: 'helm chart values for v' });
      const everyone = [...memories, skill, unrelated, otherUser];
      const counts = async () =>
        new Map(await Promise.all(everyone.map(async (e) => [e.id, await memory.memories.accessCount(e.id)] as const)));
      const before = await counts();
      assert.ok([...before.values()].every((count) => count === 0));

      const result = await memory.recall('a', 'u', 'helm chart', { maxItems: 4 });
      assert.equal(result.items.length, 4);
      const returned = new Set(result.items.map((item) => item.entity.id));
      const after = await counts();
      for (const entity of everyone) {
        assert.equal(after.get(entity.id), returned.has(entity.id) ? 1 : 0, entity.content);
      }
      await memory.recall('a', 'u', 'helm chart', { maxItems: 4 });
      const again = await counts();
      const total = [...again.values()].reduce((sum, count) => sum + count, 0);
      assert.equal(total, 8, 'two recalls of four items');
    });

    it('counts nothing when nothing is returned', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'helm chart values' });
      await memory.recall('a', 'u', 'kubectl');
      await memory.recall('a', 'u', 'helm', { maxChars: 10 });
      await memory.recall('a', 'u', 'helm', { maxItems: 0 });
      assert.equal(await memory.memories.accessCount(m.id), 0);
    });
  });

  describe('options', () => {
    it('draws only from the collections asked for', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'sentry dsn is in the env' });
      const [s] = await memory.skills.save('a', undefined, { content: 'sentry release upload' });
      const [k] = await memory.knowledge.save('a', undefined, { content: 'sentry sampling docs' });
      const idsFor = async (collections: ('memories' | 'skills' | 'knowledge')[]) =>
        (await memory.recall('a', 'u', 'sentry', { collections })).items.map((item) => item.entity.id).sort();
      assert.deepEqual(await idsFor(['memories']), [m.id]);
      assert.deepEqual(await idsFor(['skills']), [s.id]);
      assert.deepEqual(await idsFor(['knowledge']), [k.id]);
      assert.deepEqual(await idsFor(['skills', 'knowledge']), [s.id, k.id].sort());
      assert.deepEqual(await idsFor(['memories', 'skills', 'knowledge']), [m.id, s.id, k.id].sort());
      assert.deepEqual(await idsFor([]), []);
    });

    it('includes shared skills and knowledge by default, and leaves them out when told', async () => {
      const [s] = await memory.skills.save('a', undefined, { content: 'grpc codegen with buf' });
      const [sharedS] = await memory.skills.saveShared({ content: 'grpc health checks' });
      const [k] = await memory.knowledge.save('a', undefined, { content: 'grpc service map' });
      const [sharedK] = await memory.knowledge.saveShared({ content: 'grpc style guide' });
      await memory.skills.save('b', undefined, { content: 'grpc in agent b' });
      const idsOf = (result: RecallResult) => result.items.map((item) => item.entity.id).sort();
      assert.deepEqual(idsOf(await memory.recall('a', 'u', 'grpc')), [s.id, sharedS.id, k.id, sharedK.id].sort());
      assert.deepEqual(
        idsOf(await memory.recall('a', 'u', 'grpc', { includeSharedSkills: false })),
        [s.id, k.id, sharedK.id].sort(),
      );
      assert.deepEqual(
        idsOf(await memory.recall('a', 'u', 'grpc', { includeSharedKnowledge: false })),
        [s.id, sharedS.id, k.id].sort(),
      );
      assert.deepEqual(
        idsOf(await memory.recall('a', 'u', 'grpc', { includeSharedSkills: false, includeSharedKnowledge: false })),
        [s.id, k.id].sort(),
      );
      assert.deepEqual(
        idsOf(await memory.recall(SHARED_AGENT_ID, undefined, 'grpc')),
        [sharedS.id, sharedK.id].sort(),
        'the shared agent sees its own entities once',
      );
    });

    it('refuses bad options without counting any access', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'anything at all' });
      const bad: Parameters<Memory['recall']>[3][] = [
        { maxItems: -1 },
        { maxItems: 201 },
        { maxItems: 1.5 },
        { maxItems: Number.NaN },
        { maxChars: -1 },
        { maxChars: Number.NaN },
        { maxTokens: -1 },
        { collections: ['sessions' as never] },
        { collections: ['memories', 'profiles' as never] },
      ];
      for (const options of bad) {
        await rejectsWith(memory.recall('a', 'u', 'anything', options), 'INVALID_INPUT');
      }
      await rejectsWith(memory.recall('a', 'u', 42 as unknown as string), 'INVALID_INPUT');
      await rejectsWith(memory.recall('a', 'u', 'x'.repeat(10_001)), 'INVALID_INPUT');
      await rejectsWith(memory.recall('a/b', 'u', 'anything'), 'INVALID_ID');
      await rejectsWith(memory.recall('a', 'u/v', 'anything'), 'INVALID_ID');
      assert.equal(await memory.memories.accessCount(m.id), 0);
      const max = await memory.recall('a', 'u', 'anything', { maxItems: 200 });
      assert.equal(max.items.length, 1, 'maxItems 200 is allowed');
    });

    it('returns an empty context when nothing is relevant', async () => {
      await memory.memories.save('a', 'u', { content: 'kafka consumer lag' });
      for (const query of ['kubernetes', '', '!!!', 'the']) {
        const result = await memory.recall('a', 'u', query);
        assert.deepEqual(result.items, [], query);
        assert.equal(result.profile, null);
        assert.equal(result.formatted, '');
        assert.equal(result.chars, 0);
        assert.equal(result.tokens, 0);
      }
    });

    it('returns only the profile when nothing else is relevant', async () => {
      await memory.profiles.save('a', 'u', { content: 'Name: Ada' });
      await memory.memories.save('a', 'u', { content: 'kafka consumer lag' });
      const result = await memory.recall('a', 'u', 'kubernetes');
      assertWellFormed(result);
      assert.deepEqual(result.items, []);
      assert.equal(result.formatted, '## Profile\n\nName: Ada');
      assert.equal(result.chars, '## Profile\n\nName: Ada'.length);
    });
  });
});
