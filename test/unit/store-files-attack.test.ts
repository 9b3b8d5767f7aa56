import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Memory } from '../../src/core/memory';
import { assertSnapshotFileConfined } from '../../src/core/paths';
import { translateSqliteError } from '../../src/core/store/database';
import { createExclusiveSync, ownedTempPath, replaceFileSync } from '../../src/core/store/owned-files';
import { rejectsWith, tempDir } from './helpers';

/**
 * The store's files in its folder, against what a cloned repository or a
 * shared folder may hold: links planted where the store writes, snapshot
 * files that lead elsewhere, files that look like a store and are not, and a
 * disk with no room left even to open the store.
 */

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Damages one object's content behind the store's back, as the outside tester did. */
function damageObject(storeFile: string): void {
  const db = new DatabaseSync(storeFile);
  try {
    db.exec("UPDATE objects SET data = replace(data, 'deployment', 'DEPLOY') WHERE seq = 1");
  } finally {
    db.close();
  }
}

async function storeWithSnapshot(dir: string): Promise<string> {
  const memory = await Memory.open({ dir });
  try {
    for (let i = 0; i < 5; i++) await memory.memories.save('a', undefined, { content: `deployment note ${i}` });
    return (await memory.snapshot('before')).id;
  } finally {
    await memory.close();
  }
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  assert.ok(result.pid);
  return result.pid;
}

describe('store files under attack', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = tempDir('wm-attack-')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('a link planted where the store writes', () => {
    for (const target of ['memory.db', 'snapshot'] as const) {
      it(`verify replaces a damage-marker link to ${target === 'memory.db' ? 'the store file' : 'a snapshot'} instead of writing through it`, async () => {
        const id = await storeWithSnapshot(dir);
        const storeFile = path.join(dir, 'memory.db');
        damageObject(storeFile);
        const victim = target === 'memory.db' ? storeFile : path.join(dir, 'snapshots', `${id}.db`);
        const before = fs.readFileSync(victim);
        const marker = path.join(dir, 'memory.db.damaged');
        fs.symlinkSync(path.relative(dir, victim), marker);

        const memory = await Memory.open({ dir });
        try {
          assert.equal((await memory.verify()).valid, false);
          assert.deepEqual(fs.readFileSync(victim), before, `${target} is untouched`);
          assert.equal(fs.lstatSync(marker).isFile(), true, 'the link was replaced by the marker');
          assert.match(fs.readFileSync(marker, 'utf8'), /does not match its content/);
          // The marker works as a marker: writes are refused, reads go on.
          await rejectsWith(memory.memories.save('a', undefined, { content: 'more' }), 'STORE_CORRUPT');
          assert.equal(await memory.memories.count('a'), 5);
        } finally {
          await memory.close();
        }
        assert.deepEqual(
          fs.readdirSync(dir).filter((name) => name.includes('replacing')),
          [],
          'no temporary file left',
        );
      });
    }

    it('creates temporary files only where nothing is, a link included, and replaces rather than follows', () => {
      const outside = path.join(dir, 'outside.txt');
      fs.writeFileSync(outside, 'keep');
      const link = path.join(dir, 'temp');
      fs.symlinkSync(outside, link);
      assert.throws(() => createExclusiveSync(link), { code: 'EEXIST' });
      const dangling = path.join(dir, 'dangling');
      fs.symlinkSync(path.join(dir, 'would-be-created'), dangling);
      assert.throws(() => createExclusiveSync(dangling), { code: 'EEXIST' });
      assert.equal(fs.existsSync(path.join(dir, 'would-be-created')), false);

      replaceFileSync(link, 'new');
      assert.equal(fs.readFileSync(outside, 'utf8'), 'keep');
      assert.equal(fs.lstatSync(link).isFile(), true);
      assert.equal(fs.readFileSync(link, 'utf8'), 'new');
    });

    it('removes a damage-marker temporary file left by a killed verify on the next open', async () => {
      await (await Memory.open({ dir })).close();
      const killed = ownedTempPath(path.join(dir, 'memory.db.damaged'), 'replacing').replace(
        `.${process.pid}@`,
        `.${deadPid()}@`,
      );
      fs.writeFileSync(killed, '{');
      await (await Memory.open({ dir })).close();
      assert.equal(fs.existsSync(killed), false);
    });
  });

  describe('snapshot files that are not the store’s own', () => {
    let snapshots: string;
    let id: string;
    beforeEach(async () => {
      id = await storeWithSnapshot(dir);
      snapshots = path.join(dir, 'snapshots');
    });

    it('passes a snapshot the store wrote, and a missing one (the caller reports it)', () => {
      assertSnapshotFileConfined(snapshots, path.join(snapshots, `${id}.db`));
      assertSnapshotFileConfined(snapshots, path.join(snapshots, `${id}.json`));
      assertSnapshotFileConfined(snapshots, path.join(snapshots, 'snap-none.db'));
    });

    it("refuses a snapshot that is a link to another store's file, or to a file inside the folder", async () => {
      const other = tempDir('wm-attack-other-');
      try {
        await (await Memory.open({ dir: other })).close();
        const file = path.join(snapshots, `${id}.db`);
        fs.rmSync(file);
        fs.symlinkSync(path.join(other, 'memory.db'), file);
        assert.throws(
          () => assertSnapshotFileConfined(snapshots, file),
          (error: Error & { code?: string }) => {
            assert.equal(error.code, 'SNAPSHOT_INVALID');
            assert.match(error.message, /symbolic link/);
            return true;
          },
        );
        fs.rmSync(file);
        // Even inside the store's folder: a link to the live store would restore it onto itself.
        fs.symlinkSync('../memory.db', file);
        assert.throws(() => assertSnapshotFileConfined(snapshots, file), { code: 'SNAPSHOT_INVALID' });
        const manifest = path.join(snapshots, `${id}.json`);
        fs.renameSync(manifest, path.join(other, 'manifest.json'));
        fs.symlinkSync(path.join(other, 'manifest.json'), manifest);
        assert.throws(() => assertSnapshotFileConfined(snapshots, manifest), { code: 'SNAPSHOT_INVALID' });
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    });

    it('refuses a snapshot with a linked journal, and one that is a folder', () => {
      const file = path.join(snapshots, `${id}.db`);
      fs.symlinkSync(path.join(dir, 'memory.db'), `${file}-journal`);
      assert.throws(() => assertSnapshotFileConfined(snapshots, file), /linked journal file/);
      fs.rmSync(`${file}-journal`);
      fs.rmSync(file);
      fs.mkdirSync(file);
      assert.throws(() => assertSnapshotFileConfined(snapshots, file), /not a regular file/);
    });
  });

  describe('killed snapshots', () => {
    it('counts and removes the journal a killed VACUUM INTO leaves beside its partial copy', async () => {
      let memory = await Memory.open({ dir });
      const snapshots = path.join(dir, 'snapshots');
      fs.mkdirSync(snapshots);
      const partial = ownedTempPath(path.join(snapshots, 'snap-killed.db'), 'partial').replace(
        `.${process.pid}@`,
        `.${deadPid()}@`,
      );
      fs.writeFileSync(partial, Buffer.alloc(100));
      fs.writeFileSync(`${partial}-journal`, Buffer.alloc(20));
      // A journal alone (its copy already gone) is a leftover too.
      const lone = ownedTempPath(path.join(snapshots, 'snap-lone.db'), 'partial').replace(
        `.${process.pid}@`,
        `.${deadPid()}@`,
      );
      fs.writeFileSync(`${lone}-journal`, Buffer.alloc(3));
      try {
        const stats = await memory.stats();
        assert.equal(stats.partialSnapshots, 3);
        assert.equal(stats.partialSnapshotBytes, 123);
        await memory.close();
        memory = await Memory.open({ dir });
        assert.deepEqual(fs.readdirSync(snapshots), []);
        assert.equal((await memory.stats()).partialSnapshots, 0);
      } finally {
        await memory.close();
      }
    });

    it('writes the manifest before the copy, and removes a manifest whose copy never arrived', async () => {
      const memory = await Memory.open({ dir });
      try {
        const info = await memory.snapshot('kept');
        const snapshots = path.join(dir, 'snapshots');
        // What a kill between the manifest and the copy leaves: a manifest alone, an hour old.
        const orphan = path.join(snapshots, 'snap-killed-000000.json');
        fs.writeFileSync(orphan, JSON.stringify({ ...info, id: 'snap-killed-000000' }));
        const hourAgo = new Date(Date.now() - 3_600_000);
        fs.utimesSync(orphan, hourAgo, hourAgo);
        // One being written right now is left alone.
        const fresh = path.join(snapshots, 'snap-writing-000000.json');
        fs.writeFileSync(fresh, JSON.stringify({ ...info, id: 'snap-writing-000000' }));
        assert.deepEqual(
          (await memory.listSnapshots()).map((snapshot) => snapshot.id),
          [info.id],
        );
        await memory.snapshot('next');
        assert.ok(!fs.existsSync(orphan), 'the orphaned manifest is removed');
        assert.ok(fs.existsSync(fresh), 'a manifest being written now is kept');
      } finally {
        await memory.close();
      }
    });
  });

  describe('files that look like a store and are not', () => {
    const foreign = (file: string, userVersion: number) => {
      const db = new DatabaseSync(file);
      db.exec('CREATE TABLE objects(x); CREATE TABLE commits(y); CREATE TABLE refs(z);');
      db.exec(`PRAGMA user_version = ${userVersion}`);
      db.close();
    };

    for (const version of [0, 3]) {
      it(`refuses another program's tables named objects, commits and refs (user_version ${version}), untouched and with no marker`, async () => {
        const file = path.join(dir, 'memory.db');
        foreign(file, version);
        const before = fs.readFileSync(file);
        const error = await rejectsWith(Memory.open({ dir }), 'STORE_INCOMPATIBLE');
        assert.match(error.message, /another program's SQLite database/);
        await rejectsWith(Memory.open({ dir, init: true }), 'STORE_INCOMPATIBLE');
        assert.deepEqual(fs.readFileSync(file), before);
        assert.deepEqual(fs.readdirSync(dir), ['memory.db'], 'nothing written beside it');
      });
    }

    it('refuses views named like our tables', async () => {
      const file = path.join(dir, 'memory.db');
      const db = new DatabaseSync(file);
      db.exec(`CREATE VIEW objects AS SELECT 1 AS seq, 2 AS hash, 3 AS data;
        CREATE TABLE commits(seq, hash, entity_id, parent_seq, object_seq, time, author, message, op);
        CREATE TABLE refs(id, type, agent_id, head_seq, object_seq, deleted, created_at, updated_at);`);
      db.close();
      await rejectsWith(Memory.open({ dir }), 'STORE_INCOMPATIBLE');
    });

    it('leaves alone another program’s file with a single table named like ours', async () => {
      const file = path.join(dir, 'memory.db');
      const db = new DatabaseSync(file);
      db.exec(
        "CREATE TABLE objects(seq INTEGER PRIMARY KEY, hash, data); INSERT INTO objects VALUES (1, 'precious', 'd');",
      );
      db.close();
      const before = fs.readFileSync(file);
      await rejectsWith(Memory.open({ dir }), 'STORE_INCOMPATIBLE');
      assert.deepEqual(fs.readFileSync(file), before);
    });

    it('says a genuine store that lost a history table is damaged (STORE_CORRUPT naming it), not a foreign file', async () => {
      await storeWithSnapshot(dir);
      const db = new DatabaseSync(path.join(dir, 'memory.db'));
      db.exec('DROP TABLE commits');
      db.close();
      const error = await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
      assert.match(error.message, /commits/);
      assert.match(error.message, /snapshot restore/);
    });

    it('refuses a genuine store whose user_version was reset to 0 as STORE_CORRUPT with a way back, leaving it as it was', async () => {
      await storeWithSnapshot(dir);
      const file = path.join(dir, 'memory.db');
      const db = new DatabaseSync(file);
      db.exec('PRAGMA user_version = 0');
      db.close();
      const before = fs.readFileSync(file);
      const error = await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
      assert.match(error.message, /layout version was reset to 0/);
      assert.match(error.message, /PRAGMA user_version = \d/);
      assert.deepEqual(fs.readFileSync(file), before);

      // The way back it gives works.
      const fix = new DatabaseSync(file);
      fix.exec(/PRAGMA user_version = \d+/.exec(error.message)![0]);
      fix.close();
      const memory = await Memory.open({ dir });
      try {
        assert.equal(await memory.memories.count('a'), 5);
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await memory.close();
      }
    });

    it('says a folder named memory.db is a folder, not a permissions problem', async () => {
      fs.mkdirSync(path.join(dir, 'memory.db'));
      const error = await rejectsWith(Memory.open({ dir }), 'INVALID_INPUT');
      assert.match(error.message, /memory\.db is a folder, not a store file/);
    });

    it('gives an I/O error on a disk with room a code, never the bare "disk I/O error"', () => {
      const ioerr = Object.assign(new Error('disk I/O error'), { errcode: 10 | (2 << 8) });
      const translated = translateSqliteError(ioerr, path.join(dir, 'memory.db')) as Error & { code?: string };
      assert.equal(translated.code, 'STORE_CORRUPT');
      assert.match(translated.message, /I\/O error/);
    });
  });

  describe('a disk that is already full when the store is opened', () => {
    let disk: string | undefined;
    beforeEach(function () {
      disk = tempDir('wm-attack-full-');
      const result = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', disk], { encoding: 'utf8' });
      if (result.status !== 0) {
        fs.rmSync(disk, { recursive: true, force: true });
        disk = undefined;
        console.log(`      (skipped: cannot mount a tmpfs here: ${(result.stderr || String(result.error)).trim()})`);
        this.skip();
      }
    });
    afterEach(() => {
      if (!disk) return;
      spawnSync('umount', ['-l', disk]);
      fs.rmSync(disk, { recursive: true, force: true });
    });

    /** Fills the disk to its last byte. */
    const fill = (): string => {
      const filler = path.join(disk!, 'filler');
      const fd = fs.openSync(filler, 'a');
      try {
        for (let chunk = 64 * 1024; chunk >= 512; chunk /= 2) {
          try {
            for (;;) fs.writeSync(fd, Buffer.alloc(chunk, 1));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        fs.closeSync(fd);
      }
      return filler;
    };

    it('still reads, fails writes with STORE_FULL, and writes again once there is room', async () => {
      const storeDir = path.join(disk!, 's');
      await storeWithSnapshot(storeDir);
      const filler = fill();

      const memory = await Memory.open({ dir: storeDir });
      try {
        assert.equal(await memory.memories.count('a'), 5);
        assert.equal((await memory.memories.search('a', undefined, 'deployment')).length > 0, true);
        assert.equal((await memory.stats()).memories, 5);
        assert.equal((await memory.verify()).valid, true);
        const error = await rejectsWith(memory.memories.save('a', undefined, { content: 'more' }), 'STORE_FULL');
        assert.match(error.message, /is full/);
        assert.doesNotMatch(error.message, /permission/);

        // The same instance (a long-lived server) writes again once there is room.
        fs.rmSync(filler);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await memory.memories.save('a', undefined, { content: 'saved by the instance opened on a full disk' });
        assert.equal(await memory.memories.count('a'), 6);
      } finally {
        await memory.close();
      }

      const again = await Memory.open({ dir: storeDir });
      try {
        await again.memories.save('a', undefined, { content: 'after the disk was freed' });
        assert.equal(await again.memories.count('a'), 7);
        assert.equal((await again.verify()).valid, true);
      } finally {
        await again.close();
      }
    });

    it('says STORE_FULL (not "disk I/O error") where the write-ahead log must be read first', async () => {
      const storeDir = path.join(disk!, 's');
      await storeWithSnapshot(storeDir);
      // A process killed with commits still in the write-ahead log, and the
      // log's index gone with it: opening must read the log, which needs room.
      const file = path.join(storeDir, 'memory.db');
      const writer = spawnSync(
        process.execPath,
        [
          '-e',
          `const db = new (require('node:sqlite').DatabaseSync)(${JSON.stringify(file)});
           db.exec('PRAGMA wal_autocheckpoint = 0');
           db.exec("UPDATE refs SET updated_at = updated_at || ' '");
           process.kill(process.pid, 'SIGKILL');`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(writer.signal, 'SIGKILL', writer.stderr);
      assert.ok(fs.statSync(`${file}-wal`).size > 0);
      fs.rmSync(`${file}-shm`);
      const filler = fill();
      const error = await rejectsWith(Memory.open({ dir: storeDir }), 'STORE_FULL');
      assert.match(error.message, /is full/);
      assert.doesNotMatch(error.message, /disk I\/O error/);
      fs.rmSync(filler);
      const memory = await Memory.open({ dir: storeDir });
      try {
        assert.equal(await memory.memories.count('a'), 5, 'nothing lost');
      } finally {
        await memory.close();
      }
    });

    it('reports STORE_FULL from the command line, and still answers reads', function () {
      if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
      const storeDir = path.join(disk!, 's');
      execFileSync(process.execPath, [CLI, 'init', '--dir', storeDir]);
      execFileSync(process.execPath, [CLI, 'save', 'memory', '--content', 'deployment steps', '--dir', storeDir]);
      fill();
      const stats = spawnSync(process.execPath, [CLI, 'stats', '--dir', storeDir], { encoding: 'utf8' });
      assert.equal(stats.status, 0, stats.stderr);
      assert.match(stats.stdout, /memories\s+1/);
      const save = spawnSync(process.execPath, [CLI, 'save', 'memory', '--content', 'x', '--dir', storeDir], {
        encoding: 'utf8',
      });
      assert.equal(save.status, 1);
      assert.match(save.stderr, /\[STORE_FULL\]/);
      assert.doesNotMatch(save.stderr, /disk I\/O error/);
    });
  });
});
