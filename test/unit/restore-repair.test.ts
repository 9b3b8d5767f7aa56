import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { isMemoryError } from '../../src/core/errors';
import { Memory, STORE_FILE } from '../../src/core/memory';
import { repairTempPath, restoreUnopenableStore } from '../../src/core/snapshots/rebuild';
import { auditOf, random, rejectsWith, tempDir } from './helpers';

/** Runs `sql` on the store's file through a connection of its own, as another tool would. */
function tamper(dir: string, sql: string): void {
  const settings: { readOnly: boolean; defensive: boolean } = { readOnly: false, defensive: false };
  const db = new DatabaseSync(path.join(dir, STORE_FILE), settings);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** SQLite's own full check of the store file, as `sqlite3 memory.db 'pragma integrity_check'` prints it. */
function integrity(dir: string): string {
  const db = new DatabaseSync(path.join(dir, STORE_FILE), { readOnly: true });
  try {
    return db
      .prepare('PRAGMA integrity_check')
      .all()
      .map((row) => String(row.integrity_check))
      .join('\n');
  } catch (error) {
    // A damaged schema stops the check itself.
    return String(error);
  } finally {
    db.close();
  }
}

/**
 * `count` bits flipped past the first page (the header and the start of the
 * schema), at positions chosen by `seed`: a disk fault in the tables' pages.
 */
function flipBits(file: string, seed: number, count: number): void {
  const bytes = fs.readFileSync(file);
  const rng = random(seed);
  for (let i = 0; i < count; i++) {
    const at = 4096 + Math.floor(rng() * (bytes.length - 4096));
    bytes[at] = bytes[at]! ^ (1 << Math.floor(rng() * 8));
  }
  fs.writeFileSync(file, bytes);
}

const ENTITIES = 300;

describe('snapshot restore as a repair', function () {
  this.timeout(120_000);
  let base: string;
  let snapshotId: string;
  const made: string[] = [];

  before(async () => {
    base = tempDir();
    const memory = await Memory.open({ dir: base, author: 'test', synchronous: 'normal' });
    try {
      await memory.memories.saveMany(
        Array.from({ length: ENTITIES }, (_, i) => ({
          agentId: 'a',
          input: { content: `memory ${i} about the deployment ${'x'.repeat(i * 5)}`, tags: ['t'] },
        })),
      );
      snapshotId = (await memory.snapshot('base')).id;
    } finally {
      await memory.close();
    }
  });
  after(() => {
    for (const dir of [base, ...made]) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A folder holding a copy of the store and its snapshot. */
  function copy(): string {
    const dir = tempDir();
    made.push(dir);
    fs.cpSync(base, dir, { recursive: true });
    return dir;
  }

  it('puts back dropped tables that hold no entities, and writes, searches and exports work again', async () => {
    for (const dropped of [['audit'], ['access'], ['vectors'], ['rag_files'], ['access', 'vectors', 'rag_files']]) {
      const dir = copy();
      tamper(dir, dropped.map((table) => `DROP TABLE ${table};`).join('\n'));
      const memory = await Memory.open({ dir });
      try {
        const report = await memory.verify();
        assert.deepEqual(
          report.errors.map((error) => [error.code, error.id]).sort(),
          dropped.map((table) => ['MISSING_TABLE', table]).sort(),
        );
        const restored = await memory.restore(snapshotId);
        assert.equal(restored.id, snapshotId);
        assert.deepEqual((await memory.verify()).errors, [], `after restoring with ${dropped.join(', ')} gone`);
        await memory.memories.save('a', undefined, { content: 'a note after the repair' });
        assert.equal((await memory.memories.search('a', undefined, 'note after the repair', 1)).length, 1);
        assert.equal((await memory.export()).entities.memories.length, ENTITIES + 1);
      } finally {
        await memory.close();
      }
      assert.equal(integrity(dir), 'ok');
    }
  });

  it('a write or read that needs a table dropped under it is STORE_CORRUPT naming the table and the repair', async () => {
    const dir = copy();
    const memory = await Memory.open({ dir });
    try {
      tamper(dir, 'DROP TABLE audit; DROP TABLE access;');
      const write = await rejectsWith(memory.memories.save('a', undefined, { content: 'lost?' }), 'STORE_CORRUPT');
      assert.match(write.message, /missing its audit table .*Rebuild the index/);
      const read = await rejectsWith(memory.memories.search('a', undefined, 'deployment', 3), 'STORE_CORRUPT');
      assert.match(read.message, /missing its access table .*Rebuild the index/);
      await memory.rebuildIndex();
      await memory.memories.save('a', undefined, { content: 'kept after the rebuild' });
      assert.equal((await memory.memories.search('a', undefined, 'kept after the rebuild', 1)).length, 1);
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      await memory.close();
    }
  });

  it('mends bit flips in the live store from an intact snapshot, or says STORE_CORRUPT with advice that works', async () => {
    const outcomes = { repaired: 0, refusedOnOpen: 0, damagedBefore: 0 };
    for (let seed = 1; seed <= 24; seed++) {
      const dir = copy();
      flipBits(path.join(dir, STORE_FILE), seed, 80);
      let memory: Memory;
      try {
        memory = await Memory.open({ dir });
      } catch (error) {
        // The flips hit the schema: nothing opens the file (see the report on opening damaged stores).
        assert.ok(isMemoryError(error, 'STORE_CORRUPT') || isMemoryError(error, 'STORE_INCOMPATIBLE'), String(error));
        outcomes.refusedOnOpen++;
        continue;
      }
      try {
        if (integrity(dir) !== 'ok') outcomes.damagedBefore++;
        const preview = await memory.restorePreview(snapshotId);
        if (preview.liveDamage !== undefined) assert.equal(preview.restored.total, ENTITIES);
        try {
          await memory.restore(snapshotId);
        } catch (error) {
          // Never the snapshot's fault: it is intact.
          assert.ok(isMemoryError(error, 'STORE_CORRUPT'), `seed ${seed}: ${String(error)}`);
          assert.match(error.message, /workspace-memory init/);
          continue;
        }
        assert.equal(integrity(dir), 'ok', `seed ${seed}`);
        const report = await memory.verify();
        assert.deepEqual(report.errors, [], `seed ${seed}`);
        assert.equal(report.totalEntities, ENTITIES);
        // The store works again: it takes a write, and finds it.
        await memory.memories.save('a', undefined, { content: `written after seed ${seed}` });
        assert.equal((await memory.memories.search('a', undefined, `written after seed ${seed}`, 1)).length, 1);
        outcomes.repaired++;
      } finally {
        await memory.close();
      }
      assert.equal(integrity(dir), 'ok', `seed ${seed} after closing`);
      const restore = auditOf(dir).find((entry) => entry.op === 'restore');
      assert.equal(restore?.detail.snapshot, snapshotId);
    }
    // Most seeds damage pages the store could still be opened with; all of those were mended.
    assert.ok(outcomes.damagedBefore >= 5, JSON.stringify(outcomes));
    assert.ok(outcomes.repaired >= outcomes.damagedBefore, JSON.stringify(outcomes));
  });

  /** A copy whose pages are damaged, by the first seed whose flips leave a store that still opens. */
  async function damagedCopy(): Promise<string> {
    for (let seed = 1; ; seed++) {
      const dir = copy();
      flipBits(path.join(dir, STORE_FILE), seed, 80);
      try {
        await (await Memory.open({ dir })).close();
        if (integrity(dir) !== 'ok') return dir;
      } catch {
        // The schema was hit: try the next seed.
      }
    }
  }

  it('another connection open on the store sees the mended store, and keeps working with it', async () => {
    const dir = await damagedCopy();
    const first = await Memory.open({ dir });
    const second = await Memory.open({ dir });
    try {
      assert.notEqual(integrity(dir), 'ok');
      await first.restore(snapshotId);
      const report = await second.verify();
      assert.deepEqual(report.errors, []);
      assert.equal(report.totalEntities, ENTITIES);
      await second.memories.save('a', undefined, { content: 'from the second connection' });
      assert.equal((await first.memories.search('a', undefined, 'from the second connection', 1)).length, 1);
    } finally {
      await first.close();
      await second.close();
    }
    assert.equal(integrity(dir), 'ok');
  });

  it('refuses with STORE_BUSY while another connection writes, changing nothing; a retry then mends it', async () => {
    const dir = await damagedCopy();
    const file = path.join(dir, STORE_FILE);
    const memory = await Memory.open({ dir, busyTimeoutMs: 300 });
    const writer = new DatabaseSync(file);
    let kept: string | undefined;
    try {
      writer.exec('BEGIN IMMEDIATE');
      writer.exec("INSERT INTO audit (time, op) VALUES ('2020-01-01', 'held')");
      const before = fs.readFileSync(file);
      const error = await rejectsWith(memory.restore(snapshotId), 'STORE_BUSY');
      assert.match(error.message, /another process .* Nothing was changed/);
      assert.ok(fs.readFileSync(file).equals(before), 'the live file is as it was');
      writer.exec('ROLLBACK');
      kept = (await memory.restore(snapshotId)).before?.id;
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      writer.close();
      await memory.close();
    }
    assert.equal(integrity(dir), 'ok');
    // No file of the repair is left beside the snapshot and the damaged store the retry kept.
    assert.ok(kept, 'the damaged store was kept as a snapshot');
    assert.deepEqual(
      fs.readdirSync(path.join(dir, 'snapshots')).sort(),
      [`${snapshotId}.db`, `${snapshotId}.json`, `${kept}.db`, `${kept}.json`].sort(),
    );
  });

  it('restores over a store that cannot be opened at all (damaged schema, cut short), keeping what of its log reads', async () => {
    const cases: [string, (file: string) => void][] = [
      ['cut short', (file) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 3))],
      // Random bytes: the header's schema cookie is garbage, which writing over the file could not pass.
      [
        'random bytes',
        (file) => fs.writeFileSync(file, Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919) % 251))),
      ],
      // SQLite would open it read-only and let verify call it valid: refused as a damaged header instead.
      [
        'write version flipped (header byte 18)',
        (file) => {
          const bytes = fs.readFileSync(file);
          bytes[18] = bytes[18]! ^ 0xff;
          fs.writeFileSync(file, bytes);
        },
      ],
    ];
    // Flips that hit the schema: the store no longer opens.
    for (let seed = 1, found = 0; found < 3 && seed < 200; seed++) {
      const dir = copy();
      flipBits(path.join(dir, STORE_FILE), seed, 80);
      try {
        await (await Memory.open({ dir })).close();
      } catch (error) {
        if (!isMemoryError(error, 'STORE_CORRUPT')) continue;
        found++;
        cases.push([`flips of seed ${seed}`, (file) => flipBits(file, seed, 160)]);
      }
    }
    assert.equal(cases.length, 6, 'three seeds damage the schema');
    for (const [name, damage] of cases) {
      const dir = copy();
      damage(path.join(dir, STORE_FILE));
      const damaged = fs.readFileSync(path.join(dir, STORE_FILE));
      await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
      const info = await restoreUnopenableStore(dir, snapshotId);
      // The damaged original is kept aside, whole, never emptied.
      const aside = fs.readdirSync(dir).filter((entry) => /^memory\.db\.unreadable-[^.]+Z$/.test(entry));
      assert.equal(aside.length, 1, `${name}: ${fs.readdirSync(dir).join(', ')}`);
      assert.ok(fs.readFileSync(path.join(dir, aside[0]!)).equals(damaged), name);
      assert.equal(info.id, snapshotId);
      assert.equal(integrity(dir), 'ok', name);
      const memory = await Memory.open({ dir });
      try {
        const report = await memory.verify();
        assert.deepEqual(report.errors, [], name);
        assert.equal(report.totalEntities, ENTITIES);
        await memory.memories.save('a', undefined, { content: 'after the repair' });
        assert.equal((await memory.memories.search('a', undefined, 'after the repair', 1)).length, 1);
      } finally {
        await memory.close();
      }
      assert.ok(
        auditOf(dir).some((entry) => entry.op === 'restore' && typeof entry.detail.repaired === 'string'),
        name,
      );
    }
  });

  it('removes the new stores killed repairs left while the store cannot be opened, keeping a running one', async () => {
    const dir = copy();
    const snapshots = path.join(dir, 'snapshots');
    fs.truncateSync(path.join(dir, STORE_FILE), 1024);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const killed = [1, 2, 3].map(() => repairTempPath(snapshots, snapshotId).replace(`.${process.pid}@`, `.${dead}@`));
    for (const file of killed) fs.writeFileSync(file, Buffer.alloc(4096));
    fs.writeFileSync(`${killed[0]}-journal`, Buffer.alloc(16));
    // Another repair of this process, still building: not a leftover.
    const running = repairTempPath(snapshots, snapshotId);
    fs.writeFileSync(running, Buffer.alloc(16));
    await restoreUnopenableStore(dir, snapshotId);
    assert.deepEqual(
      fs.readdirSync(snapshots).sort(),
      [`${snapshotId}.db`, `${snapshotId}.json`, path.basename(running)].sort(),
    );
  });

  it('refuses a damaged snapshot for a store that cannot be opened, leaving the store file as it was', async () => {
    const dir = copy();
    const file = path.join(dir, STORE_FILE);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 3));
    const before = fs.readFileSync(file);
    tamperSnapshot(path.join(dir, 'snapshots', `${snapshotId}.db`));
    await rejectsWith(restoreUnopenableStore(dir, snapshotId), 'SNAPSHOT_INVALID');
    assert.ok(fs.readFileSync(file).equals(before));
    await rejectsWith(restoreUnopenableStore(dir, 'snap-none'), 'SNAPSHOT_NOT_FOUND');
    assert.deepEqual(fs.readdirSync(path.join(dir, 'snapshots')).sort(), [`${snapshotId}.db`, `${snapshotId}.json`]);
  });
});

/** Changes one stored object of a snapshot, so its hash no longer matches. */
function tamperSnapshot(file: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec(`UPDATE objects SET data = replace(data, 'deployment', 'deploymant') WHERE seq = 1`);
  } finally {
    db.close();
  }
}
