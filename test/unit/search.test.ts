import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { DEFAULT_SCORING } from '../../src/core/search/scoring';
import type { SearchResult } from '../../src/core/search/searcher';
import { type Entity, SHARED_AGENT_ID } from '../../src/core/types';
import { FakeClock, openTemp, rejectsWith } from './helpers';

const DAY_MS = 24 * 60 * 60 * 1000;

const ids = (results: readonly SearchResult[]): string[] => results.map((result) => result.entity.id);
const contents = (results: readonly SearchResult<Entity>[]): string[] => results.map((result) => result.entity.content);

/** Filler documents that share no word with the queries used next to them. */
const FILLER_WORDS =
  'apple river stone cloud paper window garden silver engine market forest bridge candle mirror planet rocket shadow thunder violet winter yellow harbor island jungle'.split(
    ' ',
  );
function filler(index: number): string {
  const words: string[] = [];
  for (let k = 0; k < 8; k++) words.push(FILLER_WORDS[(index * 7 + k * 3) % FILLER_WORDS.length]!);
  return words.join(' ');
}

describe('search', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  describe('matching', () => {
    it('finds memories by the words of their content, and nothing else', async () => {
      const [deploy] = await memory.memories.save('a', 'u', { content: 'Deploy to staging with GitHub Actions' });
      const [tabs] = await memory.memories.save('a', 'u', { content: 'The user prefers tabs over spaces' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'staging')), [deploy.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'GITHUB actions')), [deploy.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'spaces')), [tabs.id]);
      assert.deepEqual(await memory.memories.search('a', 'u', 'kubernetes'), []);
    });

    it('finds stemmed variants of a word both ways', async () => {
      const [deploying] = await memory.memories.save('a', 'u', { content: 'We are deploying the billing service' });
      const [deploys] = await memory.memories.save('a', 'u', { content: 'Nightly deploys go out at midnight' });
      for (const query of ['deploy', 'deploys', 'deployed', 'deploying', 'Deploying']) {
        assert.deepEqual(
          ids(await memory.memories.search('a', 'u', query)).sort(),
          [deploying.id, deploys.id].sort(),
          query,
        );
      }
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'services')), [deploying.id]);
    });

    it('finds by tags even when the content does not say the word', async () => {
      const [tagged] = await memory.memories.save('a', 'u', {
        content: 'Connection pool size is 20',
        tags: ['postgres', 'performance-tuning'],
      });
      await memory.memories.save('a', 'u', { content: 'Connection strings live in the vault' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'postgres')), [tagged.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'tuning')), [tagged.id]);
    });

    it('finds knowledge by its title, source path and questions', async () => {
      const [doc] = await memory.knowledge.save('a', undefined, {
        content: 'Bump the version, tag the commit, publish.',
        title: 'Release checklist',
        source: 'docs/shipping-handbook.md',
        questions: ['How do I cut a new build?'],
      });
      await memory.knowledge.save('a', undefined, { content: 'Unrelated notes about lunch', title: 'Food' });
      assert.deepEqual(ids(await memory.knowledge.search('a', 'checklist')), [doc.id]);
      assert.deepEqual(ids(await memory.knowledge.search('a', 'handbook')), [doc.id]);
      assert.deepEqual(ids(await memory.knowledge.search('a', 'docs/shipping-handbook.md')), [doc.id]);
      assert.deepEqual(ids(await memory.knowledge.search('a', 'cut build')), [doc.id]);
      for (const query of ['checklist', 'handbook', 'cut build']) {
        const [result] = await memory.knowledge.search('a', query, 10, { explain: true });
        assert.ok(result!.score > 0.3 && result!.explain!.relevance > 0.3, `${query}: ${result!.score}`);
      }
    });

    it('returns results best first with scores in (0, 1], and respects the limit', async () => {
      for (let i = 0; i < 30; i++) {
        await memory.memories.save('a', 'u', {
          content: `cache note ${i}: ${'cache '.repeat(i % 4)}${filler(i)}`,
          tags: i % 3 === 0 ? ['cache'] : [],
        });
      }
      const all = await memory.memories.search('a', 'u', 'cache', 200);
      assert.equal(all.length, 30);
      for (const result of all) assert.ok(result.score > 0 && result.score <= 1, String(result.score));
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.score >= all[i]!.score, 'sorted by score');
      assert.notEqual(all[0]!.score, all[all.length - 1]!.score, 'the scores differ');

      assert.equal((await memory.memories.search('a', 'u', 'cache')).length, 10, 'default limit 10');
      const three = await memory.memories.search('a', 'u', 'cache', 3);
      assert.deepEqual(ids(three), ids(all.slice(0, 3)), 'a smaller limit gives the top of the same ranking');
      assert.equal((await memory.memories.search('a', 'u', 'cache', 1)).length, 1);
    });

    it('refuses bad limits and queries that are not strings', async () => {
      await memory.memories.save('a', 'u', { content: 'something' });
      await rejectsWith(memory.memories.search('a', 'u', 'something', 201), 'LIMIT_TOO_LARGE');
      await rejectsWith(memory.skills.search('a', 'something', 1000), 'LIMIT_TOO_LARGE');
      await rejectsWith(memory.knowledge.search('a', 'something', 500), 'LIMIT_TOO_LARGE');
      assert.equal((await memory.memories.search('a', 'u', 'something', 200)).length, 1, '200 is allowed');
      for (const limit of [0, -1, 1.5, Number.NaN]) {
        await rejectsWith(memory.memories.search('a', 'u', 'something', limit), 'INVALID_INPUT');
      }
      for (const query of [42, null, undefined, { text: 'something' }, ['something']]) {
        await rejectsWith(memory.memories.search('a', 'u', query as unknown as string), 'INVALID_INPUT');
        await rejectsWith(memory.skills.search('a', query as unknown as string), 'INVALID_INPUT');
        await rejectsWith(memory.knowledge.search('a', query as unknown as string), 'INVALID_INPUT');
      }
      await rejectsWith(memory.memories.search('a/b', 'u', 'something'), 'INVALID_ID');
      await rejectsWith(memory.memories.search('a', 'u/v', 'something'), 'INVALID_ID');
    });

    it('returns nothing for an empty, blank, punctuation-only or stopword-only query', async () => {
      await memory.memories.save('a', 'u', { content: 'This is the deploy guide and the only one' });
      for (const query of ['', '   ', '\n\t', '!!!', '?.,;:', '--', 'the', 'the and of', 'is']) {
        assert.deepEqual(await memory.memories.search('a', 'u', query), [], JSON.stringify(query));
      }
    });

    it('treats FTS5 query syntax in a query as plain words', async () => {
      const [doc] = await memory.memories.save('a', 'u', {
        content: 'NEAR the content column: tags meta "quoted" star* caret^',
      });
      for (const query of [
        'star*',
        'content:tags',
        'NEAR(content column)',
        '^caret',
        'meta AND',
        'quoted"',
        'tags:meta',
      ]) {
        assert.deepEqual(ids(await memory.memories.search('a', 'u', query)), [doc.id], query);
      }
      for (const query of ['"unbalanced', '(((', 'NOT', 'OR', 'c++ c#', '\u0000', '🚀']) {
        assert.deepEqual(await memory.memories.search('a', 'u', query), [], query);
      }
    });

    it('a stopword-only query still finds a document made only of stopwords', async () => {
      // Both sides fall back to the stopwords when a text has nothing else.
      const [hamlet] = await memory.memories.save('a', 'u', { content: 'To be, or not to be' });
      await memory.memories.save('a', 'u', { content: 'Be sure to run the linter' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'to be')), [hamlet.id]);
    });
  });

  describe('query expansion', () => {
    const pairs: [string, string][] = [
      ['k8s', 'kubernetes'],
      ['db', 'database'],
      ['ts', 'typescript'],
    ];
    for (const [short, long] of pairs) {
      it(`${short} finds ${long} and ${long} finds ${short}`, async () => {
        const [longDoc] = await memory.memories.save('a', 'u', { content: `We migrated to ${long} last spring` });
        const [shortDoc] = await memory.memories.save('a', 'u', { content: `The ${short} settings are in a file` });
        await memory.memories.save('a', 'u', { content: 'Nothing to see here at all' });
        assert.deepEqual(ids(await memory.memories.search('a', 'u', short)).sort(), [longDoc.id, shortDoc.id].sort());
        assert.deepEqual(ids(await memory.memories.search('a', 'u', long)).sort(), [longDoc.id, shortDoc.id].sort());
        assert.deepEqual(
          ids(await memory.memories.search('a', 'u', long.toUpperCase())).sort(),
          [longDoc.id, shortDoc.id].sort(),
        );
      });
    }

    it('does not expand to unrelated words', async () => {
      await memory.memories.save('a', 'u', { content: 'We migrated to kubernetes' });
      assert.deepEqual(await memory.memories.search('a', 'u', 'db'), []);
      assert.deepEqual(await memory.memories.search('a', 'u', 'gql'), []);
    });

    it('uses the synonyms given to Memory.open, both ways', async () => {
      const custom = await openTemp({ synonyms: { gql: ['graphql'], 'feature flag': ['toggle'] } });
      try {
        const [graphql] = await custom.memory.memories.save('a', 'u', { content: 'The GraphQL schema is generated' });
        const [gql] = await custom.memory.memories.save('a', 'u', { content: 'Our gql gateway caches queries' });
        const [toggle] = await custom.memory.memories.save('a', 'u', { content: 'Every toggle expires after a month' });
        assert.deepEqual(ids(await custom.memory.memories.search('a', 'u', 'gql')).sort(), [graphql.id, gql.id].sort());
        assert.deepEqual(
          ids(await custom.memory.memories.search('a', 'u', 'graphql')).sort(),
          [graphql.id, gql.id].sort(),
        );
        assert.deepEqual(ids(await custom.memory.memories.search('a', 'u', 'feature flag')), [toggle.id]);
        // The defaults are still there.
        const [db] = await custom.memory.memories.save('a', 'u', { content: 'The database runs on port 5432' });
        assert.deepEqual(ids(await custom.memory.memories.search('a', 'u', 'db')), [db.id]);
      } finally {
        await custom.cleanup();
      }
      // Without the option, the same search finds only the literal spelling.
      const [graphql] = await memory.memories.save('a', 'u', { content: 'The GraphQL schema is generated' });
      await memory.memories.save('a', 'u', { content: 'Our gql gateway caches queries' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'graphql')), [graphql.id]);
    });
  });

  describe('scope', () => {
    it("never returns another agent's or another user's memories", async () => {
      const [mine] = await memory.memories.save('a', 'u', { content: 'secret rotation happens monthly' });
      const [otherUser] = await memory.memories.save('a', 'v', { content: 'secret rotation happens weekly' });
      const [otherAgent] = await memory.memories.save('b', 'u', { content: 'secret rotation happens daily' });
      // Memories have no shared scope: one cannot even be saved there.
      await rejectsWith(
        memory.memories.save(SHARED_AGENT_ID, 'u', { content: 'secret rotation happens yearly' }),
        'INVALID_INPUT',
      );
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'secret rotation')), [mine.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'v', 'secret rotation')), [otherUser.id]);
      assert.deepEqual(ids(await memory.memories.search('b', 'u', 'secret rotation')), [otherAgent.id]);
      assert.deepEqual(await memory.memories.search('c', 'u', 'secret rotation'), []);
      assert.deepEqual(await memory.memories.search('a', 'w', 'secret rotation'), []);
      // Memories have no shared scope: includeShared changes nothing.
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'secret rotation', 10, { includeShared: true })), [
        mine.id,
      ]);
    });

    it("returns memories saved without a user in a user's search", async () => {
      const [global] = await memory.memories.save('a', undefined, { content: 'lint runs before every commit' });
      const [mine] = await memory.memories.save('a', 'u', { content: 'lint warnings are errors for me' });
      await memory.memories.save('a', 'v', { content: 'lint is optional for v' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'lint')).sort(), [global.id, mine.id].sort());
    });

    it('a search without a user covers every user of the agent', async () => {
      // Documented in IndexScope: `undefined` means any user.
      const [u] = await memory.memories.save('a', 'u', { content: 'lint for u' });
      const [v] = await memory.memories.save('a', 'v', { content: 'lint for v' });
      const [none] = await memory.memories.save('a', undefined, { content: 'lint for everyone' });
      await memory.memories.save('b', 'u', { content: 'lint for another agent' });
      assert.deepEqual(ids(await memory.memories.search('a', undefined, 'lint')).sort(), [u.id, v.id, none.id].sort());
    });

    for (const type of ['skills', 'knowledge'] as const) {
      it(`${type}: includes the shared scope only when asked, and never another agent's`, async () => {
        const collection = memory[type];
        const [own] = await collection.save('a', undefined, { content: 'rollback the release with helm' });
        const [shared] = await collection.saveShared({ content: 'rollback steps for every team' });
        const [other] = await collection.save('b', undefined, { content: 'rollback by redeploying the tag' });
        assert.deepEqual(ids(await collection.search('a', 'rollback')), [own.id]);
        assert.deepEqual(ids(await collection.search('a', 'rollback', 10, { includeShared: false })), [own.id]);
        assert.deepEqual(
          ids(await collection.search('a', 'rollback', 10, { includeShared: true })).sort(),
          [own.id, shared.id].sort(),
        );
        assert.deepEqual(
          ids(await collection.search('b', 'rollback', 10, { includeShared: true })).sort(),
          [other.id, shared.id].sort(),
        );
        assert.deepEqual(ids(await collection.search('c', 'rollback', 10, { includeShared: true })), [shared.id]);
        assert.deepEqual(await collection.search('c', 'rollback'), []);
        // The shared agent itself sees its own entities once, with or without includeShared.
        assert.deepEqual(ids(await collection.search(SHARED_AGENT_ID, 'rollback')), [shared.id]);
        assert.deepEqual(ids(await collection.search(SHARED_AGENT_ID, 'rollback', 10, { includeShared: true })), [
          shared.id,
        ]);
      });
    }

    it('each collection searches only its own type', async () => {
      const [m] = await memory.memories.save('a', undefined, { content: 'flaky test quarantine' });
      const [s] = await memory.skills.save('a', undefined, { content: 'flaky test quarantine' });
      const [k] = await memory.knowledge.save('a', undefined, { content: 'flaky test quarantine' });
      await memory.sessions.save('a', undefined, { content: 'flaky test quarantine' });
      assert.deepEqual(ids(await memory.memories.search('a', undefined, 'flaky')), [m.id]);
      assert.deepEqual(ids(await memory.skills.search('a', 'flaky')), [s.id]);
      assert.deepEqual(ids(await memory.knowledge.search('a', 'flaky')), [k.id]);
    });
  });

  describe('the index stays exact', () => {
    it('after an update the old content no longer matches and the new one does', async () => {
      const [saved] = await memory.memories.save('a', 'u', { content: 'use yarn for installs', tags: ['tooling'] });
      await memory.memories.update(saved.id, { content: 'use pnpm for installs', tags: ['packages'] });
      assert.deepEqual(await memory.memories.search('a', 'u', 'yarn'), []);
      assert.deepEqual(await memory.memories.search('a', 'u', 'tooling'), []);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'pnpm')), [saved.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'packages')), [saved.id]);
      const [result] = await memory.memories.search('a', 'u', 'installs');
      assert.equal(result?.entity.content, 'use pnpm for installs', 'the result carries the latest version');
    });

    it('after a delete nothing matches', async () => {
      const [gone] = await memory.memories.save('a', 'u', { content: 'temporary workaround for the proxy' });
      const [kept] = await memory.memories.save('a', 'u', { content: 'permanent proxy settings' });
      await memory.memories.delete(gone.id);
      assert.deepEqual(await memory.memories.search('a', 'u', 'workaround'), []);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'proxy')), [kept.id]);
      await memory.memories.delete(kept.id);
      assert.deepEqual(await memory.memories.search('a', 'u', 'proxy'), []);
    });

    it('after updates and deletes, the statistics equal those of a store that only ever held the result', async () => {
      // Deleted or replaced text must leave the index entirely: it would otherwise still
      // weigh in the idf and the average length, even though it can no longer be returned.
      const edited = await openTemp();
      const direct = await openTemp();
      try {
        const [x] = await edited.memory.memories.save('a', 'u', { content: 'queue workers retry failed jobs' });
        const [y] = await edited.memory.memories.save('a', 'u', {
          content: 'a much longer note about queue workers that goes on and on about many other jobs',
        });
        const [z] = await edited.memory.memories.save('a', 'u', { content: 'queue queue queue jobs jobs' });
        await edited.memory.memories.update(y.id, { content: 'queue depth alarms page the on-call' });
        await edited.memory.memories.delete(z.id);
        await direct.memory.memories.save('a', 'u', { content: 'queue workers retry failed jobs' });
        await direct.memory.memories.save('a', 'u', { content: 'queue depth alarms page the on-call' });
        const explain = async (store: Memory) =>
          (await store.memories.search('a', 'u', 'queue jobs', 10, { explain: true }))
            .map((result) => [result.entity.content, result.explain!.bm25, result.explain!.relevance])
            .sort();
        assert.deepEqual(await explain(edited.memory), await explain(direct.memory));
        assert.equal((await edited.memory.memories.search('a', 'u', 'jobs')).length, 1);
        assert.equal((await edited.memory.memories.search('a', 'u', 'jobs'))[0]?.entity.id, x.id);
      } finally {
        await edited.cleanup();
        await direct.cleanup();
      }
    });

    it('after deleteMany and saveMany', async () => {
      const results = await memory.memories.saveMany(
        Array.from({ length: 20 }, (_, i) => ({ agentId: 'a', userId: 'u', input: { content: `bulk entry ${i}` } })),
      );
      assert.equal((await memory.memories.search('a', 'u', 'bulk', 200)).length, 20);
      await memory.memories.deleteMany(results.slice(0, 15).map((result) => result![0].id));
      assert.deepEqual(
        ids(await memory.memories.search('a', 'u', 'bulk', 200)).sort(),
        results
          .slice(15)
          .map((result) => result![0].id)
          .sort(),
      );
    });

    it('after a snapshot restore search reflects the restored state', async () => {
      const [kept] = await memory.memories.save('a', 'u', { content: 'original wording about caching' });
      const snapshot = await memory.snapshot('before');
      await memory.memories.update(kept.id, { content: 'rewritten wording about queues' });
      const [later] = await memory.memories.save('a', 'u', { content: 'added after the snapshot about caching' });
      const [removed] = await memory.memories.save('a', 'u', { content: 'removed soon' });
      await memory.memories.delete(removed.id);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'caching')), [later.id]);

      await memory.restore(snapshot.id);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'caching')), [kept.id]);
      assert.deepEqual(await memory.memories.search('a', 'u', 'queues'), []);
      assert.deepEqual(await memory.memories.search('a', 'u', 'removed'), []);
      assert.deepEqual(await memory.memories.search('a', 'u', 'snapshot'), []);
    });

    it('after an import the imported entities are searchable', async () => {
      const source = await openTemp();
      try {
        const [m] = await source.memory.memories.save('a', 'u', { content: 'imported memory about terraform' });
        const [s] = await source.memory.skills.save('a', undefined, { content: 'terraform plan before apply' });
        const [k] = await source.memory.knowledge.saveShared({ content: 'terraform modules live in infra/' });
        const data = await source.memory.export();
        const report = await memory.import(data);
        assert.equal(report.imported, 3);
        assert.deepEqual(ids(await memory.memories.search('a', 'u', 'terraform')), [m.id]);
        assert.deepEqual(ids(await memory.skills.search('a', 'terraform')), [s.id]);
        assert.deepEqual(ids(await memory.knowledge.search('a', 'terraform', 10, { includeShared: true })), [k.id]);

        // Importing over an existing entity replaces its indexed text.
        await source.memory.memories.update(m.id, { content: 'imported memory about pulumi' });
        await memory.import(await source.memory.export());
        assert.deepEqual(ids(await memory.memories.search('a', 'u', 'pulumi')), [m.id]);
        assert.deepEqual(await memory.memories.search('a', 'u', 'terraform'), []);
      } finally {
        await source.cleanup();
      }
    });

    it('rebuildIndex returns how many entities it indexed and search still works', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'rebuild the search index' });
      const [s] = await memory.skills.save('a', undefined, { content: 'index maintenance procedure' });
      const [gone] = await memory.knowledge.save('a', undefined, { content: 'deleted index doc' });
      await memory.knowledge.delete(gone.id);
      const before = await memory.memories.search('a', 'u', 'index', 10, { explain: true });
      assert.equal(await memory.rebuildIndex(), 2);
      const after = await memory.memories.search('a', 'u', 'index', 10, { explain: true });
      assert.deepEqual(ids(after), [m.id]);
      assert.deepEqual(ids(await memory.skills.search('a', 'index')), [s.id]);
      assert.deepEqual(await memory.knowledge.search('a', 'deleted'), []);
      assert.deepEqual(after[0]?.explain?.bm25, before[0]?.explain?.bm25, 'the same statistics after a rebuild');
      assert.equal(await memory.rebuildIndex(), 2, 'idempotent');
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'index')), [m.id]);
    });

    it('rebuildIndex counts only what it indexed: profiles are not indexed', async () => {
      // The doc comment says it "returns how many were indexed"; profiles never are.
      await memory.memories.save('a', 'u', { content: 'one memory' });
      await memory.profiles.save('a', 'u', { content: 'likes tea' });
      assert.equal(await memory.rebuildIndex(), 1);
    });

    it('profiles are not searchable and do not disturb search', async () => {
      const [m] = await memory.memories.save('a', 'u', { content: 'prefers dark mode in the editor' });
      const before = await memory.memories.search('a', 'u', 'dark mode', 10, { explain: true });
      await memory.profiles.save('a', 'u', { content: 'zebra enthusiast, prefers dark mode everywhere' });
      await memory.profiles.saveShared('u', { content: 'zebra zebra zebra dark mode' });
      for (const query of ['zebra', 'enthusiast']) {
        assert.deepEqual(await memory.memories.search('a', 'u', query), []);
        assert.deepEqual(await memory.skills.search('a', query, 10, { includeShared: true }), []);
        assert.deepEqual(await memory.knowledge.search('a', query, 10, { includeShared: true }), []);
      }
      const after = await memory.memories.search('a', 'u', 'dark mode', 10, { explain: true });
      assert.deepEqual(ids(after), [m.id]);
      assert.equal(after[0]?.explain?.bm25, before[0]?.explain?.bm25, 'profiles do not count in the statistics');
    });
  });

  describe('scoring', () => {
    it('explains every part of the score with the default weights', async () => {
      const clock = new FakeClock();
      const store = await openTemp({ now: clock.now });
      try {
        const [tagged] = await store.memory.memories.save('a', 'u', {
          content: 'redis eviction policy is allkeys-lru',
          tags: ['redis', 'cache'],
        });
        await store.memory.memories.save('a', 'u', { content: 'redis runs on port 6379' });
        await store.memory.memories.save('a', 'u', { content: 'unrelated filler text' });
        await store.memory.memories.incrementAccess([tagged.id, tagged.id, tagged.id]);
        clock.advance(30 * DAY_MS);
        const results = await store.memory.memories.search('a', 'u', 'redis eviction', 10, { explain: true });
        assert.equal(results.length, 2);
        assert.equal(results[0]?.entity.id, tagged.id);
        for (const result of results) {
          const e = result.explain;
          assert.ok(e, 'explain is attached');
          assert.deepEqual(Object.keys(e).sort(), ['access', 'bm25', 'recency', 'relevance', 'score', 'tagOverlap']);
          assert.ok(e.bm25 > 0);
          assert.ok(e.relevance > 0 && e.relevance < 1);
          assert.ok(e.tagOverlap >= 0 && e.tagOverlap <= 1);
          assert.ok(e.recency >= 1 - DEFAULT_SCORING.recencyWeight && e.recency <= 1);
          assert.ok(e.access >= 1 && e.access <= DEFAULT_SCORING.maxAccessBoost);
          const expected =
            (DEFAULT_SCORING.relevanceWeight * e.relevance + DEFAULT_SCORING.tagWeight * e.tagOverlap) *
            e.recency *
            e.access;
          assert.ok(Math.abs(e.score - expected) < 1e-12, `${e.score} vs ${expected}`);
          assert.equal(result.score, e.score);
          const expectedRecency = 1 - DEFAULT_SCORING.recencyWeight * (1 - Math.exp(-DEFAULT_SCORING.decayRate * 30));
          assert.ok(Math.abs(e.recency - expectedRecency) < 1e-9, 'recency after 30 days');
        }
        const [top, second] = results as [SearchResult, SearchResult];
        // Query words {redis, eviction}, tags {redis, cache}: one shared of three distinct.
        assert.ok(Math.abs(top.explain!.tagOverlap - 1 / 3) < 1e-12);
        assert.equal(second.explain!.tagOverlap, 0);
        assert.ok(Math.abs(top.explain!.access - (1 + DEFAULT_SCORING.accessWeight * Math.log1p(3))) < 1e-12);
        assert.equal(second.explain!.access, 1);

        const plain = await store.memory.memories.search('a', 'u', 'redis eviction');
        assert.equal(plain[0]?.explain, undefined, 'no explanation unless asked');
        assert.deepEqual(
          plain.map((result) => result.score),
          results.map((result) => result.score),
        );
      } finally {
        await store.cleanup();
      }
    });

    it('uses the scoring weights given to Memory.open', async () => {
      const store = await openTemp({ scoring: { relevanceWeight: 0.5, tagWeight: 0.5, recencyWeight: 0 } });
      try {
        await store.memory.memories.save('a', 'u', { content: 'redis eviction policy', tags: ['redis'] });
        const [result] = await store.memory.memories.search('a', 'u', 'redis', 10, { explain: true });
        const e = result!.explain!;
        assert.equal(e.tagOverlap, 1);
        assert.equal(e.recency, 1);
        assert.ok(Math.abs(e.score - (0.5 * e.relevance + 0.5 * e.tagOverlap)) < 1e-12);
      } finally {
        await store.cleanup();
      }
    });

    it('ranks a document matching all query words above one matching one of them', async () => {
      const [both] = await memory.memories.save('a', 'u', { content: 'redis cluster eviction settings tuned' });
      const [one] = await memory.memories.save('a', 'u', { content: 'redis cluster failover settings tuned' });
      const [other] = await memory.memories.save('a', 'u', { content: 'memcached eviction is simpler overall' });
      for (let i = 0; i < 10; i++) await memory.memories.save('a', 'u', { content: filler(i) });
      const results = await memory.memories.search('a', 'u', 'redis eviction', 10, { explain: true });
      assert.equal(results[0]?.entity.id, both.id);
      assert.deepEqual(ids(results).sort(), [both.id, one.id, other.id].sort());
      const relevance = (entity: { id: string }) =>
        results.find((result) => result.entity.id === entity.id)!.explain!.relevance;
      assert.ok(relevance(both) > relevance(one) + 0.1, `${relevance(both)} vs ${relevance(one)}`);
      assert.ok(relevance(both) > relevance(other) + 0.1);
    });

    it('gives comparable relevance for the same document and query in a small and a large store', async () => {
      const relevanceIn = async (size: number): Promise<number> => {
        const store = await openTemp();
        try {
          await store.memory.memories.saveMany(
            Array.from({ length: size - 1 }, (_, i) => ({
              agentId: 'a',
              userId: 'u',
              input: { content: `${filler(i)} item${i}` },
            })),
          );
          const [target] = await store.memory.memories.save('a', 'u', {
            content: 'the payment gateway retries failed webhooks every minute',
          });
          const results = await store.memory.memories.search('a', 'u', 'payment webhooks', 10, { explain: true });
          assert.deepEqual(ids(results), [target.id]);
          return results[0]!.explain!.relevance;
        } finally {
          await store.cleanup();
        }
      };
      const small = await relevanceIn(5);
      const large = await relevanceIn(200);
      // An average-length document with each query word once scores 1 - 1/e (0.63) on any store.
      for (const relevance of [small, large]) assert.ok(relevance > 0.5 && relevance < 0.8, String(relevance));
      assert.ok(Math.abs(small - large) < 0.1, `${small} vs ${large}`);
    });

    it('lifts an item whose tags match the query above an otherwise equal one', async () => {
      const [untagged] = await memory.memories.save('a', 'u', { content: 'retry the flaky upload job' });
      const [tagged] = await memory.memories.save('a', 'u', {
        content: 'retry the flaky upload job',
        tags: ['upload'],
      });
      const [unrelatedTags] = await memory.memories.save('a', 'u', {
        content: 'retry the flaky upload job',
        tags: ['billing'],
      });
      const results = await memory.memories.search('a', 'u', 'flaky upload', 10, { explain: true });
      assert.equal(results[0]?.entity.id, tagged.id);
      const byId = new Map(results.map((result) => [result.entity.id, result]));
      assert.ok(byId.get(tagged.id)!.explain!.tagOverlap > 0);
      assert.equal(byId.get(untagged.id)!.explain!.tagOverlap, 0);
      assert.equal(byId.get(unrelatedTags.id)!.explain!.tagOverlap, 0);
      assert.ok(byId.get(tagged.id)!.score > byId.get(untagged.id)!.score);
    });

    it('scores an old item below an identical new one, but by at most recencyWeight', async () => {
      const clock = new FakeClock();
      const store = await openTemp({ now: clock.now });
      try {
        const [old] = await store.memory.memories.save('a', 'u', { content: 'the vpn needs a restart on monday' });
        clock.advance(365 * DAY_MS);
        const [fresh] = await store.memory.memories.save('a', 'u', { content: 'the vpn needs a restart on monday' });
        const check = async () => {
          const results = await store.memory.memories.search('a', 'u', 'vpn restart', 10, { explain: true });
          assert.equal(results.length, 2);
          const byId = new Map(results.map((result) => [result.entity.id, result]));
          const newer = byId.get(fresh.id)!;
          const older = byId.get(old.id)!;
          assert.equal(newer.explain!.relevance, older.explain!.relevance);
          assert.ok(older.score <= newer.score);
          assert.ok(older.score >= newer.score * (1 - DEFAULT_SCORING.recencyWeight) - 1e-12);
          return { results, newer, older };
        };
        const { results, newer, older } = await check();
        assert.deepEqual(ids(results), [fresh.id, old.id]);
        assert.ok(older.score < newer.score);
        assert.equal(newer.explain!.recency, 1);
        const expected = 1 - DEFAULT_SCORING.recencyWeight * (1 - Math.exp(-DEFAULT_SCORING.decayRate * 365));
        assert.ok(Math.abs(older.explain!.recency - expected) < 1e-9);
        // A century later both are at the floor, never below it.
        clock.advance(100 * 365 * DAY_MS);
        const late = await check();
        for (const result of [late.older, late.newer]) {
          assert.ok(result.explain!.recency >= 1 - DEFAULT_SCORING.recencyWeight);
          assert.ok(result.explain!.recency < 1 - DEFAULT_SCORING.recencyWeight + 1e-9);
        }
      } finally {
        await store.cleanup();
      }
    });

    it('a future updatedAt (clock moved back) does not raise recency above 1', async () => {
      const clock = new FakeClock();
      const store = await openTemp({ now: clock.now });
      try {
        await store.memory.memories.save('a', 'u', { content: 'clock skew test' });
        clock.advance(-10 * DAY_MS);
        const [result] = await store.memory.memories.search('a', 'u', 'skew', 10, { explain: true });
        assert.equal(result!.explain!.recency, 1);
      } finally {
        await store.cleanup();
      }
    });

    it('raises the score of items read more often, never beyond maxAccessBoost', async () => {
      const clock = new FakeClock();
      const store = await openTemp({ now: clock.now });
      try {
        const [read] = await store.memory.memories.save('a', 'u', { content: 'renew the tls certificate' });
        const [unread] = await store.memory.memories.save('a', 'u', { content: 'renew the tls certificate' });
        const scores = async () => {
          const results = await store.memory.memories.search('a', 'u', 'tls certificate', 10, { explain: true });
          return new Map(results.map((result) => [result.entity.id, result]));
        };
        const before = await scores();
        assert.equal(before.get(read.id)!.score, before.get(unread.id)!.score);

        await store.memory.memories.incrementAccess([read.id]);
        assert.equal(await store.memory.memories.accessCount(read.id), 1);
        const once = await scores();
        assert.ok(once.get(read.id)!.score > once.get(unread.id)!.score);
        assert.ok(
          Math.abs(once.get(read.id)!.explain!.access - (1 + DEFAULT_SCORING.accessWeight * Math.log(2))) < 1e-12,
        );

        await store.memory.memories.incrementAccess(new Array<string>(2000).fill(read.id));
        assert.equal(await store.memory.memories.accessCount(read.id), 2001);
        const many = await scores();
        const boosted = many.get(read.id)!;
        assert.equal(boosted.explain!.access, DEFAULT_SCORING.maxAccessBoost);
        assert.ok(
          Math.abs(boosted.score - many.get(unread.id)!.score * DEFAULT_SCORING.maxAccessBoost) < 1e-12,
          'exactly the capped multiplier',
        );
        assert.equal(many.get(unread.id)!.explain!.access, 1, 'the other item is untouched');
      } finally {
        await store.cleanup();
      }
    });

    it('a word in most documents of a small store still finds them with relevance > 0', async () => {
      // FTS5's idf is log((N - n + 0.5) / (n + 0.5)): zero or less once a word is in half the documents.
      const saved = [];
      for (const word of ['alpha', 'beta', 'gamma', 'delta']) {
        saved.push((await memory.memories.save('a', 'u', { content: `logging setup for ${word}` }))[0]);
      }
      await memory.memories.save('a', 'u', { content: 'nothing here about that' });
      const results = await memory.memories.search('a', 'u', 'logging', 10, { explain: true });
      assert.deepEqual(ids(results).sort(), saved.map((entity) => entity.id).sort());
      for (const result of results) {
        assert.ok(result.explain!.bm25 > 0);
        assert.ok(result.explain!.relevance > 0.3, String(result.explain!.relevance));
        assert.ok(result.score > 0.3);
      }
      // In every document: still found.
      await memory.memories.save('a', 'u', { content: 'logging too' });
      const everywhere = await memory.memories.search('a', 'u', 'setup', 10, { explain: true });
      assert.equal(everywhere.length, 4);
      for (const result of everywhere) assert.ok(result.explain!.relevance > 0.3);
    });

    it('a word in every document of a store still finds them all', async () => {
      for (let i = 0; i < 6; i++) await memory.memories.save('a', 'u', { content: `shared word number${i}` });
      const results = await memory.memories.search('a', 'u', 'shared', 10, { explain: true });
      assert.equal(results.length, 6);
      for (const result of results) assert.ok(result.explain!.relevance > 0.3);
    });
  });

  describe('common words (the match budget)', () => {
    it('when every query word is common, documents with all of them come first', async () => {
      // A match budget of 5 documents makes words in 10 documents "common", as 1,000 would on a big store.
      const store = await openTemp({ scoring: { matchBudget: 5 } });
      try {
        const both = [];
        for (let i = 0; i < 10; i++) {
          const [saved] = await store.memory.memories.save('a', 'u', {
            content: `alpha note ${i}${i < 3 ? ' beta' : ''}`,
          });
          if (i < 3) both.push(saved.id);
        }
        for (let i = 0; i < 10; i++) await store.memory.memories.save('a', 'u', { content: `beta note ${i}` });
        const results = await store.memory.memories.search('a', 'u', 'alpha beta', 10);
        assert.equal(results.length, 10, 'topped up from the rarest word');
        assert.deepEqual(ids(results.slice(0, 3)).sort(), both.sort());
        const three = await store.memory.memories.search('a', 'u', 'alpha beta', 3);
        assert.deepEqual(ids(three).sort(), both.sort());
        // A single common word still finds every document that has it.
        assert.equal((await store.memory.memories.search('a', 'u', 'alpha', 200)).length, 10);
        // A rare word next to a common one: the documents with the rare word are found.
        const [rare] = await store.memory.memories.save('a', 'u', { content: 'zeta with alpha' });
        assert.equal((await store.memory.memories.search('a', 'u', 'alpha zeta'))[0]?.entity.id, rare.id);
      } finally {
        await store.cleanup();
      }
    });
  });

  describe('long queries', () => {
    it('takes a 5,000-word query, using only its first 64 terms', async () => {
      const [early] = await memory.memories.save('a', 'u', { content: 'the x marks the spot' });
      const [late] = await memory.memories.save('a', 'u', { content: 'the w is somewhere else' });
      // 5,000 one-letter words: "x", then 4,998 times "z", then "w" (9,999 characters).
      const query = ['x', ...new Array<string>(4998).fill('z'), 'w'].join(' ');
      assert.equal(query.split(' ').length, 5000);
      assert.ok(query.length <= 10_000);
      const results = await memory.memories.search('a', 'u', query);
      assert.deepEqual(ids(results), [early.id], 'the word at position 5,000 is not used');
      // The same word early in the query is used.
      const reordered = ['w', ...new Array<string>(4998).fill('z'), 'x'].join(' ');
      assert.deepEqual(ids(await memory.memories.search('a', 'u', reordered)), [late.id]);
    });

    it('a pasted long text of distinct words still works', async () => {
      const [target] = await memory.memories.save('a', 'u', { content: 'word3 and word40 are here' });
      const query = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');
      assert.ok(query.length <= 10_000);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', query)), [target.id]);
    });

    it('refuses a query over 10,000 characters', async () => {
      await memory.memories.save('a', 'u', { content: 'x' });
      await rejectsWith(memory.memories.search('a', 'u', 'x'.repeat(10_001)), 'INVALID_INPUT');
      await rejectsWith(memory.skills.search('a', 'x '.repeat(6000)), 'INVALID_INPUT');
      await rejectsWith(memory.knowledge.search('a', 'y'.repeat(20_000)), 'INVALID_INPUT');
      // Exactly 10,000 is allowed.
      assert.deepEqual(await memory.memories.search('a', 'u', 'q'.repeat(10_000)), []);
    });
  });

  describe('scripts and identifiers', () => {
    it('finds Chinese and Japanese text by two- and one-character queries', async () => {
      const [zh] = await memory.memories.save('a', 'u', { content: '我们使用数据库存储用户信息' });
      const [ja] = await memory.memories.save('a', 'u', { content: '東京都に住んでいます。' });
      await memory.memories.save('a', 'u', { content: 'plain English text' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', '数据')), [zh.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', '库')), [zh.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', '用户信息')), [zh.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', '東京')), [ja.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', '京')), [ja.id]);
      assert.deepEqual(await memory.memories.search('a', 'u', '大阪'), []);
    });

    it('finds CJK mixed with Latin words', async () => {
      const [mixed] = await memory.memories.save('a', 'u', { content: 'Docker容器的配置 lives here' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', '容器')), [mixed.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'docker')), [mixed.id]);
    });

    it('finds code identifiers whole and by their parts', async () => {
      const [camel] = await memory.memories.save('a', 'u', { content: 'Call getUserName() before rendering' });
      const [snake] = await memory.memories.save('a', 'u', { content: 'Set max_retry_count to 5' });
      const [dotted] = await memory.memories.save('a', 'u', { content: 'Use os.path.join for paths' });
      await memory.memories.save('a', 'u', { content: 'Something else entirely' });
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'user name')), [camel.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'getUserName')), [camel.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'retry')), [snake.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'max_retry_count')), [snake.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'retries count')), [snake.id]);
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'os.path.join')), [dotted.id]);
      // Whole-identifier matches rank above partial ones.
      const [partial] = await memory.memories.save('a', 'u', { content: 'the user name field is optional' });
      const results = await memory.memories.search('a', 'u', 'getUserName');
      assert.equal(results[0]?.entity.id, camel.id);
      assert.ok(ids(results).includes(partial.id));
    });
  });

  describe('saveOrUpdate', () => {
    const ORIGINAL = 'The staging deploy runs every Friday after the integration tests pass';
    // Similarity 0.875: one word of eight differs.
    const NEAR = 'The staging deploy runs every Thursday after the integration tests pass';
    // Similarity 1: the same terms once stemmed and without stopwords.
    const REWORDED = 'Staging deploys run every Friday once integration tests have passed';
    const DIFFERENT = 'Use pnpm for package management in this repository';

    it('updates a near-duplicate: same id, new commit, tags unioned', async () => {
      const [first, firstCommit, firstDedup] = await memory.memories.saveOrUpdate('a', 'u', {
        content: ORIGINAL,
        tags: ['deploy', 'ci'],
      });
      assert.deepEqual(firstDedup, { deduplicated: false });
      const [second, secondCommit, dedup] = await memory.memories.saveOrUpdate('a', 'u', {
        content: NEAR,
        tags: ['ci', 'staging'],
      });
      assert.equal(dedup.deduplicated, true);
      assert.ok(dedup.similarity !== undefined && Math.abs(dedup.similarity - 0.875) < 1e-9, String(dedup.similarity));
      assert.equal(second.id, first.id);
      assert.equal(second.content, NEAR);
      assert.deepEqual(second.tags, ['deploy', 'ci', 'staging']);
      assert.notEqual(secondCommit.hash, firstCommit.hash);
      assert.equal(secondCommit.parent, firstCommit.hash);
      assert.equal(secondCommit.op, 'update');
      assert.equal(await memory.memories.count('a', 'u'), 1);
      assert.equal((await memory.memories.history(first.id)).length, 2);
      // The index follows.
      assert.deepEqual(ids(await memory.memories.search('a', 'u', 'thursday')), [first.id]);
      assert.deepEqual(await memory.memories.search('a', 'u', 'friday'), []);
    });

    it('nearDuplicate names the memory a save would update, before anything is written', async () => {
      const [first] = await memory.memories.save('a', 'u', { content: ORIGINAL });
      const made = (await memory.stats()).commits;
      assert.equal((await memory.memories.nearDuplicate('a', 'u', NEAR))?.id, first.id);
      assert.equal(await memory.memories.nearDuplicate('a', 'u', DIFFERENT), null);
      assert.equal(await memory.memories.nearDuplicate('a', 'other-user', NEAR), null);
      const [skill] = await memory.skills.save('a', undefined, { content: ORIGINAL, category: 'workflow' });
      assert.equal((await memory.skills.nearDuplicate('a', { content: NEAR, category: 'workflow' }))?.id, skill.id);
      assert.equal(await memory.skills.nearDuplicate('a', { content: NEAR }), null, 'another category (procedure)');
      assert.equal((await memory.stats()).commits, made + 1);
    });

    it('matches a reworded duplicate too (stemmed terms)', async () => {
      const [first] = await memory.memories.saveOrUpdate('a', 'u', { content: ORIGINAL });
      const [second, , dedup] = await memory.memories.saveOrUpdate('a', 'u', { content: REWORDED });
      assert.equal(dedup.deduplicated, true);
      assert.ok(Math.abs(dedup.similarity! - 1) < 1e-9);
      assert.equal(second.content, REWORDED);
      assert.equal(second.id, first.id);
    });

    it('saves a different text as a new entity', async () => {
      const [first] = await memory.memories.saveOrUpdate('a', 'u', { content: ORIGINAL });
      const [second, commit, dedup] = await memory.memories.saveOrUpdate('a', 'u', { content: DIFFERENT });
      assert.deepEqual(dedup, { deduplicated: false });
      assert.notEqual(second.id, first.id);
      assert.equal(commit.op, 'create');
      assert.equal(await memory.memories.count('a', 'u'), 2);
    });

    it('a partial overlap below the threshold is a new entity', async () => {
      await memory.memories.saveOrUpdate('a', 'u', { content: 'The staging deploy runs every Friday' });
      const [, , dedup] = await memory.memories.saveOrUpdate('a', 'u', {
        content: 'The production database backup runs every night at two, the staging one never',
      });
      assert.equal(dedup.deduplicated, false);
      assert.equal(await memory.memories.count('a', 'u'), 2);
    });

    it('memories only merge within the same agent and user', async () => {
      const [base] = await memory.memories.saveOrUpdate('a', 'u', { content: ORIGINAL });
      const [otherUser, , d1] = await memory.memories.saveOrUpdate('a', 'v', { content: NEAR });
      const [otherAgent, , d2] = await memory.memories.saveOrUpdate('b', 'u', { content: NEAR });
      const [noUser, , d3] = await memory.memories.saveOrUpdate('a', undefined, { content: NEAR });
      assert.deepEqual([d1.deduplicated, d2.deduplicated, d3.deduplicated], [false, false, false]);
      assert.equal(new Set([base.id, otherUser.id, otherAgent.id, noUser.id]).size, 4);
      // A memory without a user is in u's search scope, but u's save does not land on it.
      const [again, , d4] = await memory.memories.saveOrUpdate('a', 'u', { content: NEAR });
      assert.equal(d4.deduplicated, true);
      assert.equal(again.id, base.id);
      const [againNoUser, , d5] = await memory.memories.saveOrUpdate('a', undefined, { content: ORIGINAL });
      assert.equal(d5.deduplicated, true);
      assert.equal(againNoUser.id, noUser.id);
      assert.equal((await memory.memories.get(base.id))?.content, NEAR, 'u untouched by the userless save');
    });

    it('knowledge only merges with the same source', async () => {
      const [readme] = await memory.knowledge.saveOrUpdate('a', { content: ORIGINAL, source: 'README.md' });
      const [guide, , d1] = await memory.knowledge.saveOrUpdate('a', { content: NEAR, source: 'docs/guide.md' });
      assert.equal(d1.deduplicated, false);
      assert.notEqual(guide.id, readme.id);
      const [none, , d2] = await memory.knowledge.saveOrUpdate('a', { content: NEAR });
      assert.equal(d2.deduplicated, false);
      const [same, , d3] = await memory.knowledge.saveOrUpdate('a', { content: NEAR, source: 'README.md' });
      assert.equal(d3.deduplicated, true);
      assert.equal(same.id, readme.id);
      const [noneAgain, , d4] = await memory.knowledge.saveOrUpdate('a', { content: ORIGINAL });
      assert.equal(d4.deduplicated, true);
      assert.equal(noneAgain.id, none.id);
      assert.equal((await memory.knowledge.list('a')).length, 3);
    });

    it('skills only merge within the same category (default procedure)', async () => {
      const [procedure] = await memory.skills.saveOrUpdate('a', { content: ORIGINAL });
      assert.equal(procedure.category, 'procedure');
      const [workflow, , d1] = await memory.skills.saveOrUpdate('a', { content: NEAR, category: 'workflow' });
      assert.equal(d1.deduplicated, false);
      assert.notEqual(workflow.id, procedure.id);
      const [explicit, , d2] = await memory.skills.saveOrUpdate('a', { content: NEAR, category: 'procedure' });
      assert.equal(d2.deduplicated, true);
      assert.equal(explicit.id, procedure.id);
      const [implicit, , d3] = await memory.skills.saveOrUpdate('a', { content: ORIGINAL });
      assert.equal(d3.deduplicated, true);
      assert.equal(implicit.id, procedure.id);
      const [otherAgent, , d4] = await memory.skills.saveOrUpdate('b', { content: ORIGINAL });
      assert.equal(d4.deduplicated, false);
      assert.notEqual(otherAgent.id, procedure.id);
    });

    it('never merges into a shared skill from an agent', async () => {
      const [shared] = await memory.skills.saveShared({ content: ORIGINAL });
      const [own, , dedup] = await memory.skills.saveOrUpdate('a', { content: NEAR });
      assert.equal(dedup.deduplicated, false);
      assert.notEqual(own.id, shared.id);
      assert.equal((await memory.skills.get(shared.id))?.content, ORIGINAL);
    });

    it('respects the dedupThreshold option', async () => {
      const strict = await openTemp({ dedupThreshold: 0.99 });
      const loose = await openTemp({ dedupThreshold: 0.3 });
      try {
        await strict.memory.memories.saveOrUpdate('a', 'u', { content: ORIGINAL });
        const [, , d1] = await strict.memory.memories.saveOrUpdate('a', 'u', { content: NEAR });
        assert.equal(d1.deduplicated, false, 'a near-duplicate is new at 0.99');
        assert.equal(await strict.memory.memories.count('a', 'u'), 2);
        const [, , d2] = await strict.memory.memories.saveOrUpdate('a', 'u', { content: REWORDED });
        assert.equal(d2.deduplicated, true, 'the same terms still merge at 0.99');

        await loose.memory.memories.saveOrUpdate('a', 'u', { content: 'The staging deploy runs every Friday' });
        const [, , d3] = await loose.memory.memories.saveOrUpdate('a', 'u', {
          content: 'The staging database backup runs every night',
        });
        assert.equal(d3.deduplicated, true, 'a loose threshold merges a partial overlap');
      } finally {
        await strict.cleanup();
        await loose.cleanup();
      }
    });

    it('Memory.open refuses an invalid dedupThreshold', async () => {
      for (const dedupThreshold of [0, -0.5, 1.5, Number.NaN]) {
        await rejectsWith(openTemp({ dedupThreshold }), 'INVALID_INPUT');
      }
      const exactlyOne = await openTemp({ dedupThreshold: 1 });
      await exactlyOne.cleanup();
    });

    it('validates like save', async () => {
      await rejectsWith(memory.memories.saveOrUpdate('a', 'u', { content: 42 } as never), 'INVALID_INPUT');
      await rejectsWith(memory.memories.saveOrUpdate('a/b', 'u', { content: 'x' }), 'INVALID_ID');
      assert.equal(await memory.memories.count('a', 'u'), 0);
    });
  });

  it('sessions are indexed but never returned by the other collections', async () => {
    await memory.sessions.save('a', 'u', { content: 'discussed the websocket reconnect bug' });
    assert.deepEqual(await memory.memories.search('a', 'u', 'websocket'), []);
    assert.deepEqual(await memory.skills.search('a', 'websocket', 10, { includeShared: true }), []);
    assert.deepEqual(await memory.knowledge.search('a', 'websocket', 10, { includeShared: true }), []);
    const [m] = await memory.memories.save('a', 'u', { content: 'websocket reconnect uses backoff' });
    assert.deepEqual(contents(await memory.memories.search('a', 'u', 'websocket')), [m.content]);
  });
});

describe('search index after delete and re-import', () => {
  it('a deleted entity brought back by import never takes another entity out of the index', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [a] = await memory.memories.save('agent', 'u', { content: 'alpha apples orchard' });
      const exported = await memory.export();
      await memory.memories.delete(a.id);
      const [b] = await memory.memories.save('agent', 'u', { content: 'bravo bananas plantation' });
      await memory.import(exported);
      assert.deepEqual(
        (await memory.memories.search('agent', 'u', 'bananas')).map((r) => r.entity.id),
        [b.id],
      );
      assert.deepEqual(
        (await memory.memories.search('agent', 'u', 'apples')).map((r) => r.entity.id),
        [a.id],
      );
      await memory.rebuildIndex();
      await memory.memories.delete(a.id);
      assert.deepEqual(
        (await memory.memories.search('agent', 'u', 'bananas')).map((r) => r.entity.id),
        [b.id],
      );
    } finally {
      await cleanup();
    }
  });
});
