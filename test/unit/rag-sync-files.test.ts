import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Memory } from '../../src/core/memory';
import { openTemp, rejectsWith, tempDir } from './helpers';

function write(root: string, relative: string, text: string | Buffer): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('rag.syncFiles and sourcePrefix', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let docs: string;
  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    docs = tempDir('wm-docs-');
    write(docs, 'guide.md', '# Guide\n\nInstall with npm ci.\n\n## Deploy\n\nRun make deploy.');
    write(docs, 'notes/backups.txt', 'Database backups run nightly.');
    write(docs, 'notes/oncall.txt', 'The on-call rota changes weekly.');
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  const commits = async () => (await memory.stats()).commits;
  const sources = async () => [...new Set((await memory.knowledge.list('a')).map((chunk) => chunk.source))].sort();

  describe('syncFiles', () => {
    it('adds, updates with history, removes with tombstones, and only the paths it is given', async () => {
      await memory.rag.sync(docs, 'a');
      const [backup] = (await memory.knowledge.list('a')).filter((chunk) => chunk.source === 'notes/backups.txt');
      const [oncall] = (await memory.knowledge.list('a')).filter((chunk) => chunk.source === 'notes/oncall.txt');
      write(docs, 'notes/backups.txt', 'Database backups run hourly.');
      write(docs, 'notes/oncall.txt', 'The rota is in the wiki.'); // changed, but not named below
      write(docs, 'new.md', '# New\n\nFresh page.');
      fs.rmSync(path.join(docs, 'guide.md'));

      const report = await memory.rag.syncFiles(docs, 'a', ['notes/backups.txt', 'new.md', 'guide.md']);
      assert.deepEqual(report.added, ['new.md']);
      assert.deepEqual(report.updated, ['notes/backups.txt']);
      assert.deepEqual(report.removed, ['guide.md']);
      assert.equal(report.cancelled, false);
      const history = await memory.knowledge.history(backup!.id);
      assert.equal(history.length, 2);
      assert.match(history[0]!.entity!.content, /hourly/);
      assert.match((await memory.knowledge.get(oncall!.id))!.content, /weekly/, 'a path not given is left alone');
      assert.deepEqual(await sources(), ['new.md', 'notes/backups.txt', 'notes/oncall.txt']);
      assert.equal((await memory.verify()).valid, true);
    });

    it('makes no commit for an unchanged or merely touched file', async () => {
      await memory.rag.sync(docs, 'a');
      const before = await commits();
      const future = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(docs, 'guide.md'), future, future);
      const report = await memory.rag.syncFiles(docs, 'a', ['guide.md', 'notes/backups.txt']);
      assert.equal(report.unchanged, 2);
      assert.deepEqual([report.added, report.updated, report.removed, report.renamed], [[], [], [], []]);
      assert.equal(await commits(), before);
    });

    it('follows a rename given as a delete and a create, keeping history and making no duplicate', async () => {
      await memory.rag.sync(docs, 'a');
      const before = await memory.knowledge.list('a');
      const [chunk] = before.filter((c) => c.source === 'notes/backups.txt');
      fs.renameSync(path.join(docs, 'notes/backups.txt'), path.join(docs, 'backups.txt'));
      const report = await memory.rag.syncFiles(docs, 'a', ['notes/backups.txt', 'backups.txt']);
      assert.deepEqual(report.renamed, [{ from: 'notes/backups.txt', to: 'backups.txt' }]);
      assert.deepEqual([report.added, report.removed], [[], []]);
      const after = await memory.knowledge.list('a');
      assert.equal(after.length, before.length);
      assert.equal((await memory.knowledge.get(chunk!.id))!.source, 'backups.txt', 'the same chunk, moved');
    });

    it('applies the walk rules: .gitignore above the path, extraIgnore, hidden folders, node_modules, extension, size, binary', async () => {
      write(docs, '.gitignore', 'drafts/\n');
      write(docs, 'sub/.gitignore', 'secret.md\n');
      write(docs, 'drafts/wip.md', '# WIP');
      write(docs, 'sub/secret.md', '# Secret');
      write(docs, 'sub/open.md', '# Open');
      write(docs, 'build/out.md', '# Built');
      write(docs, '.github/notes.md', '# Hidden');
      write(docs, 'node_modules/pkg/README.md', '# Package');
      write(docs, 'code.ts', 'export {};');
      write(docs, 'big.md', 'x'.repeat(2048));
      write(docs, 'blob.md', Buffer.from([0x61, 0, 0x62]));
      const report = await memory.rag.syncFiles(
        docs,
        'a',
        [
          'drafts/wip.md',
          'sub/secret.md',
          'sub/open.md',
          'build/out.md',
          '.github/notes.md',
          'node_modules/pkg/README.md',
          'code.ts',
          'big.md',
          'blob.md',
          '../outside.md',
        ],
        { extraIgnore: ['build/'], maxFileBytes: 1024 },
      );
      assert.deepEqual(report.added, ['sub/open.md']);
      const reasons = new Map(report.skipped.map((file) => [path.relative(docs, file.path), file.reason]));
      assert.equal(reasons.get('drafts'), 'ignored by .gitignore');
      assert.equal(reasons.get(path.join('sub', 'secret.md')), 'ignored by .gitignore');
      assert.equal(reasons.get('build'), 'ignored by extraIgnore');
      assert.equal(reasons.get('.github'), 'hidden folder');
      assert.equal(reasons.get('node_modules'), 'node_modules folder');
      assert.match(reasons.get('big.md') ?? '', /larger than 1 KB/);
      assert.equal(reasons.get('blob.md'), 'binary file');
      assert.equal(reasons.get(path.join('..', 'outside.md')), 'outside the folder being synced');
      assert.equal(reasons.has('code.ts'), false, 'a file of another type is not a document, not a skip');
    });

    it('removes a document that a new ignore rule now excludes, as a full sync would', async () => {
      await memory.rag.sync(docs, 'a');
      write(docs, '.gitignore', 'notes/\n');
      const report = await memory.rag.syncFiles(docs, 'a', ['notes/backups.txt']);
      assert.deepEqual(report.removed, ['notes/backups.txt']);
      assert.ok(report.skipped.some((file) => file.reason === 'ignored by .gitignore'));
    });

    it('syncs a created folder whole and removes everything under a deleted one, not its look-alike siblings', async () => {
      write(docs, 'notes-old/a.md', '# Old notes');
      write(docs, 'notes.v2/b.md', '# New notes');
      await memory.rag.sync(docs, 'a');
      write(docs, 'manual/a.md', '# A\n\nFirst.');
      write(docs, 'manual/deep/b.md', '# B\n\nSecond.');
      const created = await memory.rag.syncFiles(docs, 'a', ['manual']);
      assert.deepEqual(created.added, ['manual/a.md', 'manual/deep/b.md']);
      fs.rmSync(path.join(docs, 'notes'), { recursive: true });
      const deleted = await memory.rag.syncFiles(docs, 'a', [path.join(docs, 'notes')]);
      assert.deepEqual(deleted.removed, ['notes/backups.txt', 'notes/oncall.txt']);
      assert.deepEqual(await sources(), [
        'guide.md',
        'manual/a.md',
        'manual/deep/b.md',
        'notes-old/a.md',
        'notes.v2/b.md',
      ]);
    });

    it('reports progress, refuses a root that is not a folder and a bad agent id', async () => {
      const seen: string[] = [];
      await memory.rag.syncFiles(docs, 'a', ['guide.md', 'notes'], {
        onProgress: ({ phase, done, total }) => seen.push(`${phase} ${done}/${total}`),
      });
      // Three files checked, each new, then written in one batch: the count follows the writing too.
      assert.deepEqual(seen, ['reading 1/3', 'reading 2/4', 'reading 3/5', 'writing 6/6']);
      const nothing = await memory.rag.syncFiles(docs, 'a', []);
      assert.deepEqual([nothing.added, nothing.removed, nothing.skipped], [[], [], []]);
      const outside = await memory.rag.syncFiles(docs, 'a', ['../elsewhere.md']);
      assert.deepEqual(
        outside.skipped.map((file) => file.reason),
        ['outside the folder being synced'],
      );
      await rejectsWith(memory.rag.syncFiles(path.join(docs, 'guide.md'), 'a', ['x.md']), 'INVALID_INPUT');
      await rejectsWith(memory.rag.syncFiles(path.join(docs, 'missing'), 'a', ['x.md']), 'NOT_FOUND');
      await rejectsWith(memory.rag.syncFiles(docs, 'bad/agent', ['guide.md']), 'INVALID_ID');
    });
  });

  describe('sourcePrefix', () => {
    let other: string;
    beforeEach(() => {
      other = tempDir('wm-docs-b-');
      write(other, 'guide.md', '# Other guide\n\nA different project.');
    });
    afterEach(() => fs.rmSync(other, { recursive: true, force: true }));

    it('keeps the documents of two folders apart, in full sync and in syncFiles', async () => {
      await memory.rag.sync(docs, 'a', { sourcePrefix: 'api' });
      await memory.rag.sync(other, 'a', { sourcePrefix: 'web' });
      assert.deepEqual(await sources(), [
        'api/guide.md',
        'api/notes/backups.txt',
        'api/notes/oncall.txt',
        'web/guide.md',
      ]);
      const again = await memory.rag.sync(docs, 'a', { sourcePrefix: 'api' });
      assert.equal(again.unchanged, 3, 'stamps are keyed by the prefixed name');
      assert.deepEqual(again.removed, [], "one folder's sync never removes the other's documents");

      write(docs, 'guide.md', '# Guide\n\nInstall with pnpm.');
      fs.rmSync(path.join(other, 'guide.md'));
      const api = await memory.rag.syncFiles(docs, 'a', ['guide.md'], { sourcePrefix: 'api' });
      assert.deepEqual(api.updated, ['api/guide.md']);
      const web = await memory.rag.syncFiles(other, 'a', ['guide.md'], { sourcePrefix: 'web' });
      assert.deepEqual(web.removed, ['web/guide.md']);
      const status = memory.rag.status('a');
      assert.deepEqual(
        status.documents.map((document) => document.path),
        ['api/guide.md', 'api/notes/backups.txt', 'api/notes/oncall.txt'],
      );
      const hit = await memory.rag.query('a', 'install with pnpm');
      assert.match(hit.chunks[0]!.citation, /^api\/guide\.md:\d+$/);
    });

    it('refuses a prefix that is not a folder name, and is trimmed of slashes', async () => {
      await rejectsWith(memory.rag.sync(docs, 'a', { sourcePrefix: '' }), 'INVALID_INPUT');
      await rejectsWith(memory.rag.sync(docs, 'a', { sourcePrefix: '../up' }), 'INVALID_INPUT');
      const report = await memory.rag.syncFiles(docs, 'a', ['guide.md'], { sourcePrefix: '/api/' });
      assert.deepEqual(report.added, ['api/guide.md']);
    });
  });

  it('forget drops the named documents whatever is on disk', async () => {
    await memory.rag.sync(docs, 'a', { sourcePrefix: 'api' });
    const report = await memory.rag.forget('a', ['api/guide.md', 'api/notes/oncall.txt', 'api/unknown.md']);
    assert.deepEqual(report.removed, ['api/guide.md', 'api/notes/oncall.txt']);
    assert.deepEqual(await sources(), ['api/notes/backups.txt']);
    assert.equal(memory.rag.status('a').files, 1);
  });
});
