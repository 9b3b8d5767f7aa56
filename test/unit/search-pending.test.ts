import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Memory, STORE_FILE } from '../../src/core/memory';
import { PENDING_LIMIT } from '../../src/core/search/fts-index';
import { FakeClock, openTemp, random } from './helpers';

const WORDS =
  'deploy staging cluster cache layer token refresh build pipeline docker image retry policy schema migration index query latency login session cookie webhook queue worker'.split(
    ' ',
  );

/** Sentences over a small vocabulary, so queries match many documents with different scores. */
function sentences(count: number, seed: number): string[] {
  const rng = random(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 4 + Math.floor(rng() * 8) }, () => WORDS[Math.floor(rng() * WORDS.length)]!).join(' '),
  );
}

/** Reads the store's search tables over a second connection, as another process would. */
function inspect(dir: string): { waiting: number; integrity: () => void; close: () => void } {
  const db = new DatabaseSync(path.join(dir, STORE_FILE));
  return {
    waiting: Number(db.prepare('SELECT count(*) AS n FROM search_pending').get()?.n),
    // FTS5 compares its index with search_docs row by row and throws on any
    // difference, so this holds only while no row is waiting.
    integrity: () => db.exec(`INSERT INTO search_fts_memory (search_fts_memory, rank) VALUES ('integrity-check', 1)`),
    close: () => db.close(),
  };
}

const QUERIES = ['deploy staging', 'cache token', 'docker image retry', 'login session cookie', 'queue'];

async function ranking(memory: Memory, query: string): Promise<string[]> {
  const results = await memory.memories.search('a', 'u', query, 20);
  return results.map((result) => `${result.entity.content} ${result.score.toFixed(9)}`);
}

describe('search rows waiting outside FTS5', () => {
  it('single saves wait until there are enough of them, then enter FTS5 together', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const texts = sentences(PENDING_LIMIT + 5, 1);
      for (const content of texts.slice(0, PENDING_LIMIT - 1)) await memory.memories.save('a', 'u', { content });
      let db = inspect(dir);
      assert.equal(db.waiting, PENDING_LIMIT - 1);
      db.close();
      await memory.memories.save('a', 'u', { content: texts[PENDING_LIMIT - 1]! });
      db = inspect(dir);
      assert.equal(db.waiting, 0, 'the save that reaches the limit puts every waiting row into FTS5');
      db.integrity();
      db.close();
      await memory.memories.saveMany(
        texts.slice(PENDING_LIMIT).map((content) => ({ agentId: 'a', userId: 'u', input: { content } })),
      );
      db = inspect(dir);
      assert.equal(db.waiting, 5, 'a small batch waits too');
      db.close();
    } finally {
      await cleanup();
    }
  });

  it('ranks exactly as if every row were in FTS5', async () => {
    const texts = sentences(150, 2);
    const clock = new FakeClock();
    const bulk = await openTemp({ now: clock.now });
    const single = await openTemp({ now: clock.now });
    try {
      // One transaction: every row goes straight into FTS5.
      await bulk.memory.memories.saveMany(texts.map((content) => ({ agentId: 'a', userId: 'u', input: { content } })));
      // One transaction each: 150 = 2 × 64 in FTS5 + 22 waiting.
      for (const content of texts) await single.memory.memories.save('a', 'u', { content });
      const db = inspect(single.dir);
      assert.equal(db.waiting, 150 % PENDING_LIMIT);
      db.close();
      for (const query of QUERIES) {
        const expected = await ranking(bulk.memory, query);
        assert.ok(expected.length > 5, query);
        assert.deepEqual(await ranking(single.memory, query), expected, query);
      }
    } finally {
      await bulk.cleanup();
      await single.cleanup();
    }
  });

  it('a waiting row is found only in its scope, and no longer once updated or deleted', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [kept] = await memory.memories.save('a', 'u', { content: 'zebra crossing near the office' });
      const [changed] = await memory.memories.save('a', 'u', { content: 'giraffe statue in the lobby' });
      const [gone] = await memory.memories.save('a', 'u', { content: 'walrus mascot on the website' });
      await memory.memories.save('b', 'u', { content: 'zebra pattern for agent b' });
      await memory.memories.update(changed.id, { content: 'okapi statue in the lobby' });
      await memory.memories.delete(gone.id);
      const found = async (query: string, agent = 'a') =>
        (await memory.memories.search(agent, 'u', query)).map((result) => result.entity.id);
      assert.deepEqual(await found('zebra'), [kept.id]);
      assert.deepEqual(await found('giraffe'), []);
      assert.deepEqual(await found('okapi'), [changed.id]);
      assert.deepEqual(await found('walrus'), []);
      assert.equal((await found('zebra', 'b')).length, 1);
      let db = inspect(dir);
      assert.equal(db.waiting, 3, 'the replaced and the deleted rows left the queue');
      db.close();
      // Push them all into FTS5 and check that the index holds exactly the live rows.
      for (const content of sentences(PENDING_LIMIT - 3, 3)) await memory.memories.save('c', 'u', { content });
      db = inspect(dir);
      assert.equal(db.waiting, 0);
      db.integrity();
      db.close();
      assert.deepEqual(await found('zebra'), [kept.id]);
      assert.deepEqual(await found('walrus'), []);
    } finally {
      await cleanup();
    }
  });

  it('another connection finds rows this one left waiting; rebuilding the index keeps them searchable', async () => {
    const { memory, dir, cleanup } = await openTemp();
    const other = await Memory.open({ dir, author: 'other' });
    try {
      const [saved] = await memory.memories.save('a', 'u', { content: 'the pelican release ships on Friday' });
      assert.deepEqual(
        (await other.memories.search('a', 'u', 'pelican')).map((result) => result.entity.id),
        [saved.id],
      );
      const texts = sentences(PENDING_LIMIT, 4);
      await other.memories.saveMany(texts.map((content) => ({ agentId: 'a', userId: 'u', input: { content } })));
      assert.equal(await memory.rebuildIndex(), PENDING_LIMIT + 1, 'one transaction: everything goes into FTS5');
      let db = inspect(dir);
      assert.equal(db.waiting, 0);
      db.integrity();
      db.close();
      assert.deepEqual(
        (await other.memories.search('a', 'u', 'pelican release')).map((result) => result.entity.id),
        [saved.id],
      );
      await memory.memories.delete(saved.id);
      assert.equal(
        await other.rebuildIndex(),
        PENDING_LIMIT,
        'PENDING_LIMIT rows in one transaction go straight into FTS5',
      );
      db = inspect(dir);
      assert.equal(db.waiting, 0);
      db.integrity();
      db.close();
    } finally {
      await other.close();
      await cleanup();
    }
  });
});
