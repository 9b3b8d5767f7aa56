import * as assert from 'node:assert/strict';

import { applyMiningPlan, mineSession, planMining } from '../../src/core/ai/mining';
import type { Memory } from '../../src/core/memory';
import { FakeAi, json } from './fake-ai';
import { openTemp, rejectsWith } from './helpers';

const ANSWER = json({
  memories: [
    {
      content: 'The API is deployed with docker compose on the staging host.',
      category: 'decision',
      tags: ['Deploy', 'docker'],
    },
    { content: 'The login page crashes when the session cookie has expired.', category: 'issue', tags: ['auth'] },
  ],
  skills: [
    { content: 'To release: run npm test, bump the version, push the tag.', category: 'procedure', tags: ['release'] },
  ],
  profile: ['Prefers TypeScript over JavaScript'],
});

describe('mining', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  // Mining's writes land at once here; that they wait for review by default is tested with the CLI (ai-cli.test.ts).
  beforeEach(async () => ({ memory, cleanup } = await openTemp({ review: 'immediate' })));
  afterEach(async () => cleanup());

  const session = async (userId: string | undefined, messages = 2) => {
    const [entity] = await memory.sessions.save('a', userId, {
      messages: Array.from({ length: messages }, (_, i) => ({
        role: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `Message ${i}: we talked about deploying with docker compose and releases.`,
      })),
    });
    return entity.id;
  };
  const commits = async () => (await memory.stats()).commits;

  it('writes memories, skills and profile facts from a valid answer, and marks the session mined', async () => {
    const id = await session('u');
    await memory.profiles.save('a', 'u', { content: 'Senior backend developer.', metadata: { team: 'api' } });
    const ai = new FakeAi([ANSWER]);
    const report = await mineSession(memory, ai, id);

    assert.equal(ai.requests.length, 1);
    assert.match(ai.requests[0]![1]!.content, /Message 0: we talked/);
    assert.deepEqual(
      report.created.map((item) => item.type),
      ['memory', 'memory', 'skill'],
    );
    const memories = await memory.memories.list('a', 'u');
    assert.equal(memories.length, 2);
    assert.ok(memories.every((m) => m.sourceSession === id));
    const deploy = memories.find((m) => m.category === 'decision');
    assert.deepEqual(deploy?.tags, ['deploy', 'docker'], 'tags are normalized');
    assert.equal((await memory.skills.list('a'))[0]?.category, 'procedure');

    const profile = await memory.profiles.getByUser('a', 'u');
    assert.equal(profile?.content, 'Senior backend developer.\n- Prefers TypeScript over JavaScript');
    assert.deepEqual(profile?.metadata, { team: 'api' }, 'the rest of the profile is kept');
    assert.deepEqual(
      report.updated.map((item) => item.id),
      [profile?.id],
    );
    assert.equal(report.updated[0]?.previousCommit !== null, true, 'an update can be undone by reverting');
    assert.equal((await memory.sessions.get(id))?.mined, true);
    assert.equal(report.markedMined, true);
  });

  it('retries a malformed answer, telling the model what was wrong', async () => {
    const id = await session('u');
    const invalid = json({ memories: [{ content: 'x', category: 'opinion' }] });
    const ai = new FakeAi(['Here you go: {"memories": [', invalid, ANSWER]);
    const report = await mineSession(memory, ai, id, { attempts: 3 });
    assert.equal(ai.requests.length, 3);
    assert.match(ai.lastMessage(1), /malformed/);
    assert.match(ai.lastMessage(2), /category/);
    assert.equal(report.created.length, 4, 'two memories, one skill and a new profile');
  });

  it('fails clearly and writes nothing when every answer is malformed', async () => {
    const id = await session('u');
    const before = await commits();
    const ai = new FakeAi(['I am sorry, I cannot help with that.']);
    const error = await rejectsWith(mineSession(memory, ai, id), 'AI_INVALID_OUTPUT');
    assert.match(error.message, /2 attempts/);
    assert.equal(ai.requests.length, 2);
    assert.equal(await commits(), before);
    assert.equal((await memory.sessions.get(id))?.mined, false);
  });

  it('writes nothing on a dry run, and the plan can be applied later', async () => {
    const id = await session('u');
    const before = await commits();
    const report = await mineSession(memory, new FakeAi([ANSWER]), id, { dryRun: true });
    assert.equal(report.dryRun, true);
    assert.equal(report.plan.memories.length, 2);
    assert.equal(report.plan.skills.length, 1);
    assert.deepEqual(report.plan.profileFacts, ['Prefers TypeScript over JavaScript']);
    assert.equal(await commits(), before);

    const applied = await applyMiningPlan(memory, report.plan);
    assert.equal(applied.created.length, 4, 'two memories, one skill and a new profile');
    assert.equal((await memory.sessions.get(id))?.mined, true);
  });

  it('mines a long session in several requests within the budget and folds repeats', async () => {
    const id = await session('u', 40);
    const progress: number[] = [];
    const ai = new FakeAi([ANSWER]);
    const report = await mineSession(memory, ai, id, {
      maxRequestChars: 4_500,
      onProgress: ({ done }) => progress.push(done),
    });
    assert.ok(ai.requests.length > 1, `${ai.requests.length} requests`);
    for (const request of ai.requests) {
      const size = request.reduce((sum, message) => sum + message.content.length, 0);
      assert.ok(size <= 4_500, `a request of ${size} characters`);
    }
    assert.match(ai.requests[0]![1]!.content, /part 1 of \d+/);
    assert.deepEqual(
      progress,
      ai.requests.map((_, i) => i + 1),
    );
    assert.equal(report.plan.requests, ai.requests.length);
    assert.equal((await memory.memories.list('a', 'u')).length, 2, 'each piece said the same: stored once');
    assert.ok(report.skipped.some((skip) => /repeats another item/.test(skip.reason)));
  });

  it('skips what is already stored and updates near-duplicates', async () => {
    const [stored] = await memory.memories.save('a', 'u', {
      content: 'The API is deployed with docker compose on the staging host.',
    });
    const [similar] = await memory.memories.save('a', 'u', {
      content: 'Login crashes if the cookie of the session is expired; seen on the staging host.',
    });
    const id = await session('u');
    const report = await mineSession(memory, new FakeAi([ANSWER]), id);
    assert.ok(report.skipped.some((skip) => skip.reason === `already stored as ${stored.id}`));
    assert.equal(report.plan.memories[0]?.existing?.id, similar.id);
    assert.ok(report.updated.some((item) => item.id === similar.id));
    assert.equal((await memory.memories.list('a', 'u')).length, 2);
  });

  it('leaves profile facts out when the session has no user', async () => {
    const id = await session(undefined);
    const report = await mineSession(memory, new FakeAi([ANSWER]), id);
    assert.ok(report.skipped.some((skip) => skip.kind === 'profile' && /no user/.test(skip.reason)));
    assert.equal(report.created.filter((item) => item.type === 'profile').length, 0);
  });

  it('does not mine a session twice unless forced', async () => {
    const id = await session('u');
    await memory.sessions.markMined(id);
    const ai = new FakeAi([ANSWER]);
    const plan = await planMining(memory, ai, id);
    assert.equal(ai.requests.length, 0);
    assert.match(plan.skipped[0]?.reason ?? '', /already mined/);
    assert.equal((await planMining(memory, ai, id, { force: true })).memories.length, 2);
  });

  it('is cancelled between requests and writes nothing', async () => {
    const id = await session('u', 40);
    const before = await commits();
    const controller = new AbortController();
    const ai = new FakeAi([
      () => {
        controller.abort();
        return ANSWER;
      },
    ]);
    await rejectsWith(mineSession(memory, ai, id, { maxRequestChars: 4_500, signal: controller.signal }), 'CANCELLED');
    assert.equal(ai.requests.length, 1);
    assert.equal(await commits(), before);
  });

  it('reports an unknown session', async () => {
    await rejectsWith(mineSession(memory, new FakeAi([ANSWER]), 'session-missing'), 'NOT_FOUND');
  });
});
