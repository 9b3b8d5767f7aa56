import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Memory } from '../../src/core/memory';
import { assertStoreConfined } from '../../src/core/paths';
import { listDocuments, loadDocuments, readDocument } from '../../src/core/rag/loader';
import { resolvedIfSame } from '../../src/core/rag/loader-read';
import { readContentFile, readTextFile, writeTextFile } from '../../src/server/cli/files';
import { openTemp, rejectsWith, tempDir } from './helpers';

/**
 * Issue #19, item 1: nothing read on a user's behalf leaves the folder it
 * belongs to through a symlink, at listing time or at reading time; and
 * item 8: no read goes past its limit or hangs on a device or FIFO.
 */

const CHANGED = 'changed while being read: it was replaced or relinked';
const SECRET = 'aws_secret_access_key = TOPSECRETVALUE';
const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function write(root: string, relative: string, text: string | Buffer): void {
  const file = path.join(root, ...relative.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function relatives(result: { files: { relativePath: string }[] }): string[] {
  return result.files.map((file) => file.relativePath);
}

function reasonFor(skipped: { path: string; reason: string }[], root: string, relative: string): string | undefined {
  return skipped.find((entry) => entry.path === path.join(root, ...relative.split('/')))?.reason;
}

/** Replaces fs.promises.open for one test: `before` runs before the real open, `after` once it succeeded. */
function hookOpen(hooks: { before?: (file: string) => void; after?: (file: string) => void }): () => void {
  const original = fs.promises.open;
  fs.promises.open = async (file: fs.PathLike, ...rest: unknown[]) => {
    hooks.before?.(String(file));
    const handle = await (original as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
    hooks.after?.(String(file));
    return handle;
  };
  return () => {
    fs.promises.open = original;
  };
}

describe('symlink escapes and bounded reads', function () {
  before(function () {
    if (process.platform === 'win32') this.skip();
  });

  let root: string;
  let outside: string;
  let realOutside: string;
  beforeEach(() => {
    root = tempDir('wm-escape-root-');
    outside = tempDir('wm-escape-outside-');
    realOutside = fs.realpathSync(outside);
    write(outside, 'credentials.md', SECRET);
    write(outside, 'folder/secret.md', SECRET);
    write(root, 'ok.md', '# Fine\n\nA document that belongs here.');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const leads = (target: string) => `symlink leads outside the synced folder (${target})`;

  describe('while listing', () => {
    it('skips a file link and a folder link leading out, absolute or relative, at any depth', async () => {
      fs.symlinkSync(path.join(outside, 'credentials.md'), path.join(root, 'notes.md'));
      fs.symlinkSync(path.join(outside, 'folder'), path.join(root, 'linked'));
      write(root, 'a/b/c/d/keep.md', 'deep but real');
      const deep = path.join(root, 'a', 'b', 'c', 'd');
      fs.symlinkSync(path.relative(deep, path.join(outside, 'credentials.md')), path.join(deep, 'relative.md'));
      fs.symlinkSync(path.relative(deep, path.join(outside, 'folder')), path.join(deep, 'relative-folder'));
      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), ['a/b/c/d/keep.md', 'ok.md']);
      assert.equal(reasonFor(result.skipped, root, 'notes.md'), leads(path.join(realOutside, 'credentials.md')));
      assert.equal(reasonFor(result.skipped, root, 'linked'), leads(path.join(realOutside, 'folder')));
      assert.equal(
        reasonFor(result.skipped, root, 'a/b/c/d/relative.md'),
        leads(path.join(realOutside, 'credentials.md')),
      );
      assert.equal(reasonFor(result.skipped, root, 'a/b/c/d/relative-folder'), leads(path.join(realOutside, 'folder')));
      assert.ok(!result.files.some((file) => file.text.includes('TOPSECRET')));
    });

    it('skips a link out found inside a folder reached through a link that stays inside', async () => {
      write(root, 'real/inner.md', 'inner');
      fs.symlinkSync(path.join('..', path.relative(root, path.join(outside, 'folder'))), path.join(root, 'real', 'up'));
      fs.symlinkSync('real', path.join(root, 'alias'));
      const result = await listDocuments(root);
      assert.deepEqual(relatives(result), ['alias/inner.md', 'ok.md', 'real/inner.md']);
      assert.equal(reasonFor(result.skipped, root, 'alias/up'), leads(path.join(realOutside, 'folder')));
      assert.equal(reasonFor(result.skipped, root, 'real/up'), leads(path.join(realOutside, 'folder')));
    });

    it('follows relative and absolute links that stay inside, the root itself being a link', async () => {
      write(root, 'docs/guide.md', 'guide');
      fs.symlinkSync(path.join('docs', 'guide.md'), path.join(root, 'relative.md'));
      fs.symlinkSync(path.join(root, 'docs'), path.join(root, 'absolute'));
      const link = path.join(outside, 'root-link');
      fs.symlinkSync(root, link);
      const result = await loadDocuments(link);
      assert.deepEqual(relatives(result), ['absolute/guide.md', 'docs/guide.md', 'ok.md', 'relative.md']);
      assert.deepEqual(result.skipped, []);
    });

    it('a lone file named through a link leading out of its folder is skipped', async () => {
      const link = path.join(root, 'notes.md');
      fs.symlinkSync(path.join(outside, 'credentials.md'), link);
      const result = await loadDocuments(link);
      assert.deepEqual(result.files, []);
      assert.deepEqual(result.skipped, [{ path: link, reason: leads(path.join(realOutside, 'credentials.md')) }]);
    });

    it('a .gitignore leading out is not applied, and a FIFO .gitignore does not hang the walk', async function () {
      fs.writeFileSync(path.join(outside, 'rules'), 'ok.md\n');
      fs.symlinkSync(path.join(outside, 'rules'), path.join(root, '.gitignore'));
      write(root, 'sub/doc.md', 'doc');
      if (spawnSync('mkfifo', [path.join(root, 'sub', '.gitignore')]).status !== 0) this.skip();
      const result = await listDocuments(root);
      assert.deepEqual(relatives(result), ['ok.md', 'sub/doc.md']);
      assert.equal(
        reasonFor(result.skipped, root, '.gitignore'),
        `unreadable .gitignore, not applied: ${leads(path.join(realOutside, 'rules'))}`,
      );
      assert.equal(
        reasonFor(result.skipped, root, 'sub/.gitignore'),
        'unreadable .gitignore, not applied: not a regular file',
      );
    });
  });

  describe('between listing and reading', () => {
    it('a file replaced by a link leading out, or a folder by a linked one, is refused when read', async () => {
      write(root, 'sub/secret.md', 'harmless at listing time');
      write(root, 'notes.md', 'harmless at listing time');
      const listing = await listDocuments(root);
      assert.deepEqual(relatives(listing), ['notes.md', 'ok.md', 'sub/secret.md']);
      fs.rmSync(path.join(root, 'notes.md'));
      fs.symlinkSync(path.join(outside, 'credentials.md'), path.join(root, 'notes.md'));
      fs.rmSync(path.join(root, 'sub'), { recursive: true });
      fs.symlinkSync(path.join(outside, 'folder'), path.join(root, 'sub'));
      const [notes, ok, secret] = await Promise.all(listing.files.map((file) => readDocument(file, { root })));
      assert.deepEqual(notes, {
        path: path.join(root, 'notes.md'),
        reason: leads(path.join(realOutside, 'credentials.md')),
      });
      assert.ok(ok && 'sha256' in ok);
      assert.deepEqual(secret, {
        path: path.join(root, 'sub', 'secret.md'),
        reason: leads(path.join(realOutside, 'folder', 'secret.md')),
      });
    });

    it('a link swapped for a file inside between the open and the check is refused (what was opened is what counts)', async () => {
      const notes = path.join(root, 'notes.md');
      fs.symlinkSync(path.join(outside, 'credentials.md'), notes);
      const unhook = hookOpen({
        after: (file) => {
          if (file !== notes) return;
          fs.rmSync(notes);
          fs.writeFileSync(notes, 'an innocent file, now');
        },
      });
      let read;
      try {
        read = await readDocument({ path: notes, relativePath: 'notes.md' }, { root });
      } finally {
        unhook();
      }
      // Linux names the open descriptor's file; elsewhere the path resolved after the open is not what was opened.
      const reason = process.platform === 'linux' ? leads(path.join(realOutside, 'credentials.md')) : CHANGED;
      assert.deepEqual(read, { path: notes, reason });
    });

    it('without /proc, the path resolved after the open must still be the file that was opened', async () => {
      const notes = path.join(root, 'notes.md');
      fs.symlinkSync(path.join(outside, 'credentials.md'), notes);
      const handle = await fs.promises.open(notes, 'r');
      try {
        const opened = await handle.stat();
        assert.equal(await resolvedIfSame(notes, opened), path.join(realOutside, 'credentials.md'));
        fs.rmSync(notes);
        fs.writeFileSync(notes, 'an innocent file, now');
        assert.equal(await resolvedIfSame(notes, opened), undefined);
      } finally {
        await handle.close();
      }
    });

    it('the read is bounded by the listing root given, even when the relative path is renamed', async () => {
      write(root, 'docs/page.md', 'page');
      const docs = path.join(root, 'docs');
      fs.symlinkSync(path.join(outside, 'credentials.md'), path.join(docs, 'swap.md'));
      // rag.ts renames relative paths with a prefix: the root it passes is what bounds the read.
      const read = await readDocument(
        { path: path.join(docs, 'swap.md'), relativePath: 'prefix/swap.md' },
        { root: docs },
      );
      assert.ok('reason' in read && read.reason === leads(path.join(realOutside, 'credentials.md')));
    });
  });

  describe('through the Memory API (what docs_search serves)', () => {
    let memory: Memory;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ memory, cleanup } = await openTemp());
    });
    afterEach(async () => {
      await cleanup();
    });

    async function nothingServed(): Promise<void> {
      const found = await memory.rag.query('a', 'aws secret access key TOPSECRETVALUE', { limit: 50 });
      assert.ok(!found.context.includes('TOPSECRET'), found.context);
      const all = await memory.knowledge.list('a');
      assert.ok(!all.some((chunk) => chunk.content.includes('TOPSECRET')));
    }

    it('sync, ingest of a lone file and syncFiles never ingest what links lead to outside', async () => {
      fs.symlinkSync(path.join(outside, 'credentials.md'), path.join(root, 'notes.md'));
      fs.symlinkSync(path.join(outside, 'folder'), path.join(root, 'linked'));
      const report = await memory.rag.sync(root, 'a');
      assert.deepEqual(report.added, ['ok.md']);
      assert.equal(reasonFor(report.skipped, root, 'notes.md'), leads(path.join(realOutside, 'credentials.md')));
      assert.equal(reasonFor(report.skipped, root, 'linked'), leads(path.join(realOutside, 'folder')));

      const ingested = await memory.rag.ingest(path.join(root, 'notes.md'), 'a');
      assert.deepEqual(ingested.added, []);
      assert.equal(ingested.skipped.length, 1);

      const probed = await memory.rag.syncFiles(root, 'a', ['notes.md', 'linked/secret.md', 'linked']);
      assert.deepEqual([...probed.added, ...probed.updated], []);
      assert.equal(reasonFor(probed.skipped, root, 'notes.md'), leads(path.join(realOutside, 'credentials.md')));
      assert.equal(reasonFor(probed.skipped, root, 'linked'), leads(path.join(realOutside, 'folder')));
      await nothingServed();
    });

    for (const sourcePrefix of [undefined, 'docs/team']) {
      it(`a link planted between the listing and the read of a sync is refused (sourcePrefix ${sourcePrefix})`, async () => {
        write(root, 'notes.md', 'harmless at listing time');
        const notes = path.join(root, 'notes.md');
        const unhook = hookOpen({
          before: (file) => {
            if (file !== notes || fs.lstatSync(notes).isSymbolicLink()) return;
            fs.rmSync(notes);
            fs.symlinkSync(path.join(outside, 'credentials.md'), notes);
          },
        });
        let report;
        try {
          report = await memory.rag.sync(root, 'a', { sourcePrefix });
        } finally {
          unhook();
        }
        // With a prefix the document names are not paths below the root: the read is bounded by the root itself.
        assert.deepEqual(report.added, [sourcePrefix ? `${sourcePrefix}/ok.md` : 'ok.md']);
        assert.equal(reasonFor(report.skipped, root, 'notes.md'), leads(path.join(realOutside, 'credentials.md')));
        await nothingServed();
      });
    }
  });

  describe('bounded reads', () => {
    it('a document that grows past the cap after its stat is refused, and never read past it', async () => {
      write(root, 'grows.md', 'small');
      const file = path.join(root, 'grows.md');
      const unhook = hookOpen({ after: (opened) => opened === file && fs.appendFileSync(file, 'x'.repeat(4096)) });
      let read;
      try {
        read = await readDocument({ path: file, relativePath: 'grows.md' }, { root, maxFileBytes: 100 });
      } finally {
        unhook();
      }
      assert.ok('reason' in read && /^larger than 100 bytes/.test(read.reason), JSON.stringify(read));
    });

    it('CLI files: the content limit is 1 MB, read no further; an import is bounded too', () => {
      write(root, 'big.md', 'x'.repeat(1024 * 1024 + 1));
      write(root, 'cap.md', 'y'.repeat(1024 * 1024));
      const big = path.join(root, 'big.md');
      assert.throws(
        () => readContentFile(big),
        (error: Error & { code?: string }) =>
          error.code === 'CONTENT_TOO_LARGE' &&
          /larger than 1 MB, the most content an entity can hold/.test(error.message),
      );
      assert.equal(readContentFile(path.join(root, 'cap.md')).length, 1024 * 1024);
      assert.throws(
        () => readTextFile(big, { maxBytes: 10, code: 'INVALID_INPUT', why: 'the test limit' }),
        /larger than 10 bytes, the test limit/,
      );
      // A sparse 3 GB file: refused from its size, instantly, without reading (or allocating) it.
      const huge = path.join(root, 'huge.json');
      fs.writeFileSync(huge, '');
      fs.truncateSync(huge, 3 * 1024 * 1024 * 1024);
      const started = performance.now();
      assert.throws(() => readTextFile(huge), /larger than .* the largest text that can be parsed/);
      assert.throws(() => readContentFile(huge), /larger than 1 MB/);
      assert.ok(performance.now() - started < 1000);
    });

    it('CLI files: a device or FIFO is refused at once, a link named by the user is read', function () {
      assert.throws(() => readContentFile('/dev/zero'), /not a regular file .*standard input/);
      const fifo = path.join(root, 'pipe');
      if (spawnSync('mkfifo', [fifo]).status !== 0) this.skip();
      assert.throws(() => readTextFile(fifo), /not a regular file/);
      const link = path.join(root, 'named.md');
      fs.symlinkSync(path.join(outside, 'credentials.md'), link);
      assert.equal(readContentFile(link), SECRET);
    });

    it('CLI export refuses to write through a symlink planted at the output path, and into a FIFO', function () {
      const victim = path.join(outside, 'victim.txt');
      fs.writeFileSync(victim, 'keep me');
      const out = path.join(root, 'export.json');
      fs.symlinkSync(victim, out);
      assert.throws(
        () => writeTextFile(out, '{}'),
        (error: Error & { code?: string }) =>
          error.code === 'INVALID_INPUT' && error.message.includes('symbolic link') && error.message.includes(victim),
      );
      assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me');
      const plain = path.join(root, 'plain.json');
      fs.writeFileSync(plain, 'a much longer old content');
      writeTextFile(plain, '{}');
      assert.equal(fs.readFileSync(plain, 'utf8'), '{}');
      const fifo = path.join(root, 'pipe.json');
      if (spawnSync('mkfifo', [fifo]).status !== 0) this.skip();
      assert.throws(() => writeTextFile(fifo, '{}'), /INVALID_INPUT|pipe|not a regular file/);
    });
  });

  describe('the CLI', function () {
    this.timeout(60_000);
    before(() => {
      if (!fs.existsSync(CLI)) spawnSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
    });

    /** Runs the CLI, killing it after `ms`: a read that never ends shows as a timeout, not a hung test. */
    function run(args: string[], ms = 15_000): Promise<{ code: number | null; stderr: string; timedOut: boolean }> {
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, ms);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stderr, timedOut });
        });
      });
    }

    it('save --file /dev/zero, a FIFO, and import of /dev/zero return at once with a reason', async function () {
      const store = path.join(root, 'store');
      assert.equal((await run(['init', '--dir', store])).code, 0);
      const zero = await run(['save', 'memory', '--dir', store, '--file', '/dev/zero']);
      assert.equal(zero.timedOut, false, 'save --file /dev/zero returned');
      assert.equal(zero.code, 1);
      assert.match(zero.stderr, /\/dev\/zero: it is not a regular file .*\[INVALID_INPUT\]/);
      const imported = await run(['import', '/dev/zero', '--dir', store]);
      assert.equal(imported.timedOut, false, 'import /dev/zero returned');
      assert.match(imported.stderr, /not a regular file/);
      const fifo = path.join(root, 'pipe.md');
      if (spawnSync('mkfifo', [fifo]).status !== 0) this.skip();
      const piped = await run(['save', 'memory', '--dir', store, '--file', fifo]);
      assert.equal(piped.timedOut, false, 'save --file <fifo> returned');
      assert.match(piped.stderr, /not a regular file/);
    });
  });

  describe('the store folder', () => {
    it('refuses a database, -wal, -shm or snapshots link leading out of the store folder; allows one inside', async () => {
      const store = path.join(root, 'store');
      fs.mkdirSync(store);
      assertStoreConfined(store, 'memory.db');
      for (const name of [
        'memory.db',
        'memory.db-wal',
        'memory.db-shm',
        'memory.db-journal',
        'memory.db.damaged',
        'snapshots',
      ]) {
        const link = path.join(store, name);
        // A dangling link too: SQLite would create its target outside.
        fs.symlinkSync(path.join(outside, `planted-${name}`), link);
        await rejectsWith(async () => assertStoreConfined(store, 'memory.db'), 'INVALID_INPUT');
        fs.rmSync(link);
      }
      fs.mkdirSync(path.join(store, 'real-snapshots'));
      fs.symlinkSync('real-snapshots', path.join(store, 'snapshots'));
      assertStoreConfined(store, 'memory.db');
      // The store folder itself may be a link: the user chose it.
      const linkedStore = path.join(outside, 'store-link');
      fs.symlinkSync(store, linkedStore);
      assertStoreConfined(linkedStore, 'memory.db');
    });
  });
});
