import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { writeFileAtomicSync } from '../../src/core/atomic-file';
import { MemoryError } from '../../src/core/errors';
import type { Memory } from '../../src/core/memory';
import { workerMethods } from '../../src/extension/store/methods';
import { writeTextFile } from '../../src/server/cli/files';
import { openTemp, rejectsWith, tempDir } from './helpers';

/**
 * Tester's report F: `export --out` on a full disk replaced a good export
 * with a truncated one and called it INVALID_INPUT. An export is written
 * beside the file and renamed over it, so a failure leaves the old file
 * whole, and a full disk is STORE_FULL: for the CLI and for the extension.
 */

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const GOOD = `${JSON.stringify({ version: 1, entities: { memory: [] } }, null, 2)}\n`;

/** Everything in `folder` but the names given: a temporary file left behind shows here. */
function leftovers(folder: string, ...expected: string[]): string[] {
  return fs.readdirSync(folder).filter((name) => !expected.includes(name));
}

describe('exports are written whole or not at all', function () {
  this.timeout(60_000);
  before(function () {
    if (process.platform === 'win32') this.skip();
  });

  describe('on any disk', () => {
    let dir: string;
    beforeEach(() => (dir = tempDir('wm-export-atomic-')));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('replaces a previous file, keeping its permission bits, and leaves nothing beside it', () => {
      const file = path.join(dir, 'export.json');
      fs.writeFileSync(file, 'old');
      fs.chmodSync(file, 0o640);
      writeTextFile(file, GOOD);
      assert.equal(fs.readFileSync(file, 'utf8'), GOOD);
      assert.equal(fs.statSync(file).mode & 0o777, 0o640);
      assert.deepEqual(leftovers(dir, 'export.json'), []);
    });

    it('creates a new file, even under a name near the length limit', () => {
      const file = path.join(dir, `${'e'.repeat(250)}.json`);
      writeTextFile(file, GOOD);
      assert.equal(fs.readFileSync(file, 'utf8'), GOOD);
      assert.deepEqual(leftovers(dir, path.basename(file)), []);
    });

    it('a missing folder is still INVALID_INPUT, naming the folder', () => {
      assert.throws(
        () => writeTextFile(path.join(dir, 'missing', 'x.json'), GOOD),
        (error: unknown) =>
          error instanceof MemoryError &&
          error.code === 'INVALID_INPUT' &&
          /folder .*missing does not exist/.test(error.message),
      );
    });

    it('the extension follows a link it was given, keeping the link and replacing its target', async () => {
      const { memory, cleanup } = await openTemp();
      try {
        await memory.memories.save('a', undefined, { content: 'kept' });
        const target = path.join(dir, 'target.json');
        const link = path.join(dir, 'link.json');
        fs.writeFileSync(target, 'old');
        fs.symlinkSync(target, link);
        const result = await workerMethods(memory).exportTo(link);
        assert.equal(result.entities, 1);
        assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is kept');
        assert.match(fs.readFileSync(target, 'utf8'), /"kept"/);
        assert.deepEqual(leftovers(dir, 'target.json', 'link.json'), []);
      } finally {
        await cleanup();
      }
    });
  });

  /**
   * A real full disk: a 2 MB tmpfs, which needs root (or CAP_SYS_ADMIN).
   * Elsewhere these tests say why they are skipped.
   */
  describe('on a full disk', () => {
    const mount = tempDir('wm-export-full-');
    let mounted = false;
    let store: { memory: Memory; dir: string; cleanup: () => Promise<void> };

    before(async function () {
      const result = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mount], { encoding: 'utf8' });
      if (result.status !== 0) {
        console.log(
          `      (skipped: cannot mount a small tmpfs here: ${(result.stderr || String(result.error)).trim()})`,
        );
        this.skip();
      }
      mounted = true;
      store = await openTemp();
      // About 300 KB of export: more than the room left below.
      for (let i = 0; i < 3; i++) await store.memory.memories.save('a', undefined, { content: `${i}`.repeat(100_000) });
    });

    after(async () => {
      await store?.cleanup();
      if (mounted) spawnSync('umount', [mount]);
      fs.rmSync(mount, { recursive: true, force: true });
    });

    /** The good export in place, and the rest of the disk filled but for about 40 KB. */
    beforeEach(() => {
      for (const name of fs.readdirSync(mount)) fs.rmSync(path.join(mount, name), { force: true });
      fs.writeFileSync(path.join(mount, 'good.json'), GOOD);
      const stats = fs.statfsSync(mount);
      const free = Number(stats.bavail) * Number(stats.bsize);
      fs.writeFileSync(path.join(mount, 'filler'), Buffer.alloc(free - 40 * 1024, 1));
    });

    function assertUntouched(): void {
      assert.equal(fs.readFileSync(path.join(mount, 'good.json'), 'utf8'), GOOD, 'the previous export is whole');
      assert.deepEqual(leftovers(mount, 'good.json', 'filler'), [], 'no temporary file is left');
    }

    it('writeTextFile fails with STORE_FULL and keeps the previous file', () => {
      assert.throws(
        () => writeTextFile(path.join(mount, 'good.json'), 'x'.repeat(300_000)),
        (error: unknown) =>
          error instanceof MemoryError &&
          error.code === 'STORE_FULL' &&
          /disk holding it is full .*nothing was changed/.test(error.message),
      );
      assertUntouched();
    });

    it('the core writer throws the system error, having removed its temporary file', () => {
      assert.throws(() => writeFileAtomicSync(path.join(mount, 'good.json'), 'x'.repeat(300_000)), { code: 'ENOSPC' });
      assertUntouched();
    });

    it('`export --out` exits with STORE_FULL and keeps the previous export', () => {
      const result = spawnSync(
        process.execPath,
        [CLI, 'export', '--dir', store.dir, '--out', path.join(mount, 'good.json')],
        { encoding: 'utf8' },
      );
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /\[STORE_FULL\]/);
      assertUntouched();
    });

    it("the extension's export fails with STORE_FULL and keeps the previous export", async () => {
      await rejectsWith(workerMethods(store.memory).exportTo(path.join(mount, 'good.json')), 'STORE_FULL');
      assertUntouched();
    });
  });
});

describe('exports never land in the store’s own folder', function () {
  this.timeout(60_000);

  it('refuses an export over the database, its log, a snapshot or a manifest, and the store keeps working', () => {
    const dir = tempDir('wm-export-self-');
    try {
      const run = (...args: string[]) =>
        spawnSync(process.execPath, [CLI, ...args, '--dir', dir], { encoding: 'utf8' });
      assert.equal(run('init').status, 0);
      assert.equal(run('save', 'memory', '--content', 'kept').status, 0);
      const snapshot = (JSON.parse(run('snapshot', 'create', 'first', '--json').stdout) as { id: string }).id;
      for (const target of ['memory.db', 'memory.db-wal', `snapshots/${snapshot}.db`, `snapshots/${snapshot}.json`]) {
        const result = run('export', '--out', path.join(dir, target));
        assert.equal(result.status, 1, target);
        assert.match(result.stderr, /one of the store's own files/, target);
      }
      // Another file beside the store is the user's.
      assert.equal(run('export', '--out', path.join(dir, 'export.json')).status, 0);
      assert.equal(run('verify').status, 0);
      assert.match(run('snapshot', 'list').stdout, new RegExp(snapshot));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
