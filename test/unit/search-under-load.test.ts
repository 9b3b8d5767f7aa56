import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { RANK_WINDOW } from '../../src/core/search/fts-index';
import { openTemp } from './helpers';

/**
 * What keeps a search fast while another process writes (see
 * bench/search-under-load.mjs): FTS5 ranks at most the newest RANK_WINDOW
 * matches, and recall does not wait for another process's write lock to
 * record read counts.
 */
describe('search under write load', function () {
  this.timeout(120_000);

  describe('the ranking window', () => {
    it('still finds an old memory by a word rarer than the window, and a scope with nothing among the newest', async () => {
      const { memory, cleanup } = await openTemp();
      try {
        // The oldest rows: agent a's, one of them with a rare word; a hundred, so that they go
        // straight into FTS5 rather than wait in the queue of small writes (see PENDING_LIMIT).
        await memory.memories.saveMany(
          [
            'release notes mention the zebrafish rollout and common deploy words',
            ...Array.from({ length: 99 }, (_, i) => `common deploy words, note ${i}`),
          ].map((content) => ({ agentId: 'a', input: { content } })),
        );
        // More than the window of newer rows, all matching the common words, for another agent.
        const filler = Array.from({ length: RANK_WINDOW + 500 }, (_, i) => ({
          agentId: 'b',
          input: { content: `common deploy words ${i}` },
        }));
        for (let i = 0; i < filler.length; i += 1000) await memory.memories.saveMany(filler.slice(i, i + 1000));

        const rare = await memory.memories.search('a', undefined, 'zebrafish', 5);
        assert.equal(rare.length, 1);
        assert.match(rare[0]!.entity.content, /zebrafish/);
        // Agent a's rows are all older than the window: the search ranks every match for it instead of none.
        const common = await memory.memories.search('a', undefined, 'common deploy words', 20);
        assert.equal(common.length, 20);
        assert.ok(common.every((result) => result.entity.agentId === 'a'));
        const other = await memory.memories.search('b', undefined, 'common deploy words', 20);
        assert.equal(other.length, 20);
      } finally {
        await cleanup();
      }
    });
  });

  describe('read counts', () => {
    it('recall answers at once while another process holds the write lock, and records its read counts later', async () => {
      const { memory, dir, cleanup } = await openTemp({ busyTimeoutMs: 15_000 });
      try {
        const [saved] = await memory.memories.save('a', 'u', { content: 'the cache layer keeps sessions for an hour' });
        const other = new DatabaseSync(path.join(dir, 'memory.db'));
        other.exec('BEGIN IMMEDIATE');
        let started = performance.now();
        let result;
        try {
          result = await memory.recall('a', 'u', 'cache layer');
          // Without the lock, recall would have waited out the 15 s busy timeout, or failed with STORE_BUSY.
          assert.ok(performance.now() - started < 5_000, `recall took ${Math.round(performance.now() - started)} ms`);
          assert.equal(result.items[0]?.entity.id, saved.id);
          assert.equal(await memory.memories.accessCount(saved.id), 0, 'not recorded while the lock is held');
        } finally {
          other.exec('ROLLBACK');
          other.close();
        }
        started = performance.now();
        await memory.recall('a', 'u', 'cache layer');
        assert.equal(await memory.memories.accessCount(saved.id), 2, 'the waiting count is recorded with the next');
      } finally {
        await cleanup();
      }
    });

    it('close records read counts that are still waiting', async () => {
      const { memory, dir, cleanup } = await openTemp();
      const [saved] = await memory.memories.save('a', 'u', { content: 'deploys need two approvals' });
      const other = new DatabaseSync(path.join(dir, 'memory.db'));
      other.exec('BEGIN IMMEDIATE');
      await memory.recall('a', 'u', 'deploys approvals');
      other.exec('ROLLBACK');
      other.close();
      await memory.close();
      const { Memory } = await import('../../src/core/memory');
      const reopened = await Memory.open({ dir });
      try {
        assert.equal(await reopened.memories.accessCount(saved.id), 1);
      } finally {
        await reopened.close();
        await cleanup().catch(() => undefined);
      }
    });
  });
});
