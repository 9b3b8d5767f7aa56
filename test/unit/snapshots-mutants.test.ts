import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { isMemoryError, MemoryError } from '../../src/core/errors';
import { Memory, STORE_FILE } from '../../src/core/memory';
import { snapshotFault } from '../../src/core/snapshots/faults';
import { assertLabel, listSnapshots, type SnapshotInfo } from '../../src/core/snapshots/manifests';
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
