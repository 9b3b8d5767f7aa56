import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { isMemoryError, MemoryError } from '../../src/core/errors';
import { Memory, STORE_FILE } from '../../src/core/memory';
import { damageMarkerPath } from '../../src/core/store/damage-marker';
import { Database } from '../../src/core/store/database';
import { SEARCH_INDEX_TABLES } from '../../src/core/store/schema';
import { type VerifyErrorCode, type VerifyReport, verifyState } from '../../src/core/verify';
import { openTemp, random, rejectsWith, tempDir } from './helpers';

const CODES: ReadonlySet<VerifyErrorCode> = new Set<VerifyErrorCode>([
  'SQLITE_INTEGRITY',
  'FILE_HEADER',
  'UNREADABLE',
  'CHECK_SKIPPED',
  'OBJECT_HASH_MISMATCH',
  'OBJECT_INVALID',
  'COMMIT_HASH_MISMATCH',
  'MISSING_OBJECT',
  'MISSING_PARENT',
  'FOREIGN_PARENT',
  'MISSING_HEAD',
  'CYCLE',
  'REF_MISMATCH',
  'SCOPE_CHANGED',
  'ORPHAN_COMMIT',
  'MISSING_TABLE',
  'SEARCH_INDEX',
]);

/** A report, well formed: every entry has a known code, an id and a message. */
function assertReport(report: VerifyReport): void {
  assert.equal(report.valid, report.errors.length === 0);
  for (const error of report.errors) {
    assert.ok(CODES.has(error.code), `unknown code ${error.code}`);
    assert.equal(typeof error.id, 'string');
    assert.ok(error.message.length > 10, error.message);
  }
}

/** Changes the store's file directly, as a disk fault or another tool would. */
function tamper(dir: string, sql: string, options: { defensive?: boolean } = {}): void {
  // Node 24 takes `defensive`; its type definitions do not list it yet.
  const settings: { readOnly: boolean; defensive: boolean } = { readOnly: false, defensive: options.defensive ?? true };
  const db = new DatabaseSync(path.join(dir, STORE_FILE), settings);
  db.exec(sql);
  db.close();
}

const codesOf = (report: VerifyReport): VerifyErrorCode[] => [...new Set(report.errors.map((e) => e.code))].sort();

/** A store with a bit of everything: several pages of objects, commits, refs and search rows. */
async function buildStore(dir: string): Promise<void> {
  const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
  try {
    const saved = await memory.memories.saveMany(
      Array.from({ length: 150 }, (_, i) => ({
        agentId: 'a',
        userId: i % 2 ? 'u' : undefined,
        input: { content: `note ${i} about the staging deploy and the cache layer ${'x'.repeat(i % 40)}`, tags: ['t'] },
      })),
    );
    for (const result of saved.slice(0, 30)) await memory.memories.update(result![0].id, { content: 'changed' });
    for (const result of saved.slice(30, 40)) await memory.memories.delete(result![0].id);
    for (let i = 0; i < 10; i++) await memory.skills.save('a', undefined, { content: `skill ${i} deploy` });
    await memory.profiles.save('a', 'u', { content: 'likes short answers' });
  } finally {
    await memory.close();
  }
}

describe('verify on a damaged store', function () {
  this.timeout(120_000);
  let base: string;
  let pristine: Buffer;
  const made: string[] = [];
  before(async () => {
    base = tempDir();
    await buildStore(base);
    pristine = fs.readFileSync(path.join(base, STORE_FILE));
  });
  after(() => {
    for (const dir of [base, ...made]) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A folder holding a copy of the healthy store, changed by `mutate`. */
  function copyOf(mutate: (bytes: Buffer) => void = () => undefined): string {
    const dir = tempDir();
    made.push(dir);
    const bytes = Buffer.from(pristine);
    mutate(bytes);
    fs.writeFileSync(path.join(dir, STORE_FILE), bytes);
    return dir;
  }

  /** One byte past SQLite's 100-byte header, replaced by another value, at a position chosen by `seed`. */
  const flip =
    (seed: number) =>
    (bytes: Buffer): void => {
      const rng = random(seed);
      const at = 100 + Math.floor(rng() * (bytes.length - 100));
      bytes[at] = bytes[at]! ^ (1 + Math.floor(rng() * 255));
    };

  it('lists the problems of byte flips at 80 seeded positions and never throws for a store it could open', () => {
    const seen = new Map<string, number>();
    for (let seed = 1; seed <= 80; seed++) {
      const file = path.join(copyOf(flip(seed)), STORE_FILE);
      let db: Database;
      try {
        db = new Database(file);
      } catch (error) {
        // A file SQLite cannot read at all.
        assert.ok(error instanceof MemoryError && error.code === 'STORE_CORRUPT', `seed ${seed}: ${String(error)}`);
        seen.set('STORE_CORRUPT', (seen.get('STORE_CORRUPT') ?? 0) + 1);
        continue;
      }
      try {
        // A read transaction, as Memory.verify's, ended by a rollback: a
        // damaged page leaves SQLite unable to commit even a read (see the report).
        db.exec('BEGIN');
        const report = verifyState(db);
        db.exec('ROLLBACK');
        assertReport(report);
        for (const code of codesOf(report)) seen.set(code, (seen.get(code) ?? 0) + 1);
        if (report.valid) seen.set('valid', (seen.get('valid') ?? 0) + 1);
      } catch (error) {
        assert.fail(`seed ${seed}: verify threw ${String(error)}`);
      } finally {
        db.close();
      }
    }
    // The flips hit every part of the file: damage was found, of several kinds.
    assert.ok((seen.get('valid') ?? 0) < 70, JSON.stringify([...seen]));
    assert.ok(seen.size >= 5, JSON.stringify([...seen]));
    // Among them the kinds that used to stop verify: an unreadable page, an object that is not JSON.
    assert.ok(seen.has('UNREADABLE') && seen.has('OBJECT_INVALID'), JSON.stringify([...seen]));
  });

  it('Memory.verify() on those stores returns a report, or says STORE_CORRUPT, never a raw error', async () => {
    let reports = 0;
    for (let seed = 1; seed <= 80; seed++) {
      let memory: Memory;
      try {
        memory = await Memory.open({ dir: copyOf(flip(seed)) });
      } catch (error) {
        assert.ok(error instanceof MemoryError, `seed ${seed}, open: ${String(error)}`);
        continue;
      }
      try {
        assertReport(await memory.verify());
        reports++;
      } catch (error) {
        // Only a store whose schema cannot be read at all may refuse to be verified.
        assert.ok(error instanceof MemoryError && error.code === 'STORE_CORRUPT', `seed ${seed}: ${String(error)}`);
      } finally {
        await memory.close().catch(() => undefined);
      }
    }
    assert.ok(reports >= 60, `${reports} of 80 gave a report`);
  });

  it('reads, searches, writes and rebuilds on those stores work or fail with a MemoryError, never a raw one', async () => {
    const ids = await (async () => {
      const memory = await Memory.open({ dir: copyOf() });
      try {
        return (await memory.memories.list('a')).map((entity) => entity.id);
      } finally {
        await memory.close();
      }
    })();
    const failures = new Map<string, number>();
    for (let seed = 1; seed <= 80; seed++) {
      let memory: Memory;
      try {
        memory = await Memory.open({ dir: copyOf(flip(seed)) });
      } catch (error) {
        assert.ok(error instanceof MemoryError, `seed ${seed}, open: ${String(error)}`);
        continue;
      }
      const id = ids[seed % ids.length]!;
      const other = ids[(seed * 7) % ids.length]!;
      const paths: [string, () => Promise<unknown>][] = [
        ['get', () => memory.memories.get(id)],
        ['list', () => memory.memories.list('a')],
        ['history', () => memory.memories.history(id)],
        ['search', () => memory.memories.search('a', undefined, 'staging deploy')],
        ['recall', () => memory.recall('a', 'u', 'cache layer')],
        ['save', () => memory.memories.save('a', 'u', { content: 'written after the damage' })],
        ['update', () => memory.memories.update(id, { content: 'updated after the damage' })],
        ['delete', () => memory.memories.delete(other)],
        ['reindex', () => memory.rebuildIndex()],
      ];
      try {
        for (const [name, run] of paths) {
          try {
            await run();
          } catch (error) {
            assert.ok(error instanceof MemoryError, `seed ${seed}, ${name}: ${String(error)}`);
            failures.set(error.code, (failures.get(error.code) ?? 0) + 1);
          }
        }
      } finally {
        await memory.close();
      }
    }
    // Some paths did meet the damage, and said so in the store's words.
    assert.ok((failures.get('STORE_CORRUPT') ?? 0) > 0, JSON.stringify([...failures]));
  });

  it('refuses a store whose write version (header byte 18) is flipped as damaged, not as a read-only folder', async () => {
    const error = await rejectsWith(
      Memory.open({ dir: copyOf((bytes) => (bytes[18] = bytes[18]! ^ 0xff)) }),
      'STORE_CORRUPT',
    );
    assert.match(error.message, /header of the store .* is damaged: the write version \(byte 18\) reads 253/);
    assert.match(error.message, /snapshot restore/);
  });

  it('refuses other header fields SQLite reads unchecked: the schema format, the text encoding, the reserved bytes', () => {
    for (const [at, expected] of [
      [44, /schema format \(byte 44\) reads 4278190084/],
      [56, /text encoding \(byte 56\) reads 4278190081/],
      [80, /reserved byte 80 is not zero/],
    ] as const) {
      const file = path.join(
        copyOf((bytes) => (bytes[at] = bytes[at]! ^ 0xff)),
        STORE_FILE,
      );
      const before = fs.readFileSync(file);
      assert.throws(
        () => new Database(file),
        (error: unknown) => isMemoryError(error, 'STORE_CORRUPT') && expected.test(error.message),
        String(at),
      );
      assert.ok(fs.readFileSync(file).equals(before), `${at}: the file is left as it was`);
    }
  });

  it('reports a layout version no release wrote, set under an open store, as damage, not as a newer version', async () => {
    const dir = copyOf();
    const memory = await Memory.open({ dir });
    try {
      // What a flip of header byte 60 gives: 2^24 past the layout.
      tamper(dir, `PRAGMA user_version = ${(1 << 24) + 5}`);
      const report = await memory.verify();
      assert.deepEqual(codesOf(report), ['FILE_HEADER']);
      assert.match(report.errors[0]!.message, /the layout version \(bytes 60-63\) reads 16777221/);
      assert.doesNotMatch(report.errors[0]!.message, /newer/);
    } finally {
      await memory.close();
    }
  });

  it('a file whose every page is unreadable is STORE_CORRUPT on open', async () => {
    const dir = copyOf((bytes) => bytes.fill(0x5a, 0, 4096));
    await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
  });

  it('reports every missing search table instead of failing, and a rebuild recreates them', async () => {
    for (const dropped of [
      ['fts_vocab_memory', 'fts_memory'],
      ['fts_vocab_skill', 'fts_skill', 'fts_vocab_knowledge', 'fts_knowledge'],
      [...SEARCH_INDEX_TABLES],
    ]) {
      const dir = copyOf();
      tamper(dir, dropped.map((table) => `DROP TABLE ${table};`).join('\n'));
      const memory = await Memory.open({ dir });
      try {
        const report = await memory.verify();
        assertReport(report);
        assert.deepEqual(codesOf(report), ['SEARCH_INDEX']);
        assert.deepEqual(report.errors.map((error) => error.id).sort(), [...dropped].sort());
        assert.match(report.errors[0]!.message, /is missing\. Rebuild the search index/);
        const search = memory.memories.search('a', undefined, 'staging deploy', 5);
        if (dropped.includes('fts_memory')) {
          const error = await rejectsWith(search, 'STORE_CORRUPT');
          assert.match(error.message, /search index .* is damaged \(no such table: .*\)\. Rebuild the search index/);
        } else assert.equal((await search).length, 5);
        assert.equal(await memory.rebuildIndex(), 150 - 10 + 10, 'every live memory and skill');
        assert.deepEqual((await memory.verify()).errors, []);
        const found = await memory.memories.search('a', undefined, 'staging deploy', 5);
        assert.equal(found.length, 5);
        assert.equal((await memory.skills.search('a', 'deploy', 3)).length, 3);
      } finally {
        await memory.close();
      }
    }
  });

  it('reports a column dropped from a store table, which it used to call valid', async () => {
    const dir = copyOf();
    tamper(dir, 'ALTER TABLE audit DROP COLUMN detail; ALTER TABLE access DROP COLUMN count;');
    const memory = await Memory.open({ dir });
    try {
      const report = await memory.verify();
      assertReport(report);
      assert.equal(report.valid, false);
      const messages = report.errors.filter((error) => error.code === 'MISSING_TABLE').map((error) => error.message);
      assert.ok(
        messages.some((message) => /audit table has no detail column/.test(message)),
        messages.join('\n'),
      );
      assert.ok(
        messages.some((message) => /access table has no count column/.test(message)),
        messages.join('\n'),
      );
    } finally {
      await memory.close();
    }
  });

  it('reports every missing store table with its repair, and a rebuild puts back those that hold no entities', async () => {
    const dropped = ['audit', 'access', 'vectors', 'vector_generation', 'rag_files'];
    const dir = copyOf();
    tamper(dir, dropped.map((table) => `DROP TABLE ${table};`).join('\n'));
    const memory = await Memory.open({ dir });
    try {
      const report = await memory.verify();
      assertReport(report);
      assert.deepEqual(codesOf(report), ['MISSING_TABLE']);
      assert.deepEqual(report.errors.map((error) => error.id).sort(), [...dropped].sort());
      assert.match(report.errors[0]!.message, /is missing its \w+ table .* Rebuild the index/);
      assert.equal(await memory.rebuildIndex(), 150 - 10 + 10);
      assert.deepEqual((await memory.verify()).errors, []);
      await memory.memories.save('a', undefined, { content: 'written after the repair' });
      assert.equal((await memory.memories.search('a', undefined, 'written after the repair', 1)).length, 1);
      assert.ok((await memory.export()).entities.memories.length > 0);
    } finally {
      await memory.close();
    }
  });

  it('reports a missing history table, which a rebuild refuses to make again empty', async () => {
    // Dropped while the store is open: a file without it is not taken for a store at all.
    const dir = copyOf();
    const memory = await Memory.open({ dir });
    try {
      tamper(dir, 'DROP TABLE commits;');
      const report = await memory.verify();
      assertReport(report);
      assert.ok(
        report.errors.some((error) => error.code === 'MISSING_TABLE' && error.id === 'commits'),
        JSON.stringify(report.errors),
      );
      const error = await rejectsWith(memory.rebuildIndex(), 'STORE_CORRUPT');
      assert.match(error.message, /missing its commits table .*Restore a snapshot/);
    } finally {
      await memory.close();
    }
  });

  it('a restore into a store whose search tables are gone rebuilds them there, leaving the snapshot as it was', async () => {
    const memory = await Memory.open({ dir: copyOf() });
    try {
      const snapshot = await memory.snapshot('before');
      const file = path.join(memory.dir, 'snapshots', `${snapshot.id}.db`);
      const tablesOf = (db: string): string[] => {
        const raw = new DatabaseSync(db, { readOnly: true });
        try {
          return raw
            .prepare('SELECT name FROM sqlite_master ORDER BY name')
            .all()
            .map((row) => String(row.name));
        } finally {
          raw.close();
        }
      };
      const before = tablesOf(file);
      assert.ok(before.includes('search_docs') && before.includes('fts_memory'));
      tamper(memory.dir, SEARCH_INDEX_TABLES.map((table) => `DROP TABLE ${table};`).join('\n'));
      await memory.restore(snapshot.id);
      assert.deepEqual(tablesOf(file), before);
      assert.deepEqual((await memory.verify()).errors, []);
      assert.equal((await memory.memories.search('a', undefined, 'staging deploy', 5)).length, 5);
    } finally {
      await memory.close();
    }
  });

  it('a rebuild repairs a full-text table that lost a shadow table, which verify reports', async () => {
    const dir = copyOf();
    // Only a connection without SQLite's defensive mode can do this: another tool, say.
    tamper(dir, 'DROP TABLE fts_memory_docsize', { defensive: false });
    const memory = await Memory.open({ dir });
    try {
      const report = await memory.verify();
      assertReport(report);
      assert.deepEqual(codesOf(report), ['SEARCH_INDEX']);
      assert.ok(report.errors.some((error) => /could not finish/.test(error.message)));
      await memory.rebuildIndex();
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      await memory.close();
    }
  });

  it('a damaged object is a report entry for verify, STORE_CORRUPT for a read, and left out of a rebuild', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [broken] = await memory.memories.save('a', 'u', { content: 'will break' });
      const [kept] = await memory.memories.save('a', 'u', { content: 'stays readable' });
      tamper(
        dir,
        `UPDATE objects SET data = substr(data, 1, 20) WHERE seq = (SELECT object_seq FROM refs WHERE id = '${broken.id}')`,
      );
      const report = await memory.verify();
      assertReport(report);
      assert.deepEqual(codesOf(report), ['OBJECT_HASH_MISMATCH', 'OBJECT_INVALID']);
      await rejectsWith(memory.memories.get(broken.id), 'STORE_CORRUPT');
      await rejectsWith(memory.memories.list('a'), 'STORE_CORRUPT');
      await rejectsWith(memory.memories.history(broken.id), 'STORE_CORRUPT');
      assert.equal(await memory.rebuildIndex(), 1, 'the readable memory');
      assert.deepEqual(
        (await memory.memories.search('a', 'u', 'readable')).map((result) => result.entity.id),
        [kept.id],
      );
    } finally {
      await cleanup();
    }
  });

  it('finds a wrong object hash and a broken parent chain, all of it in one report', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [first] = await memory.memories.save('a', 'u', { content: 'v1' });
      await memory.memories.update(first.id, { content: 'v2' });
      const [second] = await memory.memories.save('a', 'u', { content: 'other' });
      const [head, root] = await memory.memories.history(first.id);
      const [other] = await memory.memories.history(second.id);
      tamper(dir, `UPDATE objects SET hash = '${'0'.repeat(64)}' WHERE hash = '${other!.commit.object}'`);
      tamper(dir, `UPDATE commits SET parent_seq = 9999 WHERE hash = '${head!.commit.hash}'`);
      const report = await memory.verify();
      assertReport(report);
      const found = report.errors.map((error) => `${error.code} ${error.id}`).sort();
      assert.deepEqual(
        found,
        [
          `COMMIT_HASH_MISMATCH ${head!.commit.hash}`,
          `COMMIT_HASH_MISMATCH ${other!.commit.hash}`,
          `MISSING_PARENT ${head!.commit.hash}`,
          `OBJECT_HASH_MISMATCH ${'0'.repeat(64)}`,
          `ORPHAN_COMMIT ${root!.commit.hash}`,
        ].sort(),
      );
    } finally {
      await cleanup();
    }
  });
});

describe('a constraint the store did not make', () => {
  it('fails the write as STORE_CORRUPT, with the repair, and changes nothing', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [kept] = await memory.memories.save('a', undefined, { content: 'written before the damage' });
      // As a damaged schema or another program would leave it: SQLite refuses every new commit.
      const raw = new DatabaseSync(path.join(dir, STORE_FILE));
      raw.exec(`CREATE TABLE broken (x NOT NULL);
        CREATE TRIGGER refuse BEFORE INSERT ON commits BEGIN INSERT INTO broken VALUES (NULL); END`);
      raw.close();
      const error = await rejectsWith(
        memory.memories.save('a', undefined, { content: 'written after the damage' }),
        'STORE_CORRUPT',
      );
      assert.match(
        error.message,
        /refused a write its own layout allows \(NOT NULL constraint failed: broken\.x\).*workspace-memory verify/,
      );
      assert.deepEqual(
        (await memory.memories.list('a')).map((entity) => entity.id),
        [kept.id],
      );
    } finally {
      await cleanup();
    }
  });
});

describe('writes to a store verify found damaged', () => {
  it('are refused with STORE_CORRUPT until a verify finds the store valid again; repairs still run', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [saved] = await memory.memories.save('a', 'u', { content: 'original' });
      tamper(dir, `UPDATE objects SET data = replace(data, 'original', 'forged')`);
      assert.equal((await memory.verify()).valid, false);
      assert.ok(fs.existsSync(damageMarkerPath(path.join(dir, STORE_FILE))));
      const error = await rejectsWith(memory.memories.save('a', 'u', { content: 'more' }), 'STORE_CORRUPT');
      assert.match(
        error.message,
        /Verify found this store damaged .*\(Object [0-9a-f]{64} does not match its content\), so writes are refused/,
      );
      await rejectsWith(memory.memories.update(saved.id, { content: 'x' }), 'STORE_CORRUPT');
      await rejectsWith(memory.memories.delete(saved.id), 'STORE_CORRUPT');
      // Another process sees it too.
      const other = await Memory.open({ dir });
      await rejectsWith(other.memories.save('a', 'u', { content: 'from elsewhere' }), 'STORE_CORRUPT');
      await other.close();
      // Rebuilding the index is a repair, not a new version: it runs, leaving out the forged version.
      assert.equal(await memory.rebuildIndex(), 0);
      assert.equal(await memory.memories.count('a'), 1, 'nothing was written');

      tamper(dir, `UPDATE objects SET data = replace(data, 'forged', 'original')`);
      assert.equal(await memory.rebuildIndex(), 1);
      assert.equal((await memory.verify()).valid, true);
      assert.ok(!fs.existsSync(damageMarkerPath(path.join(dir, STORE_FILE))));
      await memory.memories.save('a', 'u', { content: 'more' });
      assert.equal(await memory.memories.count('a'), 2);
    } finally {
      await cleanup();
    }
  });

  it('are not refused for search index damage, which a rebuild repairs', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      await memory.memories.save('a', 'u', { content: 'indexed' });
      tamper(dir, `UPDATE search_stats SET docs = docs + 1`);
      assert.deepEqual(codesOf(await memory.verify()), ['SEARCH_INDEX']);
      await memory.memories.save('a', 'u', { content: 'still takes writes' });
    } finally {
      await cleanup();
    }
  });

  it("are not refused in a new store put in the damaged one's place", async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      await memory.memories.save('a', 'u', { content: 'original' });
      tamper(dir, `UPDATE objects SET data = replace(data, 'original', 'forged')`);
      assert.equal((await memory.verify()).valid, false);
      await memory.close();
      // As STORE_CORRUPT advises: move the damaged file away and start again.
      const file = path.join(dir, STORE_FILE);
      fs.renameSync(file, `${file}.broken`);
      const fresh = await Memory.open({ dir });
      try {
        await fresh.memories.save('a', 'u', { content: 'a new start' });
        assert.equal(await fresh.memories.count('a'), 1);
      } finally {
        await fresh.close();
      }
    } finally {
      await cleanup();
    }
  });
});
