import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  DEFAULT_DOC_EXTENSIONS,
  listDocuments,
  loadDocuments,
  type LoadResult,
  probeDocuments,
  readDocument,
  type SkippedFile,
} from '../../src/core/rag/loader';
import { rejectsWith, tempDir } from './helpers';

/** Writes `files` (relative path → content) under `root`, creating folders. */
function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

function relatives(result: { files: { relativePath: string }[] }): string[] {
  return result.files.map((file) => file.relativePath);
}

function reasonFor(skipped: SkippedFile[], root: string, relative: string): string | undefined {
  const target = path.join(root, ...relative.split('/'));
  return skipped.find((entry) => entry.path === target)?.reason;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

describe('rag loader', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('wm-rag-loader-');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  describe('what is loaded', () => {
    it('loads documents by extension, case-insensitively, in sorted order, with hash, size and time', async () => {
      write(root, {
        'b.md': '# B\n',
        'a.txt': 'alpha',
        'docs/z.rst': 'zed',
        'docs/A.MD': 'upper',
        'docs/guide.adoc': 'adoc',
        'docs/page.mdx': 'mdx',
        'docs/notes.markdown': 'markdown',
        'src/index.ts': 'code',
        'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
        README: 'no extension',
      });
      const result = await loadDocuments(root);
      assert.equal(result.root, root);
      assert.deepEqual(relatives(result), [
        'a.txt',
        'b.md',
        'docs/A.MD',
        'docs/guide.adoc',
        'docs/notes.markdown',
        'docs/page.mdx',
        'docs/z.rst',
      ]);
      const b = result.files.find((file) => file.relativePath === 'b.md')!;
      assert.equal(b.path, path.join(root, 'b.md'));
      assert.equal(b.text, '# B\n');
      assert.equal(b.bytes, 4);
      assert.equal(b.sha256, sha256('# B\n'));
      assert.equal(b.mtimeMs, fs.statSync(path.join(root, 'b.md')).mtimeMs);
      // Files of other extensions are not documents, not "skipped".
      assert.deepEqual(result.skipped, []);
    });

    it('takes extra extensions, with or without the dot', async () => {
      write(root, { 'a.md': 'a', 'src/x.ts': 'x', 'src/y.PY': 'y', 'src/z.js': 'z' });
      const result = await listDocuments(root, { extensions: [...DEFAULT_DOC_EXTENSIONS, '.ts', 'py'] });
      assert.deepEqual(relatives(result), ['a.md', 'src/x.ts', 'src/y.PY']);
    });

    it('sorts by relative path deterministically, by code unit, whatever the creation order', async () => {
      const names = ['b/a.md', 'a/z.md', 'a.md', 'B.md', 'a-b.md', 'a_b.md', 'é.md', 'a/b/c.md'];
      write(root, Object.fromEntries([...names].reverse().map((name) => [name, name])));
      const first = relatives(await listDocuments(root));
      const sorted = [...names].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      assert.deepEqual(first, sorted);
      assert.deepEqual(relatives(await listDocuments(root)), first);
    });

    it('hashes the bytes on disk but gives text without BOM and with LF line ends', async () => {
      const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\r\ntwo\rthree\n')]);
      write(root, { 'crlf.md': raw });
      const [file] = (await loadDocuments(root)).files;
      assert.ok(file);
      assert.equal(file.text, 'one\ntwo\nthree\n');
      assert.equal(file.sha256, sha256(raw));
      assert.equal(file.bytes, raw.length);
    });

    it('decodes UTF-8 text and a UTF-16 file with a BOM', async () => {
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\r\nwörld', 'utf16le')]);
      write(root, { 'u8.md': 'naïve café — 東京 🚀', 'u16.txt': utf16 });
      const result = await loadDocuments(root);
      assert.equal(result.files.find((f) => f.relativePath === 'u8.md')?.text, 'naïve café — 東京 🚀');
      assert.equal(result.files.find((f) => f.relativePath === 'u16.txt')?.text, 'héllo\nwörld');
    });

    it('keeps a file that is not valid UTF-8 (Latin-1), with replacement characters', async () => {
      write(root, { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
      const [file] = (await loadDocuments(root)).files;
      assert.equal(file?.text, 'caf\ufffd\n');
    });
  });

  describe('what is skipped', () => {
    it('skips .git, node_modules and hidden folders, but not hidden files', async () => {
      write(root, {
        '.git/notes.md': 'x',
        'node_modules/pkg/README.md': 'x',
        'sub/node_modules/pkg/README.md': 'x',
        '.github/CONTRIBUTING.md': 'x',
        'docs/.vitepress/cache.md': 'x',
        '.hidden-note.md': 'kept',
        'docs/ok.md': 'ok',
      });
      const result = await listDocuments(root);
      assert.deepEqual(relatives(result), ['.hidden-note.md', 'docs/ok.md']);
      assert.equal(reasonFor(result.skipped, root, '.git'), '.git folder');
      assert.equal(reasonFor(result.skipped, root, 'node_modules'), 'node_modules folder');
      assert.equal(reasonFor(result.skipped, root, 'sub/node_modules'), 'node_modules folder');
      assert.equal(reasonFor(result.skipped, root, '.github'), 'hidden folder');
      assert.equal(reasonFor(result.skipped, root, 'docs/.vitepress'), 'hidden folder');
      // Ignored folders are reported whole, not file by file.
      assert.ok(!result.skipped.some((entry) => entry.path.includes(`${path.sep}pkg`)));
    });

    it('skips files larger than maxFileBytes with a reason, and keeps one exactly at the cap', async () => {
      write(root, { 'big.md': 'x'.repeat(1024 * 1024 + 1), 'cap.md': 'y'.repeat(1024 * 1024), 'small.md': 's' });
      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), ['cap.md', 'small.md']);
      assert.match(reasonFor(result.skipped, root, 'big.md') ?? '', /^larger than 1 MB/);

      const tight = await listDocuments(root, { maxFileBytes: 10 });
      assert.deepEqual(relatives(tight), ['small.md']);
      assert.match(reasonFor(tight.skipped, root, 'cap.md') ?? '', /^larger than 10 bytes \(1 MB\)$/);
    });

    it('skips binary files (a NUL in the first 8 KB, or mostly control bytes)', async () => {
      write(root, {
        'nul.md': Buffer.concat([Buffer.from('# looks like markdown\n'), Buffer.from([0]), Buffer.from('more')]),
        'control.txt': Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 2 ? 1 : 65))),
        'late-nul.md': Buffer.concat([Buffer.from('a'.repeat(9000)), Buffer.from([0])]),
        'text.md': 'plain\ttext\fwith \u001b[1mANSI\u001b[0m',
      });
      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), ['text.md']);
      assert.equal(reasonFor(result.skipped, root, 'nul.md'), 'binary file');
      assert.equal(reasonFor(result.skipped, root, 'control.txt'), 'binary file');
      // A NUL past the sniffed 8 KB is still refused: it is no text file.
      assert.equal(reasonFor(result.skipped, root, 'late-nul.md'), 'binary file');
    });

    it('stops at maxDepth and reports the folders not entered', async () => {
      write(root, { 'l0.md': '0', 'a/l1.md': '1', 'a/b/l2.md': '2', 'a/b/c/l3.md': '3' });
      assert.deepEqual(relatives(await listDocuments(root)), ['a/b/c/l3.md', 'a/b/l2.md', 'a/l1.md', 'l0.md']);
      const one = await listDocuments(root, { maxDepth: 1 });
      assert.deepEqual(relatives(one), ['a/l1.md', 'l0.md']);
      assert.equal(reasonFor(one.skipped, root, 'a/b'), 'depth limit');
      const zero = await listDocuments(root, { maxDepth: 0 });
      assert.deepEqual(relatives(zero), ['l0.md']);
      assert.equal(reasonFor(zero.skipped, root, 'a'), 'depth limit');
    });

    it('the default depth limit is 20 levels below the root', async () => {
      const deep = Array.from({ length: 22 }, (_, i) => `d${i + 1}`);
      write(root, { [`${deep.slice(0, 20).join('/')}/at20.md`]: 'x', [`${deep.join('/')}/at22.md`]: 'x' });
      const result = await listDocuments(root);
      assert.deepEqual(relatives(result), [`${deep.slice(0, 20).join('/')}/at20.md`]);
      assert.equal(reasonFor(result.skipped, root, deep.slice(0, 21).join('/')), 'depth limit');
    });

    it('reports an unreadable file and loads the rest', async function () {
      write(root, { 'locked.md': 'secret', 'open.md': 'open' });
      fs.chmodSync(path.join(root, 'locked.md'), 0o000);
      try {
        // Root (as on CI) reads through chmod 000: then there is nothing to observe.
        let readable = true;
        try {
          fs.readFileSync(path.join(root, 'locked.md'));
        } catch {
          readable = false;
        }
        if (readable) this.skip();
        const result = await loadDocuments(root);
        assert.deepEqual(relatives(result), ['open.md']);
        assert.match(reasonFor(result.skipped, root, 'locked.md') ?? '', /^unreadable: EACCES/);
      } finally {
        fs.chmodSync(path.join(root, 'locked.md'), 0o644);
      }
    });

    it('reports a file that cannot be opened as unreadable, with the error code (works as root too)', async () => {
      write(root, { 'file.md': 'x' });
      // A path through a file fails with ENOTDIR whoever runs the test.
      const read = await readDocument(
        { path: path.join(root, 'file.md', 'inner.md'), relativePath: 'file.md/inner.md' },
        { root },
      );
      assert.ok('reason' in read);
      assert.match(read.reason, /^unreadable: ENOTDIR/);
    });

    it('reports a FIFO with a document extension as not a regular file, without hanging', async function () {
      if (process.platform === 'win32') this.skip();
      write(root, { 'ok.md': 'ok' });
      const made = spawnSync('mkfifo', [path.join(root, 'pipe.md')]);
      if (made.status !== 0) this.skip();
      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), ['ok.md']);
      assert.equal(reasonFor(result.skipped, root, 'pipe.md'), 'not a regular file');
      // Read directly (say a file replaced by a FIFO after listing): refused, not hung.
      const read = await readDocument({ path: path.join(root, 'pipe.md'), relativePath: 'pipe.md' }, { root });
      assert.deepEqual(read, { path: path.join(root, 'pipe.md'), reason: 'not a regular file' });
    });

    /**
     * Tester's report I: readdir decodes a name that is not valid UTF-8
     * with U+FFFD in place of the bad bytes, and a path with that name
     * does not exist, so the file vanished from the sync without a word.
     */
    it('reports a file or folder whose name is not valid UTF-8, and loads one whose name has a real U+FFFD', async function () {
      /** `prefix`, then the bytes `bad`, then `suffix`, as a path under the root (a Buffer: no string can hold it). */
      const raw = (prefix: string, bad: number[], suffix: string) =>
        Buffer.concat([Buffer.from(`${root}${path.sep}${prefix}`), Buffer.from(bad), Buffer.from(suffix)]);
      try {
        fs.writeFileSync(raw('x', [0xff], '.md'), 'doc');
      } catch (error) {
        // macOS (APFS) and Windows refuse such a name outright, so the walk can never meet one there.
        console.log(`      (skipped: this file system refuses a name that is not UTF-8: ${(error as Error).message})`);
        this.skip();
      }
      fs.writeFileSync(raw('picture', [0xfe], '.png'), 'not a document');
      fs.mkdirSync(raw('folder', [0xc3, 0x28], ''));
      fs.writeFileSync(Buffer.concat([raw('folder', [0xc3, 0x28], ''), Buffer.from('/inner.md')]), 'inner');
      write(root, { 'ok.md': 'ok', 'real\uFFFD.md': 'a name that is valid UTF-8' });

      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), ['ok.md', 'real\uFFFD.md']);
      assert.deepEqual(
        result.skipped.map((entry) => [path.relative(root, entry.path), entry.reason]),
        [
          ['folder\uFFFD(', 'folder name is not valid UTF-8; rename it to load what it holds'],
          ['x\uFFFD.md', 'file name is not valid UTF-8; rename it to load it'],
        ],
        'the .png is no document either way, so it goes unmentioned',
      );
    });
  });

  describe('.gitignore and extraIgnore', () => {
    it('applies the root .gitignore: globs, folder patterns, anchored patterns and negations', async () => {
      write(root, {
        '.gitignore': ['# comment', '*.txt', '!keep.txt', 'build/', '/top.md', 'drafts', 'docs/**/secret.md', ''].join(
          '\n',
        ),
        'a.txt': 'x',
        'keep.txt': 'kept',
        'sub/keep.txt': 'kept too',
        'sub/b.txt': 'x',
        'build/out.md': 'x',
        'sub/build/out.md': 'x',
        'top.md': 'x',
        'sub/top.md': 'not anchored here',
        'drafts/d.md': 'x',
        'sub/drafts': 'a file named drafts is ignored too, but not a document',
        'docs/x/y/secret.md': 'x',
        'docs/public.md': 'ok',
      });
      const result = await listDocuments(root);
      assert.deepEqual(relatives(result), ['docs/public.md', 'keep.txt', 'sub/keep.txt', 'sub/top.md']);
      assert.equal(reasonFor(result.skipped, root, 'build'), 'ignored by .gitignore');
      assert.equal(reasonFor(result.skipped, root, 'sub/build'), 'ignored by .gitignore');
      assert.equal(reasonFor(result.skipped, root, 'drafts'), 'ignored by .gitignore');
      assert.equal(reasonFor(result.skipped, root, 'a.txt'), 'ignored by .gitignore');
      assert.equal(reasonFor(result.skipped, root, 'docs/x/y/secret.md'), 'ignored by .gitignore');
      // Nothing below an ignored folder is listed.
      assert.equal(reasonFor(result.skipped, root, 'build/out.md'), undefined);
    });

    it('applies nested .gitignore files relative to their own folder, deeper ones taking precedence', async () => {
      write(root, {
        '.gitignore': '*.log\nprivate.md\n',
        'app.log.md': 'a document despite the name',
        'private.md': 'x',
        'docs/.gitignore': '/local.md\n!private.md\ngenerated/\n',
        'docs/local.md': 'x',
        'docs/private.md': 're-included by the nested file',
        'docs/deeper/local.md': 'anchored pattern does not reach here',
        'docs/generated/api.md': 'x',
        'generated/api.md': 'the nested pattern does not apply at the root',
        'other/private.md': 'still ignored by the root file',
        'other/local.md': 'ok',
      });
      const result = await listDocuments(root, { extensions: ['.md', '.log'] });
      assert.deepEqual(relatives(result), [
        'app.log.md',
        'docs/deeper/local.md',
        'docs/private.md',
        'generated/api.md',
        'other/local.md',
      ]);
      assert.equal(reasonFor(result.skipped, root, 'docs/generated'), 'ignored by .gitignore');
      assert.equal(reasonFor(result.skipped, root, 'other/private.md'), 'ignored by .gitignore');
    });

    it('honours a nested negation of a folder the root .gitignore excludes', async () => {
      write(root, {
        '.gitignore': 'cache/\n*.tmp\n',
        'cache/x.md': 'ignored',
        'pkg/.gitignore': '!cache/\n',
        'pkg/cache/readme.md': 're-included',
        'pkg/cache/scratch.tmp': 'still ignored by *.tmp',
      });
      const result = await listDocuments(root, { extensions: ['.md', '.tmp'] });
      assert.deepEqual(relatives(result), ['pkg/cache/readme.md']);
      assert.equal(reasonFor(result.skipped, root, 'pkg/cache/scratch.tmp'), 'ignored by .gitignore');
    });

    it('cannot re-include a file whose folder is excluded (as in Git)', async () => {
      write(root, { '.gitignore': 'out/\n!out/keep.md\n', 'out/keep.md': 'x', 'in.md': 'ok' });
      assert.deepEqual(relatives(await listDocuments(root)), ['in.md']);
    });

    it('applies the .gitignore files of the enclosing repository when loading a subfolder', async () => {
      write(root, {
        '.git/HEAD': 'ref: refs/heads/main\n',
        '.gitignore': 'docs/drafts/\n*.secret.md\n',
        'docs/.gitignore': 'tmp.md\n',
        'docs/guide/intro.md': 'ok',
        'docs/guide/tmp.md': 'x',
        'docs/guide/a.secret.md': 'x',
        'docs/drafts/wip.md': 'x',
      });
      const result = await listDocuments(path.join(root, 'docs'));
      assert.deepEqual(relatives(result), ['guide/intro.md']);
      assert.equal(reasonFor(result.skipped, path.join(root, 'docs'), 'drafts'), 'ignored by .gitignore');
    });

    it('ignores nothing above the root without a .git', async () => {
      write(root, { '.gitignore': '*.md\n', 'docs/a.md': 'a' });
      assert.deepEqual(relatives(await listDocuments(path.join(root, 'docs'))), ['a.md']);
    });

    it('respectGitignore: false loads what .gitignore excludes, but still skips .git, node_modules and hidden folders', async () => {
      write(root, { '.gitignore': '*.md\n', 'a.md': 'a', 'node_modules/x.md': 'x', '.cache/y.md': 'y' });
      assert.deepEqual(relatives(await listDocuments(root)), []);
      assert.deepEqual(relatives(await listDocuments(root, { respectGitignore: false })), ['a.md']);
    });

    it('applies extraIgnore patterns relative to the root, even over a .gitignore negation', async () => {
      write(root, {
        '.gitignore': '!important.md\n',
        'important.md': 'x',
        'out/a.md': 'x',
        'docs/a.md': 'ok',
        'docs/b.generated.md': 'x',
        'docs/keep.generated.md': 'kept by a negation in the same list',
      });
      const result = await listDocuments(root, {
        extraIgnore: ['**/out', 'important.md', '*.generated.md', '!keep.generated.md'],
        respectGitignore: true,
      });
      assert.deepEqual(relatives(result), ['docs/a.md', 'docs/keep.generated.md']);
      assert.equal(reasonFor(result.skipped, root, 'out'), 'ignored by extraIgnore');
      assert.equal(reasonFor(result.skipped, root, 'important.md'), 'ignored by extraIgnore');
      // And with respectGitignore off too.
      const plain = await listDocuments(root, { extraIgnore: ['docs/'], respectGitignore: false });
      assert.deepEqual(relatives(plain), ['important.md', 'out/a.md']);
    });

    it('agrees with `git ls-files --others --exclude-standard` on a tangled tree', async function () {
      const git = spawnSync('git', ['--version']);
      if (git.status !== 0) this.skip();
      write(root, {
        '.gitignore': [
          '*.log',
          '!important.log',
          'tmp/',
          '/root-only.md',
          'a/**/deep.md',
          'vendor',
          '**/gen/*.md',
          '!**/gen/keep.md',
          'x[0-9].md',
          '*.bak',
        ].join('\n'),
        'a/.gitignore': ['!*.log', 'local.md', '/anchored.md', '!tmp/'].join('\n'),
        'a/b/.gitignore': ['*.md', '!keep*.md'].join('\n'),
        'important.log': '1',
        'other.log': '1',
        'root-only.md': '1',
        'a/root-only.md': '1',
        'a/x.log': '1',
        'a/local.md': '1',
        'a/anchored.md': '1',
        'a/c/anchored.md': '1',
        'a/c/deep.md': '1',
        'a/tmp/t.md': '1',
        'a/b/one.md': '1',
        'a/b/keep-me.md': '1',
        'a/b/c/keep2.md': '1',
        'a/b/c/other.md': '1',
        'tmp/t.md': '1',
        'vendor/v.md': '1',
        'src/gen/a.md': '1',
        'src/gen/keep.md': '1',
        'src/x1.md': '1',
        'src/x10.md': '1',
        'src/file.md.bak': '1',
        'sp ace/[odd]!#.md': '1',
        'we[ir]d !#/.gitignore': '!tmp/\n',
        'we[ir]d !#/tmp/t.md': '1',
        'we[ir]d !#/tmp/x.bak': '1',
        'plain.md': '1',
      });
      const init = spawnSync('git', ['init', '-q'], { cwd: root });
      if (init.status !== 0) this.skip();
      const listed = spawnSync(
        'git',
        ['-c', 'core.excludesFile=/dev/null', 'ls-files', '--others', '--exclude-standard', '-z'],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      assert.equal(listed.status, 0, listed.stderr);
      const expected = listed.stdout
        .split('\0')
        .filter((name) => name && !name.endsWith('.gitignore'))
        .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      const ours = await listDocuments(root, { extensions: ['.md', '.log', '.bak'] });
      assert.deepEqual(relatives(ours), expected);
    });
  });

  describe('symlinks', function () {
    before(function () {
      if (process.platform === 'win32') this.skip();
    });

    it('follows linked files and folders inside the root, under the link path', async () => {
      write(root, { 'a.md': 'a', 'shared/guide.md': 'guide', 'notes/note.md': 'note' });
      fs.symlinkSync(path.join(root, 'shared'), path.join(root, 'linked'));
      fs.symlinkSync(path.join('notes', 'note.md'), path.join(root, 'note-link.md'));
      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), [
        'a.md',
        'linked/guide.md',
        'note-link.md',
        'notes/note.md',
        'shared/guide.md',
      ]);
      const linked = result.files.find((file) => file.relativePath === 'linked/guide.md')!;
      assert.equal(linked.path, path.join(root, 'linked', 'guide.md'));
      assert.equal(linked.text, 'guide');
      assert.equal(result.files.find((file) => file.relativePath === 'note-link.md')?.text, 'note');
      assert.deepEqual(result.skipped, []);
    });

    it('skips linked files and folders that lead outside the root, with where they lead', async () => {
      const outside = tempDir('wm-rag-outside-');
      try {
        write(outside, { 'shared/guide.md': 'guide', 'note.md': 'note' });
        write(root, { 'a.md': 'a' });
        fs.symlinkSync(path.join(outside, 'shared'), path.join(root, 'linked'));
        fs.symlinkSync(path.join(outside, 'note.md'), path.join(root, 'note-link.md'));
        const result = await loadDocuments(root);
        assert.deepEqual(relatives(result), ['a.md']);
        const real = fs.realpathSync(outside);
        assert.equal(
          reasonFor(result.skipped, root, 'linked'),
          `symlink leads outside the synced folder (${path.join(real, 'shared')})`,
        );
        assert.equal(
          reasonFor(result.skipped, root, 'note-link.md'),
          `symlink leads outside the synced folder (${path.join(real, 'note.md')})`,
        );
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });

    it('skips a symlink loop with a reason and terminates', async () => {
      write(root, { 'a/doc.md': 'a', 'a/b/doc.md': 'b' });
      fs.symlinkSync(root, path.join(root, 'a', 'b', 'to-root'));
      fs.symlinkSync('..', path.join(root, 'a', 'up'));
      fs.symlinkSync('self.md', path.join(root, 'self.md'));
      const result = await listDocuments(root);
      assert.deepEqual(relatives(result), ['a/b/doc.md', 'a/doc.md']);
      assert.equal(reasonFor(result.skipped, root, 'a/b/to-root'), 'symlink loop');
      assert.equal(reasonFor(result.skipped, root, 'a/up'), 'symlink loop');
      assert.equal(reasonFor(result.skipped, root, 'self.md'), 'symlink loop');
    });

    it('follows a link to a sibling folder (not a loop) and lists its files under both paths', async () => {
      write(root, { 'real/x.md': 'x' });
      fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
      assert.deepEqual(relatives(await listDocuments(root)), ['alias/x.md', 'real/x.md']);
    });

    it('reports a dangling symlink', async () => {
      write(root, { 'ok.md': 'ok' });
      fs.symlinkSync(path.join(root, 'missing.md'), path.join(root, 'dangling.md'));
      fs.symlinkSync(path.join(root, 'missing-folder'), path.join(root, 'dangling-folder'));
      const result = await loadDocuments(root);
      assert.deepEqual(relatives(result), ['ok.md']);
      assert.equal(reasonFor(result.skipped, root, 'dangling.md'), 'dangling symlink');
      assert.equal(reasonFor(result.skipped, root, 'dangling-folder'), 'dangling symlink');
    });

    it('does not resolve a link that .gitignore excludes', async () => {
      write(root, { '.gitignore': 'dangling.md\n', 'ok.md': 'ok' });
      fs.symlinkSync(path.join(root, 'missing.md'), path.join(root, 'dangling.md'));
      const result = await listDocuments(root);
      assert.equal(reasonFor(result.skipped, root, 'dangling.md'), 'ignored by .gitignore');
    });
  });

  describe('targets', () => {
    it('loads a single named file whatever its extension; root is its folder', async () => {
      write(root, { 'src/main.ts': 'export const x = 1;\r\n', 'src/other.md': 'not loaded' });
      const result = await loadDocuments(path.join(root, 'src', 'main.ts'));
      assert.equal(result.root, path.join(root, 'src'));
      assert.deepEqual(relatives(result), ['main.ts']);
      assert.equal(result.files[0]?.text, 'export const x = 1;\n');
    });

    it('a single named file is still refused when binary or too big', async () => {
      write(root, { 'bin.md': Buffer.from([1, 0, 2]), 'big.md': 'x'.repeat(100) });
      const binary = await loadDocuments(path.join(root, 'bin.md'));
      assert.deepEqual(binary, {
        root,
        files: [],
        skipped: [{ path: path.join(root, 'bin.md'), reason: 'binary file' }],
      });
      const big = await loadDocuments(path.join(root, 'big.md'), { maxFileBytes: 50 });
      assert.equal(big.files.length, 0);
      assert.match(big.skipped[0]?.reason ?? '', /^larger than 50 bytes/);
    });

    it('a single file ignored by .gitignore is loaded when named explicitly', async () => {
      write(root, { '.gitignore': '*.md\n', 'a.md': 'a' });
      assert.deepEqual(relatives(await loadDocuments(path.join(root, 'a.md'))), ['a.md']);
    });

    it('resolves a relative target against the working folder', async () => {
      write(root, { 'a.md': 'a' });
      const relative = path.relative(process.cwd(), root);
      const result = await listDocuments(relative);
      assert.equal(result.root, root);
      assert.deepEqual(relatives(result), ['a.md']);
    });

    it('a missing path is NOT_FOUND, naming the path', async () => {
      const missing = path.join(root, 'nope');
      const error = await rejectsWith(loadDocuments(missing), 'NOT_FOUND');
      assert.ok(error.message.includes(missing));
      await rejectsWith(listDocuments(path.join(root, 'nope', 'deeper.md')), 'NOT_FOUND');
    });

    it('an empty folder gives nothing, and bad options are INVALID_INPUT', async () => {
      assert.deepEqual(await loadDocuments(root), { root, files: [], skipped: [] });
      await rejectsWith(loadDocuments(''), 'INVALID_INPUT');
      await rejectsWith(loadDocuments(root, { maxFileBytes: 0 }), 'INVALID_INPUT');
      await rejectsWith(loadDocuments(root, { maxDepth: -1 }), 'INVALID_INPUT');
      await rejectsWith(loadDocuments(root, { maxDepth: 1.5 }), 'INVALID_INPUT');
    });
  });

  describe('listDocuments and readDocument', () => {
    it('lists size and time without reading, and readDocument gives the same as loadDocuments', async () => {
      write(root, { 'a.md': '# A\r\n', 'b/c.txt': 'c' });
      const listing = await listDocuments(root);
      const loaded = await loadDocuments(root);
      assert.deepEqual(
        listing.files,
        loaded.files.map(({ path: file, relativePath, bytes, mtimeMs }) => ({
          path: file,
          relativePath,
          bytes,
          mtimeMs,
        })),
      );
      for (const [i, entry] of listing.files.entries())
        assert.deepEqual(await readDocument(entry, { root }), loaded.files[i]);
    });

    it('a file that vanished between listing and reading is skipped, not thrown', async () => {
      write(root, { 'a.md': 'a', 'gone.md': 'g' });
      const listing = await listDocuments(root);
      fs.rmSync(path.join(root, 'gone.md'));
      const results = await Promise.all(listing.files.map((file) => readDocument(file, { root })));
      assert.ok('sha256' in results[0]!);
      assert.deepEqual(results[1], { path: path.join(root, 'gone.md'), reason: 'vanished: no longer exists' });
    });

    it('a file that became a folder, binary or too big since listing is skipped', async () => {
      write(root, { 'dir.md': 'x', 'bin.md': 'x', 'grew.md': 'x' });
      const listing = await listDocuments(root);
      fs.rmSync(path.join(root, 'dir.md'));
      fs.mkdirSync(path.join(root, 'dir.md'));
      fs.writeFileSync(path.join(root, 'bin.md'), Buffer.from([0, 1, 2]));
      fs.writeFileSync(path.join(root, 'grew.md'), 'x'.repeat(2 * 1024 * 1024));
      const reasons = await Promise.all(
        listing.files.map(async (file) => {
          const read = await readDocument(file, { root });
          return 'reason' in read ? read.reason : 'read';
        }),
      );
      assert.deepEqual(reasons, ['binary file', 'not a regular file', 'larger than 1 MB (2 MB)']);
      // A caller's larger cap applies.
      const grew = listing.files.find((file) => file.relativePath === 'grew.md')!;
      const read = await readDocument(grew, { root, maxFileBytes: 4 * 1024 * 1024 });
      assert.ok('sha256' in read && read.bytes === 2 * 1024 * 1024);
    });

    it('readDocument needs the root the file was listed from', async () => {
      write(root, { 'a.md': 'a' });
      const [file] = (await listDocuments(root)).files;
      await rejectsWith(readDocument(file!, undefined as unknown as { root: string }), 'INVALID_INPUT');
      await rejectsWith(readDocument(file!, { root: '' }), 'INVALID_INPUT');
    });

    it('readDocument accepts a file listed with a larger cap than the default', async () => {
      write(root, { 'big.md': 'x'.repeat(1024 * 1024 + 10) });
      const listing = await listDocuments(root, { maxFileBytes: 2 * 1024 * 1024 });
      const read = await readDocument(listing.files[0]!, { root });
      assert.ok('sha256' in read, 'not refused for the size the listing accepted');
    });
  });

  describe('cancellation and scale', () => {
    /** A signal that reads as aborted from its `after`-th look on, and counts the looks. */
    function abortingAfter(after: number): AbortSignal & { looks: number } {
      const signal = {
        looks: 0,
        get aborted() {
          return ++signal.looks > after;
        },
        reason: new Error('stop'),
        throwIfAborted() {},
        addEventListener() {},
        removeEventListener() {},
      };
      return signal as unknown as AbortSignal & { looks: number };
    }

    it('an aborted signal stops with CANCELLED: before, during the walk, or while reading', async () => {
      write(root, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i % 30}/f${i}.md`, `file ${i}`])));
      await rejectsWith(loadDocuments(root, { signal: AbortSignal.abort() }), 'CANCELLED');
      await rejectsWith(
        readDocument(
          { path: path.join(root, 'd0', 'f0.md'), relativePath: 'd0/f0.md' },
          { root, signal: AbortSignal.abort() },
        ),
        'CANCELLED',
      );
      // How often a whole listing looks at the signal; then abort midway through it, and during the reads.
      const counting = abortingAfter(Infinity);
      await listDocuments(root, { signal: counting });
      const listingLooks = counting.looks;
      assert.ok(listingLooks > 30, `the walk checks the signal as it goes (${listingLooks})`);
      const midWalk = abortingAfter(Math.floor(listingLooks / 2));
      await rejectsWith(listDocuments(root, { signal: midWalk }), 'CANCELLED');
      assert.ok(midWalk.looks < listingLooks, 'stopped early');
      await rejectsWith(loadDocuments(root, { signal: abortingAfter(listingLooks + 20) }), 'CANCELLED');
      // A real AbortController, aborted while the load runs.
      const controller = new AbortController();
      const pending = loadDocuments(root, { signal: controller.signal });
      setImmediate(() => controller.abort());
      await rejectsWith(pending, 'CANCELLED');
    });

    it('looks at the signal while listing one big folder and while probing many paths, not only between folders', async function () {
      this.timeout(60_000);
      write(root, Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`big/f${i}.md`, 'x'])));
      const listing = abortingAfter(Infinity);
      await listDocuments(root, { signal: listing });
      assert.ok(listing.looks >= 5_000 / 256, `looks while listing: ${listing.looks}`);
      await rejectsWith(listDocuments(root, { signal: abortingAfter(10) }), 'CANCELLED');
      const paths = Array.from({ length: 5_000 }, (_, i) => `big/f${i}.md`);
      const probing = abortingAfter(Infinity);
      await probeDocuments(root, paths, { signal: probing });
      assert.ok(probing.looks >= 5_000, `looks while probing: ${probing.looks}`);
      await rejectsWith(probeDocuments(root, paths, { signal: abortingAfter(100) }), 'CANCELLED');
    });

    it('lists a tree of 10,000 files in well under a second', async function () {
      this.timeout(60_000);
      const files: Record<string, string> = {};
      for (let i = 0; i < 10_000; i++) files[`d${i % 100}/e${i % 7}/f${i}.${i % 5 === 0 ? 'ts' : 'md'}`] = 'x';
      write(root, files);
      // The best of three, so that a busy machine does not fail the test.
      let best = Infinity;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const listing = await listDocuments(root);
        best = Math.min(best, performance.now() - started);
        assert.equal(listing.files.length, 8_000);
      }
      // Typically 150-350 ms here; the bound leaves room for a slow CI machine.
      assert.ok(best < 1000, `listing took ${best.toFixed(0)} ms`);
      const loaded: LoadResult = await loadDocuments(root);
      assert.equal(loaded.files.length, 8_000);
    });
  });
});
