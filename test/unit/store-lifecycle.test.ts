import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { Memory } from '../../src/core/memory';
import { ownedTempPath } from '../../src/core/store/owned-files';
import { StoreClient } from '../../src/extension/store/client';
import { rejectsWith, tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const MCP = path.join(ROOT, 'dist', 'mcp.js');
// The extension's store thread, bundled as VS Code runs it.
const WORKER = path.join(ROOT, 'dist', 'worker.js');
const MINUTE = 60 * 1000;
const SNAPSHOTTER = path.join(__dirname, '..', 'fixtures', 'snapshotter.ts');

/**
 * Mounts a tmpfs of `size` at a new folder (root only); undefined, after
 * skipping the test with the reason, where that is not allowed.
 */
function mountTmpfs(context: Mocha.Context, options: string): string {
  const dir = tempDir('wm-mount-');
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  if (result.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`      (skipped: cannot mount a tmpfs here: ${(result.stderr || String(result.error)).trim()})`);
    context.skip();
  }
  return dir;
}

function unmount(dir: string | undefined): void {
  if (!dir) return;
  spawnSync('umount', ['-l', dir]);
  fs.rmSync(dir, { recursive: true, force: true });
}

function freeBytes(dir: string): number {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** Fills the file system holding `dir` until `leave` bytes (or fewer) are free. */
function fill(dir: string, leave = 0): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'a');
  try {
    for (let chunk = 64 * 1024; chunk >= 512; chunk /= 2) {
      try {
        while (freeBytes(dir) - chunk >= leave) fs.writeSync(fd, Buffer.alloc(chunk, 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  assert.ok(result.pid);
  return result.pid;
}

function ownedBy(base: string, kind: string, pid: number): string {
  return ownedTempPath(base, kind).replace(`.${process.pid}@`, `.${pid}@`);
}

describe('store file lifecycle', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (![CLI, MCP, WORKER].every((bundle) => fs.existsSync(bundle))) {
      execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
    }
  });
  beforeEach(() => (dir = tempDir('wm-lifecycle-')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('a file that is not a store', () => {
    it("refuses another program's SQLite database and leaves its bytes as they were, even for init", async () => {
      const file = path.join(dir, 'memory.db');
      const foreign = new DatabaseSync(file);
      foreign.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('theirs')");
      foreign.close();
      const before = fs.readFileSync(file);
      for (const options of [{}, { init: true }]) {
        const error = await rejectsWith(Memory.open({ dir, ...options }), 'STORE_INCOMPATIBLE');
        assert.match(error.message, /is not a Workspace Memory store/);
        assert.ok(error.message.includes(file), error.message);
        assert.match(error.message, /notes/, 'names what the file holds');
      }
      assert.deepEqual(fs.readFileSync(file), before, 'not one byte changed');
      assert.deepEqual(fs.readdirSync(dir), ['memory.db'], 'no log or index files left beside it');
    });

    it('refuses a database that claims our schema version but has none of our tables', async () => {
      const file = path.join(dir, 'memory.db');
      const foreign = new DatabaseSync(file);
      foreign.exec('PRAGMA user_version = 2; CREATE TABLE settings (key TEXT, value TEXT)');
      foreign.close();
      const before = fs.readFileSync(file);
      await rejectsWith(Memory.open({ dir }), 'STORE_INCOMPATIBLE');
      assert.deepEqual(fs.readFileSync(file), before);
    });

    it('refuses an empty store file as missing data, unless init is asked, which makes it a store', async () => {
      const file = path.join(dir, 'memory.db');
      fs.writeFileSync(file, '');
      const error = await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
      assert.match(error.message, /is empty \(0 bytes/);
      assert.ok(error.message.includes(file), error.message);
      assert.match(error.message, /workspace-memory init/, 'says what to do');
      assert.equal(fs.statSync(file).size, 0, 'still untouched');

      const memory = await Memory.open({ dir, init: true });
      try {
        await memory.memories.save('a', undefined, { content: 'a new start' });
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await memory.close();
      }
      // Once it is a store, it opens without init.
      await (await Memory.open({ dir })).close();
    });

    it('refuses a snapshot file that is not a whole database as SNAPSHOT_INVALID, naming the snapshot', async () => {
      const memory = await Memory.open({ dir });
      try {
        await memory.memories.saveMany(
          Array.from({ length: 50 }, (_, i) => ({
            agentId: 'a',
            input: { content: `kept ${i} ${'text '.repeat(200)}` },
          })),
        );
        const garbage = await memory.snapshot('replaced by text');
        fs.writeFileSync(path.join(dir, 'snapshots', `${garbage.id}.db`), 'not a database '.repeat(500));
        const damaged = await memory.snapshot('pages overwritten');
        const file = path.join(dir, 'snapshots', `${damaged.id}.db`);
        const bytes = fs.readFileSync(file);
        // Keep the header page; every page after it is noise.
        for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 131) & 0xff;
        fs.writeFileSync(file, bytes);
        for (const id of [garbage.id, damaged.id]) {
          const error = await rejectsWith(memory.restore(id), 'SNAPSHOT_INVALID');
          assert.ok(error.message.startsWith(`Snapshot ${id} cannot be`), error.message);
          assert.doesNotMatch(error.message, /The store at/, 'the live store is not the one at fault');
        }
        assert.equal(await memory.memories.count('a'), 50);
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await memory.close();
      }
    });

    it("gives the extension's store thread the same refusal, with its code", async () => {
      fs.writeFileSync(path.join(dir, 'memory.db'), '');
      const error = await rejectsWith(StoreClient.start(WORKER, { dir, options: {}, pollMs: 100 }), 'STORE_CORRUPT');
      assert.match(error.message, /is empty/);
      assert.equal(fs.statSync(path.join(dir, 'memory.db')).size, 0);
    });

    it('refuses a SQLite file with no tables where a store was (a store whose creation never finished)', async () => {
      const file = path.join(dir, 'memory.db');
      const empty = new DatabaseSync(file);
      empty.exec('PRAGMA journal_mode = WAL');
      empty.close();
      assert.ok(fs.statSync(file).size > 0, 'a header, no tables');
      await rejectsWith(Memory.open({ dir }), 'STORE_CORRUPT');
      await (await Memory.open({ dir, init: true })).close();
    });
  });

  describe('a new store', () => {
    it('is created whole by a plain open, and a leftover of a killed creation is removed', async () => {
      fs.mkdirSync(dir, { recursive: true });
      const base = path.join(dir, 'memory.db');
      const killed = ownedBy(base, 'creating', deadPid());
      const building = ownedTempPath(base, 'creating'); // this process's: "being built" right now
      fs.writeFileSync(killed, 'half a store');
      fs.writeFileSync(`${killed}-wal`, 'its log');
      fs.writeFileSync(building, 'in progress');
      const memory = await Memory.open({ dir });
      try {
        await memory.memories.save('a', undefined, { content: 'first' });
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await memory.close();
      }
      assert.deepEqual(fs.readdirSync(dir).sort(), [path.basename(building), 'memory.db'].sort());
    });
  });

  describe('a folder that cannot be written', () => {
    let readOnly: string | undefined;
    before(function () {
      readOnly = mountTmpfs(this, 'ro,size=1m');
    });
    after(() => unmount(readOnly));

    it('says the folder cannot be written, for a new store folder and for the store file', async () => {
      const nested = path.join(readOnly!, 'project', '.workspace-memory');
      const error = await rejectsWith(Memory.open({ dir: nested }), 'STORE_READONLY');
      assert.match(error.message, /cannot be written \(it is on a read-only file system\)/);
      assert.ok(error.message.includes(readOnly!), error.message);
      assert.doesNotMatch(error.message, /ENOENT/);

      const inPlace = await rejectsWith(Memory.open({ dir: readOnly! }), 'STORE_READONLY');
      assert.match(inPlace.message, /read-only file system/);
      assert.ok(inPlace.message.includes(path.join(readOnly!, 'memory.db')), inPlace.message);
    });
  });

  describe('a full disk', () => {
    let disk: string | undefined;
    beforeEach(function () {
      disk = mountTmpfs(this, 'size=8m');
    });
    afterEach(() => unmount(disk));

    it('fails a write with STORE_FULL naming the store, loses nothing, and recovers once there is room', async () => {
      const storeDir = path.join(disk!, 'store');
      const memory = await Memory.open({ dir: storeDir });
      try {
        const [kept] = await memory.memories.save('a', undefined, { content: 'written before the disk filled' });
        const filler = fill(disk!, 256 * 1024);
        // About 1.2 MB of content: more than the room left.
        const batch = Array.from({ length: 20 }, (_, i) => ({
          agentId: 'a',
          input: { content: `entry ${i} ${'lorem ipsum dolor '.repeat(3500)}` },
        }));
        const error = await rejectsWith(memory.memories.saveMany(batch), 'STORE_FULL');
        assert.ok(error.message.includes(path.join(storeDir, 'memory.db')), error.message);
        assert.match(error.message, /nothing already in the store was lost/);
        assert.match(error.message, /write-ahead log takes up to \d+ MB/, 'says how much room it needs');

        assert.equal(await memory.memories.count('a'), 1, 'none of the batch');
        assert.equal((await memory.get(kept.id))?.content, kept.content);
        assert.equal((await memory.verify()).valid, true);

        fs.rmSync(filler);
        await memory.memories.saveMany(batch);
        assert.equal(await memory.memories.count('a'), 21);
        const report = await memory.verify();
        assert.deepEqual(report.errors, []);
        assert.equal((await memory.memories.search('a', undefined, 'entry 7')).length > 0, true);
      } finally {
        await memory.close();
      }
    });

    it('fails a snapshot with STORE_FULL saying how much it needs, and leaves no partial copy', async () => {
      const storeDir = path.join(disk!, 'store');
      const memory = await Memory.open({ dir: storeDir });
      try {
        await memory.memories.saveMany(
          Array.from({ length: 8 }, (_, i) => ({
            agentId: 'a',
            input: { content: `${i} ${'filler text '.repeat(8000)}` },
          })),
        );
        const filler = fill(disk!, 64 * 1024);
        const error = await rejectsWith(memory.snapshot('on a full disk'), 'STORE_FULL');
        assert.match(error.message, /the snapshot was not made/);
        assert.match(error.message, /A snapshot needs about \d+(\.\d)? (KB|MB), the size of the store/);
        assert.deepEqual(fs.readdirSync(path.join(storeDir, 'snapshots')), [], 'no partial copy, no manifest');
        assert.deepEqual(await memory.listSnapshots(), []);
        assert.equal((await memory.stats()).partialSnapshots, 0);

        fs.rmSync(filler);
        const info = await memory.snapshot('after freeing space');
        assert.equal(info.entities, 8);
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await memory.close();
      }
    });

    it('reports STORE_FULL from the command line with its code and exit status 1', async () => {
      const storeDir = path.join(disk!, 'store');
      // Held open, so the command's connection finds the store's index file and fails at the write.
      const memory = await Memory.open({ dir: storeDir });
      try {
        fill(disk!);
        const result = spawnSync(process.execPath, [CLI, 'save', 'memory', '--dir', storeDir], {
          input: 'x'.repeat(200_000),
          encoding: 'utf8',
        });
        assert.equal(result.status, 1, result.stderr);
        assert.match(
          result.stderr,
          /^workspace-memory: The disk holding the store at .*memory\.db is full.*\[STORE_FULL\]\n$/,
        );
        assert.equal(await memory.memories.count('default'), 0);
      } finally {
        await memory.close();
      }
    });

    it('reports STORE_FULL to an MCP client and to the extension, and both keep serving', async () => {
      const storeDir = path.join(disk!, 'store');
      const memory = await Memory.open({ dir: storeDir });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [MCP, '--dir', storeDir],
        stderr: 'pipe',
      });
      const mcp = new Client({ name: 'store-lifecycle-test', version: '1.0.0' });
      await mcp.connect(transport);
      const worker = await StoreClient.start(WORKER, { dir: storeDir, options: {}, pollMs: 100 });
      const content = 'y'.repeat(200_000);
      try {
        const filler = fill(disk!);
        const result = (await mcp.callTool({ name: 'memory_save', arguments: { content } })) as CallToolResult;
        assert.equal(result.isError, true);
        const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
        assert.match(text, /The disk holding the store at .*memory\.db is full.*\[STORE_FULL\]$/s);

        await rejectsWith(worker.memory.memories.save('a', undefined, { content }), 'STORE_FULL');

        fs.rmSync(filler);
        const saved = (await mcp.callTool({ name: 'memory_save', arguments: { content } })) as CallToolResult;
        assert.ok(!saved.isError, JSON.stringify(saved.content));
        await worker.memory.memories.save('a', undefined, { content });
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await worker.close();
        await mcp.close();
        await memory.close();
      }
    });
  });

  describe('partial snapshots', () => {
    it('a snapshot killed while copying leaves a partial copy, which the next open removes', async function () {
      this.timeout(120_000);
      const child = spawn(process.execPath, ['--import', 'tsx', SNAPSHOTTER, dir, '20000'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      const snapshots = path.join(dir, 'snapshots');
      const partialNow = () => {
        try {
          return fs.readdirSync(snapshots).find((name) => name.endsWith('.partial'));
        } catch {
          return undefined;
        }
      };
      // Kill it as soon as its copy has some pages in it.
      const watcher = setInterval(() => {
        const partial = partialNow();
        if (partial && fileBytes(path.join(snapshots, partial)) > 0) child.kill('SIGKILL');
      }, 1);
      let signal: NodeJS.Signals | null;
      try {
        signal = await exited;
      } finally {
        clearInterval(watcher);
      }
      assert.equal(signal, 'SIGKILL', `the snapshot finished before it could be killed: ${stderr}`);
      const left = partialNow();
      assert.ok(left, 'the killed copy is still there');
      assert.ok(fileBytes(path.join(snapshots, left)) > 0);

      const memory = await Memory.open({ dir });
      try {
        assert.equal(partialNow(), undefined, 'removed on open: its writer is gone');
        const stats = await memory.stats();
        assert.equal(stats.partialSnapshots, 0);
        assert.equal(stats.snapshots, 0, 'the killed snapshot is not listed');
        assert.equal(stats.memories, 20000);
      } finally {
        await memory.close();
      }
    });

    it('counts them in stats while they exist, and removes the ones whose writer is gone on the next open or snapshot', async () => {
      let memory = await Memory.open({ dir });
      const snapshots = path.join(dir, 'snapshots');
      fs.mkdirSync(snapshots);
      const base = (name: string) => path.join(snapshots, `snap-${name}.db`);
      const killed = ownedBy(base('killed'), 'partial', deadPid());
      const live = ownedTempPath(base('live'), 'partial');
      const oldLegacy = `${base('old')}.partial`;
      const recentLegacy = `${base('recent')}.partial`;
      for (const [file, bytes] of [
        [killed, 1000],
        [live, 200],
        [oldLegacy, 30],
        [recentLegacy, 4],
      ] as const) {
        fs.writeFileSync(file, Buffer.alloc(bytes));
      }
      const anHourAgo = new Date(Date.now() - 60 * MINUTE);
      fs.utimesSync(oldLegacy, anHourAgo, anHourAgo);
      try {
        const stats = await memory.stats();
        assert.equal(stats.partialSnapshots, 4);
        assert.equal(stats.partialSnapshotBytes, 1234);
        assert.equal(stats.snapshots, 0, 'not snapshots');

        await memory.close();
        memory = await Memory.open({ dir });
        const left = fs.readdirSync(snapshots).sort();
        assert.deepEqual(left, [path.basename(live), path.basename(recentLegacy)].sort());
        assert.equal((await memory.stats()).partialSnapshots, 2);

        // Another killed one, then a snapshot: it goes, the snapshot is made.
        const killedAgain = ownedBy(base('again'), 'partial', deadPid());
        fs.writeFileSync(killedAgain, 'x');
        const info = await memory.snapshot('next');
        assert.equal(fs.existsSync(killedAgain), false);
        assert.deepEqual(
          (await memory.listSnapshots()).map((s) => s.id),
          [info.id],
        );
        assert.equal((await memory.stats()).partialSnapshots, 2, 'its own copy was renamed into place');
      } finally {
        await memory.close();
      }
    });
  });
});
