import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Memory, STORE_FILE } from '../../src/core/memory';
import { PENDING_LIMIT } from '../../src/core/search/fts-index';
import { FakeClock, openTemp, random, rejectsWith } from './helpers';

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
    // difference, so this holds only while no row is waiting and every row is a memory.
    integrity: () => db.exec(`INSERT INTO fts_memory (fts_memory, rank) VALUES ('integrity-check', 1)`),
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

  it('a waiting row found only when the pool is topped up is kept, as it would be once indexed', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      // "alpha" is rare in the store but absent from agent a's corner, so the
      // narrowed match (alpha only) finds nothing there and the pool is topped
      // up from every word: 1,100 ranked rows with "beta", and the waiting one.
      const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit tempor incididunt labore magna aliqua';
      await memory.memories.saveMany([
        ...Array.from({ length: 1100 }, (_, i) => ({
          agentId: 'a',
          userId: 'u',
          input: { content: `beta ${filler} n${i}` },
        })),
        { agentId: 'b', userId: 'u', input: { content: 'alpha only in agent b' } },
      ]);
      const [waiting] = await memory.memories.save('a', 'u', { content: 'beta beta beta' });
      const top = async () => (await memory.memories.search('a', 'u', 'alpha beta', 10))[0]?.entity.id;
      assert.equal(await top(), waiting.id, 'while waiting');
      for (let i = 1; i < PENDING_LIMIT; i++) await memory.memories.save('c', 'u', { content: `unrelated ${i}` });
      const db = inspect(memory.dir);
      assert.equal(db.waiting, 0);
      db.close();
      assert.equal(await top(), waiting.id, 'once in FTS5');
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

  it('a rebuild after the full-text tables were dropped puts back every row, waiting ones included', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const texts = sentences(PENDING_LIMIT + 10, 6);
      await memory.memories.saveMany(
        texts.slice(0, PENDING_LIMIT).map((content) => ({ agentId: 'a', userId: 'u', input: { content } })),
      );
      for (const content of texts.slice(PENDING_LIMIT)) await memory.memories.save('a', 'u', { content });
      // Every match, not a top few: rows are numbered afresh, which may reorder ties.
      const matches = async () =>
        (await memory.memories.search('a', 'u', 'deploy staging', 100)).map((result) => result.entity.id).sort();
      const expected = await matches();
      assert.ok(expected.length > 20);
      let db = inspect(dir);
      assert.equal(db.waiting, 10);
      db.close();
      const raw = new DatabaseSync(path.join(dir, STORE_FILE));
      raw.exec('DROP TABLE fts_vocab_memory; DROP TABLE fts_memory; DROP TABLE search_pending');
      raw.close();
      assert.equal(await memory.rebuildIndex(), PENDING_LIMIT + 10);
      db = inspect(dir);
      assert.equal(db.waiting, 0, 'one transaction: everything went into FTS5');
      db.integrity();
      db.close();
      assert.deepEqual(await matches(), expected);
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      await cleanup();
    }
  });

  it('upgrades a version-1 store, after which a version-1 process fails instead of damaging the index or a snapshot', async () => {
    const clock = new FakeClock();
    const { memory, dir, cleanup } = await openTemp({ now: clock.now });
    try {
      await memory.memories.saveMany(
        sentences(80, 5).map((content) => ({ agentId: 'a', userId: 'u', input: { content } })),
      );
      await memory.skills.save('a', undefined, { content: 'Deploy staging with the release script' });
      const expected = await ranking(memory, 'deploy staging');
      await memory.close();
      // Back to version 1's layout: its FTS5 table names, no queue of waiting rows.
      const db = new DatabaseSync(path.join(dir, STORE_FILE));
      for (const type of ['memory', 'skill', 'knowledge']) {
        db.exec(`DROP TABLE fts_vocab_${type}; DROP TABLE fts_${type}; DROP VIEW search_fts_${type};
          CREATE VIRTUAL TABLE search_fts_${type} USING fts5(content, tags, meta, content = 'search_docs',
            content_rowid = 'rowid', detail = column, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'");
          CREATE VIRTUAL TABLE search_vocab_${type} USING fts5vocab(search_fts_${type}, 'row');
          INSERT INTO search_fts_${type} (rowid, content, tags, meta)
            SELECT rowid, content, tags, meta FROM search_docs WHERE type = '${type}';`);
      }
      db.exec('DROP TABLE search_pending; PRAGMA user_version = 1');
      db.close();

      const upgraded = await Memory.open({ dir, author: 'test', now: clock.now });
      try {
        assert.deepEqual(await ranking(upgraded, 'deploy staging'), expected);
        assert.equal((await upgraded.skills.search('a', 'release script')).length, 1);
        // What a version-1 process still running on the store would do next:
        // search (no vocabulary any more), save, or restore a snapshot taken
        // before the upgrade, which attaches a file that still has the old tables.
        const old = new DatabaseSync(path.join(dir, STORE_FILE));
        assert.throws(
          () => old.prepare(`SELECT doc FROM search_vocab_memory WHERE term = 'deploy'`).all(),
          /no such table/,
        );
        assert.throws(
          () => old.exec(`INSERT INTO search_fts_memory (rowid, content, tags, meta) VALUES (999999, 'a', '', '')`),
          /upgraded by a newer Workspace Memory/,
        );
        const snapshot = path.join(dir, 'v1-snapshot.db');
        const v1 = new DatabaseSync(snapshot);
        v1.exec(`CREATE VIRTUAL TABLE search_fts_memory USING fts5(content, tags, meta)`);
        v1.exec(`INSERT INTO search_fts_memory (content, tags, meta) VALUES ('kept', '', '')`);
        v1.close();
        old.exec(`ATTACH DATABASE '${snapshot}' AS snap`);
        assert.throws(
          () => old.exec(`INSERT INTO search_fts_memory (search_fts_memory) VALUES ('delete-all')`),
          /upgraded by a newer Workspace Memory/,
        );
        assert.equal(Number(old.prepare('SELECT count(*) AS n FROM snap.search_fts_memory').get()?.n), 1);
        old.exec('DETACH DATABASE snap');
        old.close();
      } finally {
        await upgraded.close();
      }
      // openTemp's clean-up closes `memory` again, which is harmless.
    } finally {
      await cleanup();
    }
  });

  // Builds made before version 3 was released left version-2 stores in two
  // layouts: version 1's FTS5 tables with rows waiting beside them, or the new
  // tables without the old names' views. Each must upgrade to a store where
  // every row is found exactly once, also after the queue has been flushed.
  for (const layout of ['old tables with waiting rows', 'new tables'] as const) {
    it(`upgrades a version-2 store (${layout}), indexing every row once`, async () => {
      const { memory, dir, cleanup } = await openTemp();
      try {
        for (let i = 0; i < 10; i++) await memory.memories.save('a', 'u', { content: `zebra number${i} walks` });
        await memory.close();
        const db = new DatabaseSync(path.join(dir, STORE_FILE));
        for (const type of ['memory', 'skill', 'knowledge']) {
          db.exec(`DROP VIEW search_fts_${type}`);
          if (layout === 'new tables') continue;
          // Version 1's tables, holding the rows that had entered FTS5 (none of the waiting ones).
          db.exec(`DROP TABLE fts_vocab_${type}; DROP TABLE fts_${type};
            CREATE VIRTUAL TABLE search_fts_${type} USING fts5(content, tags, meta, content = 'search_docs',
              content_rowid = 'rowid', detail = column, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'");
            CREATE VIRTUAL TABLE search_vocab_${type} USING fts5vocab(search_fts_${type}, 'row');
            INSERT INTO search_fts_${type} (rowid, content, tags, meta)
              SELECT rowid, content, tags, meta FROM search_docs
              WHERE type = '${type}' AND rowid NOT IN (SELECT rowid FROM search_pending);`);
        }
        assert.equal(Number(db.prepare('SELECT count(*) AS n FROM search_pending').get()?.n), 10);
        db.exec('PRAGMA user_version = 2');
        db.close();

        const upgraded = await Memory.open({ dir, author: 'test' });
        try {
          const found = async (query: string) =>
            (await upgraded.memories.search('a', 'u', query, 50)).map((result) => result.entity.content);
          const before = await found('zebra');
          assert.equal(before.length, 10);
          assert.equal(new Set(before).size, 10);
          const [victim] = await upgraded.memories.list('a', 'u');
          await upgraded.memories.delete(victim!.id);
          for (let i = 0; i < PENDING_LIMIT + 5; i++)
            await upgraded.memories.save('b', 'u', { content: `filler ${i}` });
          const after = await found('zebra');
          assert.equal(after.length, 9);
          assert.equal(new Set(after).size, 9);
          assert.ok(!after.includes(victim!.content));
        } finally {
          await upgraded.close();
        }
      } finally {
        await cleanup();
      }
    });
  }

  it('refuses to write once a newer version has upgraded the store under it, and writes nothing', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      await memory.memories.save('a', 'u', { content: 'saved before the upgrade' });
      const newer = new DatabaseSync(path.join(dir, STORE_FILE));
      newer.exec('PRAGMA user_version = 99');
      newer.close();
      await rejectsWith(memory.memories.save('a', 'u', { content: 'saved after the upgrade' }), 'STORE_INCOMPATIBLE');
      assert.equal(await memory.memories.count('a', 'u'), 1);
    } finally {
      await cleanup();
    }
  });
});
