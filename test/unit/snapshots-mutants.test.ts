import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { isMemoryError, MemoryError } from '../../src/core/errors';
import { Memory, STORE_FILE } from '../../src/core/memory';
import type { Snapshots } from '../../src/core/snapshots';
import { snapshotFault } from '../../src/core/snapshots/faults';
import { assertLabel, beforeRestoreLabel, listSnapshots, type SnapshotInfo } from '../../src/core/snapshots/manifests';
import { repairTempPath, restoreUnopenableStore } from '../../src/core/snapshots/rebuild';
import { ownedTempPath } from '../../src/core/store/owned-files';
import { auditOf, FakeClock, openTemp, rejectsWith, tempDir } from './helpers';

// Gaps the mutation run (issue #18) found in the tests of snapshots.

/** The message of the INVALID_INPUT error assertLabel throws for `label`. */
function labelRefusal(label: unknown): string {
  try {
    assertLabel(label);
  } catch (error) {
    assert.equal((error as { code?: unknown }).code, 'INVALID_INPUT');
    return (error as Error).message;
  }
  return assert.fail(`${JSON.stringify(label)} was accepted`);
}

describe('snapshots, as mutation testing probed them', () => {
  describe('a label', () => {
    it('says how long a label may be and how long the refused one was', () => {
      assert.doesNotThrow(() => assertLabel('x'.repeat(200)));
      assert.equal(labelRefusal('x'.repeat(201)), 'A snapshot label can have at most 200 characters (got 201).');
      assert.equal(labelRefusal(7), 'A snapshot label must be a string.');
    });

    it('names the forbidden character by its code point and its place in the label', () => {
      assert.equal(
        labelRefusal('ab\ncd'),
        'A snapshot label must be one line of text without control characters; U+000A (a line break, tab, escape or the like) at character 3 is not allowed.',
      );
      assert.match(labelRefusal('red \u001b[31m'), /; U\+001B \(.*\) at character 5 is/);
      assert.match(labelRefusal('c1\u009b'), /U\+009B .* at character 3 /);
      assert.match(labelRefusal('line\u2028sep'), /U\+2028 .* at character 5 /);
    });
  });

  describe('a failure while reading a snapshot', () => {
    it("is the snapshot's fault, with SQLite's words, when the file is damaged or cannot be read", () => {
      for (const code of ['STORE_CORRUPT', 'STORE_READONLY'] as const) {
        const sqlite = new Error('file is not a database');
        const raised = new MemoryError(code, 'The store at /live/memory.db is damaged.', { cause: sqlite });
        const fault = snapshotFault(raised, 'Snapshot snap-1 cannot be read');
        assert.ok(fault instanceof MemoryError, code);
        assert.equal(fault.code, 'SNAPSHOT_INVALID');
        assert.equal(
          fault.message,
          'Snapshot snap-1 cannot be read: file is not a database. The live store was not changed.',
        );
        assert.equal(fault.cause, raised);
      }
      const raw = snapshotFault(new Error('disk I/O error'), 'Snapshot snap-2 cannot be opened');
      assert.equal(
        (raw as Error).message,
        'Snapshot snap-2 cannot be opened: disk I/O error. The live store was not changed.',
      );
      assert.equal((snapshotFault('odd', 'S') as Error).message, 'S: odd. The live store was not changed.');
    });

    it("passes on the live store's own conditions unchanged", () => {
      for (const code of ['STORE_BUSY', 'STORE_FULL', 'STORE_CLOSED'] as const) {
        const error = new MemoryError(code, `${code} here`);
        assert.equal(snapshotFault(error, 'Snapshot snap-1 cannot be read'), error);
      }
    });
  });

  describe('the list of snapshots', () => {
    let dir: string;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const snapshot = (id: string, createdAt: string): SnapshotInfo => {
      const info = { id, label: id, createdAt, entities: 1, bytes: 10 };
      fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(info));
      fs.writeFileSync(path.join(dir, `${id}.db`), 'copy');
      return info;
    };

    it('is empty for a folder that does not exist', () => {
      assert.deepEqual(listSnapshots(path.join(dir, 'none')), []);
    });

    it('lists newest first, and snapshots made in the same millisecond by id, last first', () => {
      const older = snapshot('snap-a-1', '2026-01-01T00:00:00.000Z');
      const sameB = snapshot('snap-b-1', '2026-02-01T00:00:00.000Z');
      const sameC = snapshot('snap-c-1', '2026-02-01T00:00:00.000Z');
      const newest = snapshot('snap-0-1', '2026-03-01T00:00:00.000Z');
      assert.deepEqual(listSnapshots(dir), [newest, sameC, sameB, older]);
    });

    it('leaves out a manifest without its copy, one that is not JSON, too large or not a file, and other files', () => {
      const kept = snapshot('snap-k-1', '2026-01-01T00:00:00.000Z');
      fs.writeFileSync(path.join(dir, 'snap-gone-1.json'), JSON.stringify({ ...kept, id: 'snap-gone-1' }));
      fs.writeFileSync(path.join(dir, 'snap-bad-1.json'), '{ not json');
      fs.writeFileSync(path.join(dir, 'snap-bad-1.db'), 'copy');
      fs.writeFileSync(
        path.join(dir, 'snap-big-1.json'),
        JSON.stringify({ ...kept, id: 'snap-big-1', label: 'x'.repeat(70 * 1024) }),
      );
      fs.writeFileSync(path.join(dir, 'snap-big-1.db'), 'copy');
      fs.mkdirSync(path.join(dir, 'snap-dir-1.json'));
      // A copy of a listed snapshot's manifest under another name that is not a manifest.
      fs.writeFileSync(path.join(dir, 'snap-k-1.json.bak'), JSON.stringify(kept));
      assert.deepEqual(listSnapshots(dir), [kept]);
    });
  });
});

/** Runs `sql` on a SQLite file through a connection of its own, as another tool would. */
function tamperFile(file: string, sql: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

function generationOf(dir: string): number {
  const db = new DatabaseSync(path.join(dir, STORE_FILE), { readOnly: true });
  try {
    return Number(db.prepare('SELECT generation FROM vector_generation WHERE id = 1').get()?.generation);
  } finally {
    db.close();
  }
}

describe('snapshots of an open store, as mutation testing probed them', function () {
  this.timeout(60_000);
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, dir, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  it('records each snapshot and each restore in the audit log, with the snapshot and its label', async () => {
    await memory.memories.save('a', 'u', { content: 'kept' });
    const snapshot = await memory.snapshot('before the change');
    await memory.restore(snapshot.id);
    // A restore leaves no damage marker: writes go on.
    await memory.memories.save('a', 'u', { content: 'written after the restore' });
    assert.equal(fs.existsSync(`${path.join(dir, STORE_FILE)}.damaged`), false);
    const entries = auditOf(dir).filter((entry) => entry.op === 'snapshot' || entry.op === 'restore');
    assert.deepEqual(entries.slice(0, 1), [
      { op: 'snapshot', detail: { snapshot: snapshot.id, label: 'before the change' } },
    ]);
    const restore = entries.at(-1);
    assert.equal(restore?.op, 'restore');
    assert.equal(restore.detail.snapshot, snapshot.id);
  });

  it('compares with and restores the snapshot asked for, not the newest', async () => {
    const clock = new FakeClock();
    await memory.close();
    memory = await Memory.open({ dir, now: clock.now, synchronous: 'normal' });
    await memory.memories.save('a', 'u', { content: 'the first note' });
    const older = await memory.snapshot('one note');
    clock.advance(1000);
    await memory.memories.save('a', 'u', { content: 'the second note' });
    const newer = await memory.snapshot('two notes');
    assert.deepEqual(
      (await memory.listSnapshots()).map((info) => info.id),
      [newer.id, older.id],
    );
    const preview = await memory.restorePreview(older.id);
    assert.equal(preview.snapshot.id, older.id);
    assert.equal(preview.removed.total, 1);
    const restored = await memory.restore(older.id);
    assert.equal(restored.id, older.id);
    assert.deepEqual(
      (await memory.memories.list('a')).map((entity) => entity.content),
      ['the first note'],
    );
  });

  it('refuses a snapshot whose layout version is 0, or newer than this release reads', async () => {
    const snapshot = await memory.snapshot('layout');
    const file = path.join(dir, 'snapshots', `${snapshot.id}.db`);
    for (const version of [0, 9999]) {
      tamperFile(file, `PRAGMA user_version = ${version}`);
      const error = await rejectsWith(memory.restorePreview(snapshot.id), 'SNAPSHOT_INVALID');
      assert.equal(error.message, `Snapshot ${snapshot.id} has an unsupported layout (schema ${version}).`);
    }
  });

  it('says which check a snapshot failed, in its first problem', async () => {
    const [saved] = await memory.memories.save('a', 'u', { content: 'original' });
    const snapshot = await memory.snapshot('tampered');
    tamperFile(
      path.join(dir, 'snapshots', `${snapshot.id}.db`),
      `UPDATE objects SET data = replace(data, 'original', 'forged')`,
    );
    const error = await rejectsWith(memory.restore(snapshot.id), 'SNAPSHOT_INVALID');
    assert.match(
      error.message,
      new RegExp(`^Snapshot ${snapshot.id} failed verification: Object \\w+ does not match its content\\.`),
    );
    assert.equal((await memory.memories.get(saved.id))?.content, 'original');
  });

  it('passes on a failure that is not a full disk as it is, leaving nothing behind', async () => {
    fs.writeFileSync(path.join(dir, 'snapshots'), 'a file where the snapshots folder goes');
    let caught: unknown;
    try {
      await memory.snapshot('nowhere to go');
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof Error, String(caught));
    assert.ok(!isMemoryError(caught, 'STORE_FULL'), String(caught));
    assert.equal((caught as { code?: unknown }).code, 'EEXIST');
  });

  it('removes only manifests of its own naming, left over a quarter of an hour without their copy', async () => {
    const snapshots = path.join(dir, 'snapshots');
    fs.mkdirSync(snapshots, { recursive: true });
    const old = new Date(Date.now() - 16 * 60_000);
    const recent = new Date(Date.now() - 14 * 60_000);
    const files: Record<string, Date> = {
      'snap-gone-1.json': old,
      'snap-recent-1.json': recent,
      'snap-whole-1.json': old,
      'notes.json': old,
      'my-snap-x.json': old,
      'snap-old-1.json.bak': old,
    };
    for (const [name, time] of Object.entries(files)) {
      fs.writeFileSync(path.join(snapshots, name), '{}');
      fs.utimesSync(path.join(snapshots, name), time, time);
    }
    fs.writeFileSync(path.join(snapshots, 'snap-whole-1.db'), 'copy');
    const made = await memory.snapshot('cleans up');
    assert.deepEqual(
      fs.readdirSync(snapshots).sort(),
      [
        'my-snap-x.json',
        'notes.json',
        `${made.id}.db`,
        `${made.id}.json`,
        'snap-old-1.json.bak',
        'snap-recent-1.json',
        'snap-whole-1.db',
        'snap-whole-1.json',
      ].sort(),
    );
  });

  it('counts as partial copies only files named like a snapshot being copied or replaced', async () => {
    const snapshots = path.join(dir, 'snapshots');
    fs.mkdirSync(snapshots, { recursive: true });
    const ours = ownedTempPath(path.join(snapshots, 'snap-k-1.db'), 'partial');
    fs.writeFileSync(ours, Buffer.alloc(100));
    fs.writeFileSync(path.join(snapshots, 'snap-k-2.db.partial.bak'), Buffer.alloc(1000));
    fs.writeFileSync(path.join(snapshots, 'other-snap-k-3.db.partial'), Buffer.alloc(1000));
    const stats = await memory.stats();
    assert.equal(stats.partialSnapshots, 1);
    assert.equal(stats.partialSnapshotBytes, 100);
  });
});

describe('a restore over a store that cannot be opened, as mutation testing probed it', function () {
  this.timeout(60_000);
  let dir: string;
  let snapshotId: string;
  let generation: number;
  beforeEach(async () => {
    dir = tempDir();
    const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
    try {
      await memory.memories.save('a', 'u', { content: 'in the snapshot' });
      snapshotId = (await memory.snapshot('base')).id;
      await memory.memories.save('a', 'u', { content: 'after the snapshot' });
    } finally {
      await memory.close();
    }
    generation = generationOf(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The store's layout version reset: SQLite reads the file, the store refuses to open it. */
  const unopenable = (): void => tamperFile(path.join(dir, STORE_FILE), 'PRAGMA user_version = 0');

  it("keeps the store's whole audit log, adds the repair to it and moves vectors' generation past the old store's", async () => {
    // Vectors were written after the snapshot: caches of the old store must not match the new one.
    tamperFile(path.join(dir, STORE_FILE), 'UPDATE vector_generation SET generation = 50 WHERE id = 1');
    generation = 50;
    const before = auditOf(dir);
    unopenable();
    await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
    const info = await restoreUnopenableStore(dir, snapshotId);
    assert.equal(info.id, snapshotId);
    const after = auditOf(dir);
    // Every entry the old log held, the ones after the snapshot included, then the repair.
    assert.deepEqual(after.slice(0, before.length), before);
    assert.deepEqual(after.slice(before.length), [
      { op: 'restore', detail: { snapshot: snapshotId, repaired: 'the store could not be opened' } },
    ]);
    assert.ok(generationOf(dir) > generation, `${generationOf(dir)} > ${generation}`);
    const memory = await Memory.open({ dir });
    try {
      assert.deepEqual(
        (await memory.memories.list('a')).map((entity) => entity.content),
        ['in the snapshot'],
      );
      // The repair left no damage marker: writes go on.
      await memory.memories.save('a', 'u', { content: 'after the repair' });
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await memory.close();
    }
  });

  it("says in the repair's entry that the old audit log could not be read at all", async () => {
    tamperFile(path.join(dir, STORE_FILE), 'DROP TABLE audit; PRAGMA user_version = 0');
    await restoreUnopenableStore(dir, snapshotId);
    assert.deepEqual(auditOf(dir).at(-1), {
      op: 'restore',
      detail: {
        snapshot: snapshotId,
        repaired: 'the store could not be opened',
        auditLost: 'only the first 0 entries could be read: no such table: audit',
      },
    });
  });

  it("keeps the snapshot's audit log when the old one cannot be read at all", async () => {
    const inSnapshot = auditOf(dir)
      .filter((entry) => entry.op === 'save')
      .slice(0, 1);
    tamperFile(path.join(dir, STORE_FILE), 'DROP TABLE audit; PRAGMA user_version = 0');
    await restoreUnopenableStore(dir, snapshotId);
    assert.deepEqual(auditOf(dir).slice(0, 1), inSnapshot);
  });

  it('says there is no store to restore over when the file is gone, and names a snapshot that fails verification', async () => {
    const file = path.join(dir, STORE_FILE);
    fs.renameSync(file, `${file}.moved`);
    const missing = await rejectsWith(restoreUnopenableStore(dir, snapshotId), 'INVALID_INPUT');
    assert.equal(missing.message, `There is no store at ${file} to restore over.`);
    fs.renameSync(`${file}.moved`, file);
    unopenable();
    tamperFile(
      path.join(dir, 'snapshots', `${snapshotId}.db`),
      `UPDATE objects SET data = replace(data, 'in the snapshot', 'forged')`,
    );
    const invalid = await rejectsWith(restoreUnopenableStore(dir, snapshotId), 'SNAPSHOT_INVALID');
    assert.match(
      invalid.message,
      new RegExp(`Snapshot ${snapshotId} failed verification: Object \\w+ does not match its content\\.`),
    );
  });
  it("names SQLite's complaint about a store cut short in the repair's entry", async () => {
    const file = path.join(dir, STORE_FILE);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    await restoreUnopenableStore(dir, snapshotId);
    const repaired = auditOf(dir).at(-1)?.detail.repaired;
    assert.equal(typeof repaired, 'string');
    assert.notEqual(repaired, 'the store could not be opened');
    assert.notEqual(repaired, 'ok');
  });

  it('ignores an old vector generation that is not a whole number', async () => {
    tamperFile(path.join(dir, STORE_FILE), 'UPDATE vector_generation SET generation = 1e300 WHERE id = 1');
    unopenable();
    await restoreUnopenableStore(dir, snapshotId);
    const after = generationOf(dir);
    assert.ok(Number.isSafeInteger(after) && after > 0 && after < 1000, String(after));
  });

  it('refuses a malformed snapshot id, naming it as one, and a snapshot copy that is not a database', async () => {
    const malformed = await rejectsWith(restoreUnopenableStore(dir, '../etc'), 'INVALID_ID');
    assert.match(malformed.message, /^The snapshot id "\.\.\/etc" contains/);
    unopenable();
    const copy = path.join(dir, 'snapshots', `${snapshotId}.db`);
    fs.writeFileSync(copy, Buffer.alloc(8192, 0x41));
    const invalid = await rejectsWith(restoreUnopenableStore(dir, snapshotId), 'SNAPSHOT_INVALID');
    assert.match(
      invalid.message,
      new RegExp(`^Snapshot ${snapshotId} cannot be read: .+\\. The live store was not changed\\.$`),
    );
  });

  it('refuses a snapshot copy that is a link, leaving the store file as it was', async () => {
    unopenable();
    const copy = path.join(dir, 'snapshots', `${snapshotId}.db`);
    const elsewhere = path.join(dir, 'elsewhere.db');
    fs.renameSync(copy, elsewhere);
    fs.symlinkSync(elsewhere, copy);
    const before = fs.readFileSync(path.join(dir, STORE_FILE));
    const error = await rejectsWith(restoreUnopenableStore(dir, snapshotId), 'SNAPSHOT_INVALID');
    assert.match(error.message, /is a symbolic link/);
    assert.ok(fs.readFileSync(path.join(dir, STORE_FILE)).equals(before));
  });

  it('removes only the leftovers named like a repair of a snapshot', async () => {
    unopenable();
    const snapshots = path.join(dir, 'snapshots');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const leftover = repairTempPath(snapshots, snapshotId).replace(`.${process.pid}@`, `.${dead}@`);
    const name = path.basename(leftover);
    for (const file of [name, `other-${name}`, `${name}.bak`]) fs.writeFileSync(path.join(snapshots, file), 'x');
    await restoreUnopenableStore(dir, snapshotId);
    const left = fs.readdirSync(snapshots);
    assert.ok(!left.includes(name), left.join(', '));
    assert.ok(left.includes(`other-${name}`) && left.includes(`${name}.bak`), left.join(', '));
  });
});

describe('snapshots in a folder whose name has an apostrophe', function () {
  this.timeout(60_000);
  it('are made, compared, restored and repaired from as anywhere else', async () => {
    const dir = tempDir("wm-o'brien-");
    try {
      const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
      let id: string;
      try {
        await memory.memories.save('a', 'u', { content: 'kept' });
        id = (await memory.snapshot("o'brien's")).id;
        await memory.memories.save('a', 'u', { content: 'later' });
        assert.equal((await memory.restorePreview(id)).removed.total, 1);
        await memory.restore(id);
        assert.equal(await memory.memories.count('a'), 1);
      } finally {
        await memory.close();
      }
      tamperFile(path.join(dir, STORE_FILE), 'PRAGMA user_version = 0');
      await restoreUnopenableStore(dir, id);
      const reopened = await Memory.open({ dir });
      try {
        assert.equal(await reopened.memories.count('a'), 1);
      } finally {
        await reopened.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Damages the B-tree page at the root of `table` in the closed store `file`: its page-type byte and
 * the next three become 0x77, which SQLite's quick_check reports. The store still opens (the tables
 * read on opening are intact), as after a disk fault in one page.
 */
function damageRootPage(file: string, table: string): void {
  const db = new DatabaseSync(file, { readOnly: true });
  let offset: number;
  try {
    const root = Number(db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table)?.rootpage);
    const pageSize = Number(db.prepare('PRAGMA page_size').get()?.page_size);
    assert.ok(root > 1 && pageSize > 0, `${table}: root page ${root}, page size ${pageSize}`);
    offset = (root - 1) * pageSize;
  } finally {
    db.close();
  }
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, Buffer.from([0x77, 0x77, 0x77, 0x77]), 0, 4, offset);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * SQLite's quick_check of `file` through a connection of its own: 'ok' when every page reads, else
 * its complaints, or the error that stopped the check.
 */
function quickCheck(file: string): string {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db
      .prepare('PRAGMA quick_check')
      .all()
      .map((row) => String(row.quick_check))
      .join('\n');
  } catch (error) {
    return (error as Error).message;
  } finally {
    db.close();
  }
}

describe('a restore over a store whose pages are damaged, as mutation testing probed it', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let snapshotId: string;
  const inSnapshot = ['note 0', 'note 1', 'note 2'];
  beforeEach(async () => {
    dir = tempDir();
    file = path.join(dir, STORE_FILE);
    const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
    try {
      for (const content of inSnapshot) await memory.memories.save('a', 'u', { content });
      snapshotId = (await memory.snapshot('base')).id;
      await memory.memories.save('a', 'u', { content: 'written after the snapshot' });
    } finally {
      await memory.close();
    }
    // Vectors were written after the snapshot: the live generation is past the snapshot's.
    tamperFile(file, 'UPDATE vector_generation SET generation = 50 WHERE id = 1');
    // The access counts' table: no write of a memory reads it, so only quick_check notices.
    damageRootPage(file, 'access');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const contents = async (memory: Memory): Promise<string[]> =>
    (await memory.memories.list('a')).map((entity) => entity.content).sort();

  /**
   * Has the restore's first step, keeping the store as it was, followed by another process taking
   * the store's write lock (and, when `releaseAfterMs` is given, letting it go that much later):
   * the lock is then held while the restore writes the rebuilt store over the live file.
   */
  function lockAfterKeeping(memory: Memory, writer: DatabaseSync, releaseAfterMs?: number, end = 'ROLLBACK'): void {
    const snapshots = (memory as unknown as { snapshots: Snapshots }).snapshots;
    const create = snapshots.create.bind(snapshots);
    snapshots.create = (label: string): SnapshotInfo => {
      try {
        return create(label);
      } finally {
        writer.exec('BEGIN IMMEDIATE');
        writer.exec("INSERT INTO audit (time, op) VALUES ('2020-01-01', 'held')");
        if (releaseAfterMs !== undefined) setTimeout(() => writer.exec(end), releaseAfterMs);
      }
    };
  }

  it("rebuilds it from the snapshot, keeping the whole live audit log and recording the repair with SQLite's complaint", async () => {
    // What SQLite says of the damaged page: the check stops at it.
    const complaint = quickCheck(file);
    assert.equal(complaint, 'database disk image is malformed');
    const before = auditOf(dir);
    const generation = generationOf(dir);
    const memory = await Memory.open({ dir });
    try {
      const restored = await memory.restore(snapshotId);
      assert.equal(restored.id, snapshotId);
      // The damaged page stops SQLite from copying the store, so there is no snapshot of it as it was.
      assert.equal(restored.before, undefined);
      assert.deepEqual(await contents(memory), inSnapshot);
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      await memory.close();
    }
    assert.equal(quickCheck(file), 'ok');
    const after = auditOf(dir);
    // Every entry of the live log (the save after the snapshot included), then the repair, which
    // names SQLite's complaint about the damaged page.
    assert.deepEqual(after.slice(0, before.length), before);
    assert.equal(after.length, before.length + 1);
    const repair = after.at(-1);
    assert.equal(repair?.op, 'restore');
    assert.deepEqual(Object.keys(repair.detail).sort(), ['repaired', 'snapshot']);
    assert.equal(repair.detail.snapshot, snapshotId);
    assert.equal(repair.detail.repaired, complaint);
    // Caches of vectors read from the damaged store (generation 50) must not match the rebuilt one.
    assert.equal(generation, 50);
    assert.ok(generationOf(dir) > generation, `${generationOf(dir)} > ${generation}`);
    // Nothing of the repair is left beside the snapshot.
    assert.deepEqual(fs.readdirSync(path.join(dir, 'snapshots')).sort(), [`${snapshotId}.db`, `${snapshotId}.json`]);
  });

  it('lets writes resume that a verify had refused after finding the damage', async () => {
    const memory = await Memory.open({ dir });
    try {
      assert.equal((await memory.verify()).valid, false);
      const refused = await rejectsWith(memory.memories.save('a', 'u', { content: 'refused' }), 'STORE_CORRUPT');
      assert.match(refused.message, /^Verify found this store damaged/);
      await memory.restore(snapshotId);
      await memory.memories.save('a', 'u', { content: 'after the repair' });
      assert.deepEqual(await contents(memory), [...inSnapshot, 'after the repair'].sort());
    } finally {
      await memory.close();
    }
  });

  it("waits for another process's write that ends within the busy timeout, then replaces the damaged store", async () => {
    const memory = await Memory.open({ dir, busyTimeoutMs: 10_000 });
    const writer = new DatabaseSync(file);
    try {
      lockAfterKeeping(memory, writer, 300);
      await memory.restore(snapshotId);
      assert.deepEqual(await contents(memory), inSnapshot);
    } finally {
      writer.close();
      await memory.close();
    }
    assert.equal(quickCheck(file), 'ok');
  });

  it('refuses with STORE_BUSY when another process commits while the repair waits, so its commit is not written over', async () => {
    const memory = await Memory.open({ dir, busyTimeoutMs: 10_000 });
    const writer = new DatabaseSync(file);
    try {
      lockAfterKeeping(memory, writer, 300, 'COMMIT');
      const error = await rejectsWith(memory.restore(snapshotId), 'STORE_BUSY');
      assert.match(
        error.message,
        /Another process wrote to the store while snapshot .* nothing it wrote is lost\. Restore again\./,
      );
      assert.ok(
        writer.prepare("SELECT count(*) AS n FROM audit WHERE op = 'held'").get()?.n === 1,
        'and still there after the refused restore',
      );
    } finally {
      writer.close();
      await memory.close();
    }
  });

  it('gives up with STORE_BUSY once the busy timeout has passed, leaving the damaged file as it was and no new store behind', async () => {
    const memory = await Memory.open({ dir, busyTimeoutMs: 300 });
    const writer = new DatabaseSync(file);
    try {
      const damaged = fs.readFileSync(file);
      lockAfterKeeping(memory, writer);
      const started = Date.now();
      const error = await rejectsWith(memory.restore(snapshotId), 'STORE_BUSY');
      // It waited as long as a statement would have (300 ms) before giving up.
      assert.ok(Date.now() - started >= 300, `gave up after ${Date.now() - started} ms`);
      assert.equal(
        error.message,
        `The damaged store at ${file} could not be replaced: another process (a VS Code window, an MCP server, a CLI) was writing to it. Nothing was changed; retry, or close them first.`,
      );
      assert.ok(fs.readFileSync(file).equals(damaged), 'the live file is as it was');
      assert.deepEqual(fs.readdirSync(path.join(dir, 'snapshots')).sort(), [`${snapshotId}.db`, `${snapshotId}.json`]);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
      await memory.close();
    }
  });

  it("refuses to rebuild in place a store whose header's schema cookie is damaged, saying how to start anew, and changes nothing", async () => {
    // The header's count of schema changes, far beyond what a store reaches: passing it would take
    // a million schema changes in the new store.
    // Not defensive (Node's @types do not name the option yet): SQLite then lets the cookie be set.
    const settings: { readOnly: boolean; defensive: boolean } = { readOnly: false, defensive: false };
    const tamper = new DatabaseSync(file, settings);
    try {
      tamper.exec('PRAGMA schema_version = 2000000');
    } finally {
      tamper.close();
    }
    const memory = await Memory.open({ dir });
    try {
      const damaged = fs.readFileSync(file);
      let caught: unknown;
      try {
        await memory.restore(snapshotId);
      } catch (error) {
        caught = error;
      }
      // The store's fault, not the intact snapshot's: trying another snapshot would not help.
      assert.ok(caught instanceof MemoryError, String(caught));
      assert.equal(caught.code, 'STORE_CORRUPT');
      assert.ok(
        caught.message.includes(
          `The header of the store at ${file} is damaged (schema cookie 2000000): it cannot be rebuilt in place. Start a new store with \`workspace-memory init\``,
        ),
        caught.message,
      );
      assert.ok(fs.readFileSync(file).equals(damaged), 'the live file is as it was');
      assert.deepEqual(await contents(memory), [...inSnapshot, 'written after the snapshot'].sort());
    } finally {
      await memory.close();
    }
  });
});

/** A new store holding one memory and a snapshot of it: its folder, its database file and the snapshot's id. */
async function storeWithSnapshot(): Promise<{ dir: string; file: string; snapshotId: string }> {
  const dir = tempDir();
  const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
  try {
    await memory.memories.save('a', 'u', { content: 'in the snapshot' });
    return { dir, file: path.join(dir, STORE_FILE), snapshotId: (await memory.snapshot('base')).id };
  } finally {
    await memory.close();
  }
}

describe('a store that cannot be opened, replaced whole from a snapshot', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let snapshotId: string;
  beforeEach(async () => ({ dir, file, snapshotId } = await storeWithSnapshot()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('moves the damaged file and its log files aside together, under the name the restore returns', async () => {
    fs.truncateSync(file, 1024);
    const sidecars: Record<string, string> = {
      '-wal': 'the log of the damaged store',
      '-shm': 'its shared memory',
      '-journal': 'its rollback journal',
    };
    for (const [suffix, content] of Object.entries(sidecars)) fs.writeFileSync(`${file}${suffix}`, content);
    const damaged = fs.readFileSync(file);
    const info = await restoreUnopenableStore(dir, snapshotId);
    assert.ok(info.keptAside, 'the result says where the damaged file went');
    assert.equal(path.dirname(info.keptAside), dir);
    assert.match(path.basename(info.keptAside), /^memory\.db\.unreadable-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    assert.ok(fs.readFileSync(info.keptAside).equals(damaged), 'kept whole');
    // Each log file goes with it, whole: none is left for SQLite to apply to the new store.
    for (const [suffix, content] of Object.entries(sidecars)) {
      assert.equal(fs.readFileSync(`${info.keptAside}${suffix}`, 'utf8'), content, suffix);
    }
    assert.deepEqual(
      fs.readdirSync(dir).sort(),
      [
        STORE_FILE,
        'snapshots',
        ...['', ...Object.keys(sidecars)].map((suffix) => path.basename(`${info.keptAside}${suffix}`)),
      ].sort(),
    );
    assert.equal(quickCheck(file), 'ok');
    const memory = await Memory.open({ dir });
    try {
      assert.deepEqual(
        (await memory.memories.list('a')).map((entity) => entity.content),
        ['in the snapshot'],
      );
    } finally {
      await memory.close();
    }
  });

  it('keeps the entries of the old audit log that read before a damaged page, and says how many', async () => {
    // Enough entries for the log to span many pages, added last, so its last page is the file's last.
    const tamper = new DatabaseSync(file);
    let pageSize: number;
    try {
      pageSize = Number(tamper.prepare('PRAGMA page_size').get()?.page_size);
      tamper.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
        INSERT INTO audit (time, op, detail)
        SELECT '2026-01-01T00:00:00.000Z', 'note', json_object('n', i, 'pad', printf('%.200c', 'x')) FROM n`);
      tamper.exec('PRAGMA user_version = 0');
    } finally {
      tamper.close();
    }
    const before = auditOf(dir);
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    try {
      fs.writeSync(fd, Buffer.from([0x77, 0x77, 0x77, 0x77]), 0, 4, size - pageSize);
    } finally {
      fs.closeSync(fd);
    }
    await restoreUnopenableStore(dir, snapshotId);
    const after = auditOf(dir);
    const kept = after.length - 1;
    // Some entries were read, not all: those before the damaged last page, in their order.
    assert.ok(kept > 0 && kept < before.length, `${kept} of ${before.length}`);
    assert.deepEqual(after.slice(0, kept), before.slice(0, kept));
    assert.deepEqual(after.at(-1), {
      op: 'restore',
      detail: {
        snapshot: snapshotId,
        repaired: 'database disk image is malformed',
        auditLost: `only the first ${kept} entries could be read: database disk image is malformed`,
      },
    });
  });
});

describe('a restore of an intact store, as mutation testing probed it', function () {
  this.timeout(60_000);
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, dir, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  const snapshotFiles = (): string[] => fs.readdirSync(path.join(dir, 'snapshots')).sort();

  it('describes a snapshot by the size of its copy and the live entities it holds', async () => {
    await memory.memories.save('a', 'u', { content: 'one' });
    const [deleted] = await memory.memories.save('a', 'u', { content: 'two' });
    await memory.memories.delete(deleted.id);
    const snapshot = await memory.snapshot('sized');
    assert.equal(snapshot.bytes, fs.statSync(path.join(dir, 'snapshots', `${snapshot.id}.db`)).size);
    assert.ok(snapshot.bytes > 0);
    // The deleted memory is in the copy's history, not among its live entities.
    assert.equal(snapshot.entities, 1);
    assert.deepEqual(await memory.listSnapshots(), [snapshot]);
  });

  it('records which snapshot kept the store as it was, makes the restored entities searchable and invalidates cached vectors', async () => {
    await memory.memories.save('a', 'u', { content: 'the deployment runbook' });
    const snapshot = await memory.snapshot('with the runbook');
    const [later] = await memory.memories.save('a', 'u', { content: 'the incident review' });
    await memory.memories.delete((await memory.memories.list('a')).find((m) => m.id !== later.id)!.id);
    assert.equal((await memory.memories.search('a', undefined, 'deployment runbook', 5)).length, 0);
    const generation = generationOf(dir);
    const restored = await memory.restore(snapshot.id);
    assert.ok(restored.before);
    assert.deepEqual(auditOf(dir).at(-1), {
      op: 'restore',
      detail: { snapshot: snapshot.id, before: restored.before.id },
    });
    // The search index is rebuilt from the restored entities: the runbook is found again, the review is gone.
    const found = await memory.memories.search('a', undefined, 'deployment runbook', 5);
    assert.deepEqual(
      found.map((result) => result.entity.content),
      ['the deployment runbook'],
    );
    assert.equal((await memory.memories.search('a', undefined, 'incident review', 5)).length, 0);
    assert.equal(generationOf(dir), generation + 1);
  });

  it('refuses with STORE_BUSY, naming the snapshot, while another process holds the write lock, and keeps no copy', async () => {
    const snapshot = await memory.snapshot('held');
    await memory.memories.save('a', 'u', { content: 'written since' });
    await memory.close();
    memory = await Memory.open({ dir, busyTimeoutMs: 100 });
    const writer = new DatabaseSync(path.join(dir, STORE_FILE));
    try {
      writer.exec('BEGIN IMMEDIATE');
      const error = await rejectsWith(memory.restore(snapshot.id), 'STORE_BUSY');
      assert.equal(
        error.message,
        `Snapshot ${snapshot.id} was not restored: another process (a VS Code window, an MCP server, a CLI) was writing to the store while it was being kept as it was. Nothing was changed; retry, or close them first.`,
      );
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    assert.deepEqual(snapshotFiles(), [`${snapshot.id}.db`, `${snapshot.id}.json`]);
    assert.deepEqual(
      (await memory.memories.list('a')).map((entity) => entity.content),
      ['written since'],
    );
  });

  it('gives up with STORE_BUSY after three tries while another process commits during each, removing every copy it kept', async () => {
    const other = new DatabaseSync(path.join(dir, STORE_FILE));
    try {
      await memory.memories.save('a', 'u', { content: 'kept by the snapshot' });
      const snapshot = await memory.snapshot('contended');
      await memory.memories.save('a', 'u', { content: 'written since' });
      const snapshots = (memory as unknown as { snapshots: Snapshots }).snapshots;
      const create = snapshots.create.bind(snapshots);
      let copies = 0;
      snapshots.create = (label: string): SnapshotInfo => {
        const info = create(label);
        copies++;
        other.exec("INSERT INTO audit (time, op) VALUES ('2020-01-01', 'meanwhile')");
        return info;
      };
      const error = await rejectsWith(memory.restore(snapshot.id), 'STORE_BUSY');
      assert.equal(
        error.message,
        `Snapshot ${snapshot.id} was not restored: another process (a VS Code window, an MCP server, a CLI) was writing to the store while it was being kept as it was. Nothing was changed; retry, or close them first.`,
      );
      assert.equal(copies, 3);
      assert.deepEqual(snapshotFiles(), [`${snapshot.id}.db`, `${snapshot.id}.json`]);
      assert.deepEqual((await memory.memories.list('a')).map((entity) => entity.content).sort(), [
        'kept by the snapshot',
        'written since',
      ]);
    } finally {
      other.close();
    }
  });
});

/**
 * Raises the cell count of the root page of `table` in the closed store `file` by two, so two cells
 * point at offset 0: SQLite's quick_check lists them (and, for a table, the NOT NULL columns of the
 * rows that are not there) while the store still opens.
 */
function addPhantomCells(file: string, table: string): void {
  const db = new DatabaseSync(file, { readOnly: true });
  let offset: number;
  try {
    const root = Number(db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table)?.rootpage);
    const pageSize = Number(db.prepare('PRAGMA page_size').get()?.page_size);
    offset = (root - 1) * pageSize;
  } finally {
    db.close();
  }
  const bytes = fs.readFileSync(file);
  // A leaf page's header: type (1 byte), first freeblock (2), number of cells (2).
  bytes.writeUInt16BE(bytes.readUInt16BE(offset + 3) + 2, offset + 3);
  fs.writeFileSync(file, bytes);
}

/** The lines of SQLite's quick_check of `file`, through a connection of its own. */
function quickCheckLines(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db
      .prepare('PRAGMA quick_check')
      .all()
      .map((row) => String(row.quick_check));
  } finally {
    db.close();
  }
}

describe('a preview and a restore over a store in which SQLite finds problems', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let snapshot: SnapshotInfo;
  const inSnapshot = ['note 0', 'note 1', 'note 2'];
  beforeEach(async () => {
    dir = tempDir();
    file = path.join(dir, STORE_FILE);
    const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
    try {
      for (const content of inSnapshot) await memory.memories.save('a', 'u', { content });
      snapshot = await memory.snapshot('base');
      await memory.memories.save('a', 'u', { content: 'written after the snapshot' });
    } finally {
      await memory.close();
    }
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Restores the snapshot over the store and returns what the repair's audit entry says was wrong. */
  async function repairedBecause(): Promise<unknown> {
    const memory = await Memory.open({ dir });
    try {
      await memory.restore(snapshot.id);
      assert.deepEqual((await memory.memories.list('a')).map((entity) => entity.content).sort(), inSnapshot);
    } finally {
      await memory.close();
    }
    assert.deepEqual(quickCheckLines(file), ['ok']);
    const entry = auditOf(dir).at(-1);
    assert.equal(entry?.op, 'restore');
    return entry.detail.repaired;
  }

  it('refuses with STORE_BUSY, naming the snapshot, while another process holds the write lock as the damaged store is kept', async () => {
    // Damage SQLite can still copy past: the restore keeps the damaged store first.
    addPhantomCells(file, 'refs_cites');
    const memory = await Memory.open({ dir, busyTimeoutMs: 100 });
    const writer = new DatabaseSync(file);
    try {
      const damaged = fs.readFileSync(file);
      writer.exec('BEGIN IMMEDIATE');
      const error = await rejectsWith(memory.restore(snapshot.id), 'STORE_BUSY');
      assert.equal(
        error.message,
        `Snapshot ${snapshot.id} was not restored: another process (a VS Code window, an MCP server, a CLI) was writing to the store while it was being kept as it was. Nothing was changed; retry, or close them first.`,
      );
      assert.ok(fs.readFileSync(file).equals(damaged), 'the live file is as it was');
      assert.deepEqual(fs.readdirSync(path.join(dir, 'snapshots')).sort(), [
        `${snapshot.id}.db`,
        `${snapshot.id}.json`,
      ]);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
      await memory.close();
    }
  });

  it('records the one problem SQLite found as it said it', async () => {
    // An index no comparison reads: only the check sees it.
    addPhantomCells(file, 'refs_cites');
    const lines = quickCheckLines(file);
    assert.equal(lines.length, 1, lines.join(' | '));
    assert.equal(await repairedBecause(), `1 problem: ${lines[0]}`);
  });

  it("counts several problems and quotes the first, in the preview and in the repair's entry", async () => {
    // The entities' own table: the comparison cannot read it, so the preview says why.
    addPhantomCells(file, 'refs');
    const lines = quickCheckLines(file);
    assert.ok(lines.length > 1, lines.join(' | '));
    const expected = `${lines.length} problems, first: ${lines[0]}`;
    const memory = await Memory.open({ dir });
    try {
      const preview = await memory.restorePreview(snapshot.id);
      assert.equal(preview.liveDamage, expected);
      // Nothing of the live store can be compared: everything the snapshot holds counts as restored.
      const none = { total: 0, byType: {}, ids: [] };
      assert.deepEqual(
        { removed: preview.removed, changed: preview.changed, unchanged: preview.unchanged },
        { removed: none, changed: none, unchanged: 0 },
      );
      assert.equal(preview.restored.total, inSnapshot.length);
      assert.deepEqual(preview.restored.byType, { memory: inSnapshot.length });
      assert.equal(preview.restored.ids.length, inSnapshot.length);
    } finally {
      await memory.close();
    }
    assert.equal(await repairedBecause(), expected);
  });
});

describe('snapshots that are not what they should be, as mutation testing probed them', function () {
  this.timeout(60_000);
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, dir, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  it('refuses to compare with a snapshot missing a table, naming the snapshot and the table', async () => {
    await memory.memories.save('a', 'u', { content: 'kept' });
    const snapshot = await memory.snapshot('no objects');
    tamperFile(path.join(dir, 'snapshots', `${snapshot.id}.db`), 'DROP TABLE objects');
    const error = await rejectsWith(memory.restorePreview(snapshot.id), 'SNAPSHOT_INVALID');
    assert.equal(
      error.message,
      `Snapshot ${snapshot.id} cannot be read: no such table: snap.objects. The live store was not changed.`,
    );
  });

  it('refuses a malformed snapshot id by its name, and a snapshot copy that is a link, leaving the store alone', async () => {
    const malformed = await rejectsWith(memory.restore('../etc'), 'INVALID_ID');
    assert.match(malformed.message, /^The snapshot id "\.\.\/etc" contains/);
    await memory.memories.save('a', 'u', { content: 'in the snapshot' });
    const snapshot = await memory.snapshot('linked');
    await memory.memories.save('a', 'u', { content: 'written since' });
    const copy = path.join(dir, 'snapshots', `${snapshot.id}.db`);
    const elsewhere = path.join(dir, 'elsewhere.db');
    fs.renameSync(copy, elsewhere);
    fs.symlinkSync(elsewhere, copy);
    const linked = await rejectsWith(memory.restore(snapshot.id), 'SNAPSHOT_INVALID');
    assert.match(linked.message, /is a symbolic link/);
    assert.equal(await memory.memories.count('a'), 2);
  });

  it('does not list a manifest that is a link, even to a manifest with its copy', async () => {
    const snapshot = await memory.snapshot('real');
    const snapshots = path.join(dir, 'snapshots');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(outside);
    const linkedId = 'snap-linked-1';
    fs.writeFileSync(path.join(outside, `${linkedId}.json`), JSON.stringify({ ...snapshot, id: linkedId }));
    fs.copyFileSync(path.join(snapshots, `${snapshot.id}.db`), path.join(snapshots, `${linkedId}.db`));
    fs.symlinkSync(path.join(outside, `${linkedId}.json`), path.join(snapshots, `${linkedId}.json`));
    assert.deepEqual(
      (await memory.listSnapshots()).map((info) => info.id),
      [snapshot.id],
    );
  });

  it('names the snapshot a restore keeps by the restored label without the blanks around it', () => {
    const info = { id: 'snap-1', label: '', createdAt: '', entities: 0, bytes: 0 };
    assert.equal(beforeRestoreLabel({ ...info, label: '\t weekly \u2028' }), 'before restoring weekly');
    // Nothing but blanks and control characters: named by its id.
    assert.equal(beforeRestoreLabel({ ...info, label: '\n\r' }), 'before restoring snap-1');
  });
});

describe('a store that cannot be opened, as mutation testing probed it further', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  let snapshotId: string;
  beforeEach(async () => ({ dir, file, snapshotId } = await storeWithSnapshot()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("names the first problem SQLite's check lists in the repair's entry", async () => {
    addPhantomCells(file, 'refs_cites');
    const lines = quickCheckLines(file);
    assert.notDeepEqual(lines, ['ok']);
    tamperFile(file, 'PRAGMA user_version = 0');
    await restoreUnopenableStore(dir, snapshotId);
    assert.equal(auditOf(dir).at(-1)?.detail.repaired, lines[0]);
  });

  it('restores a snapshot without an audit log over a store whose log cannot be read, leaving only the repair in the log', async () => {
    tamperFile(path.join(dir, 'snapshots', `${snapshotId}.db`), 'DROP TABLE audit');
    tamperFile(file, 'DROP TABLE audit; PRAGMA user_version = 0');
    await restoreUnopenableStore(dir, snapshotId);
    assert.deepEqual(auditOf(dir), [
      {
        op: 'restore',
        detail: {
          snapshot: snapshotId,
          repaired: 'the store could not be opened',
          auditLost: 'only the first 0 entries could be read: no such table: audit',
        },
      },
    ]);
    const memory = await Memory.open({ dir });
    try {
      assert.deepEqual(
        (await memory.memories.list('a')).map((entity) => entity.content),
        ['in the snapshot'],
      );
    } finally {
      await memory.close();
    }
  });
});
