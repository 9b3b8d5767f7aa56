import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { anchorCitation, checkCitationFollowingRenames, CitedFiles } from '../../src/core/anchors/citations';
import { GitRenames } from '../../src/core/anchors/git';
import type { WorkspaceFolder } from '../../src/core/anchors/workspace-paths';
import type { Memory } from '../../src/core/memory';
import type { Citation } from '../../src/core/types';
import { openTemp, tempDir } from './helpers';

/** Cited lines, with enough around them that git pairs the file with itself after a one-line edit. */
const CODE = [
  'export function retry(times: number) {',
  '  for (let i = 0; i < times; i++) {',
  '    attempt();',
  '  }',
  '}',
];
const FILE = ['// header', ...CODE, '', ...Array.from({ length: 20 }, (_, i) => `export const setting${i} = ${i};`)];

/**
 * The tests' own git: no user or system configuration, no repository a
 * surrounding process (a git hook running the tests) points at.
 */
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_'))),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
};
function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
    { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}
const initRepository = (dir: string) => git(dir, 'init', '-q', '--initial-branch=main');
/** `git mv`, into a folder made first when it is new (git mv does not make it). */
const move = (dir: string, from: string, to: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
  git(dir, 'mv', from, to);
};
const commitAll = (dir: string, message: string): string => {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
};

/** A full check of one citation, as `checkCitations` makes it: a fresh look at files and at git. */
const followed = (folders: readonly WorkspaceFolder[], citation: Citation) =>
  checkCitationFollowingRenames(folders, citation, new CitedFiles(), new GitRenames());

describe('citations in a git repository', () => {
  let root: string;
  let folders: WorkspaceFolder[];
  const write = (relative: string, lines: readonly string[]) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), `${lines.join('\n')}\n`);
  };
  const cite = () => anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6 });

  before(function () {
    try {
      git(os.tmpdir(), '--version');
    } catch {
      this.skip();
    }
  });
  beforeEach(() => {
    root = fs.realpathSync(tempDir('wm-cite-git-'));
    folders = [{ name: 'app', path: root }];
    write('src/retry.ts', FILE);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe('the commit a citation records', () => {
    it('records the commit HEAD names when the folder is a repository, and no commit field outside one', () => {
      assert.ok(!('commit' in cite()), 'not a repository: no commit');
      initRepository(root);
      assert.ok(!('commit' in cite()), 'a branch without commits yet: no commit');
      const first = commitAll(root, 'first');
      assert.equal(cite().commit, first);
      write('notes.md', ['more']);
      const second = commitAll(root, 'second');
      assert.equal(cite().commit, second, 'the commit now, not one remembered');
    });

    it('reads the commit from packed refs, a detached HEAD, a linked worktree and a folder below the top', () => {
      initRepository(root);
      const first = commitAll(root, 'first');
      write('notes.md', ['more']);
      const second = commitAll(root, 'second');
      git(root, 'pack-refs', '--all');
      assert.ok(!fs.existsSync(path.join(root, '.git/refs/heads/main')), 'the branch is only in packed-refs');
      assert.equal(cite().commit, second);
      git(root, 'checkout', '-q', '--detach', first);
      assert.equal(cite().commit, first);
      git(root, 'checkout', '-q', 'main');
      assert.equal(
        anchorCitation([{ name: 'src', path: path.join(root, 'src') }], { path: 'retry.ts', startLine: 2, endLine: 2 })
          .commit,
        second,
      );
      const worktree = `${root}-worktree`;
      try {
        git(root, 'worktree', 'add', '-q', '-b', 'other', worktree, first);
        fs.writeFileSync(path.join(worktree, 'other.md'), 'other\n');
        const third = commitAll(worktree, 'third, on the worktree');
        assert.ok(fs.statSync(path.join(worktree, '.git')).isFile(), 'a worktree has a .git file');
        const inWorktree = anchorCitation([{ name: 'wt', path: worktree }], {
          path: 'src/retry.ts',
          startLine: 2,
          endLine: 2,
        });
        assert.equal(inWorktree.commit, third);
        assert.equal(cite().commit, second, 'the main working tree is where it was');
      } finally {
        fs.rmSync(worktree, { recursive: true, force: true });
      }
    });

    it('keeps the commit when a memory is saved with citations given as path and lines', async () => {
      initRepository(root);
      const first = commitAll(root, 'first');
      const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
      try {
        const [saved] = await memory.memories.save('a', undefined, {
          content: 'retry() loops',
          citations: [{ path: 'src/retry.ts', startLine: 2, endLine: 6 }],
        });
        assert.equal(saved.citations?.[0]?.commit, first);
      } finally {
        await cleanup();
      }
    });
  });

  describe('a cited file renamed', () => {
    beforeEach(() => initRepository(root));

    it('follows a committed rename: the lines moved to the new file, where they are now', async () => {
      commitAll(root, 'first');
      const citation = cite();
      move(root, 'src/retry.ts', 'lib/retry.ts');
      commitAll(root, 'rename');
      assert.deepEqual(await followed(folders, citation), {
        state: 'moved',
        moved: { ...citation, path: 'lib/retry.ts' },
      });
      write('lib/retry.ts', ['// a new first line', ...FILE]);
      assert.deepEqual(await followed(folders, citation), {
        state: 'moved',
        moved: { ...citation, path: 'lib/retry.ts', startLine: 3, endLine: 7 },
      });
    });

    it('follows a rename staged but not committed yet', async () => {
      commitAll(root, 'first');
      const citation = cite();
      move(root, 'src/retry.ts', 'src/retrying.ts');
      assert.equal((await followed(folders, citation)).moved?.path, 'src/retrying.ts');
    });

    it('follows a rename for a citation without a commit, or with one the repository does not have', async () => {
      commitAll(root, 'first');
      const { commit: _commit, ...citation } = cite();
      move(root, 'src/retry.ts', 'lib/retry.ts');
      assert.equal((await followed(folders, citation)).moved?.path, 'lib/retry.ts', 'staged');
      write('notes.md', ['after the rename']);
      commitAll(root, 'rename, then more');
      assert.equal((await followed(folders, citation)).moved?.path, 'lib/retry.ts');
      const foreign = { ...citation, commit: 'f'.repeat(40) };
      assert.equal((await followed(folders, foreign)).moved?.path, 'lib/retry.ts');
    });

    it('a renamed file whose cited lines were edited is changed, saying where it went, never valid or moved', async () => {
      commitAll(root, 'first');
      const citation = cite();
      move(root, 'src/retry.ts', 'lib/retry.ts');
      write(
        'lib/retry.ts',
        FILE.map((line) => line.replace('attempt()', 'attempt(i)')),
      );
      commitAll(root, 'rename and edit');
      assert.deepEqual(await followed(folders, citation), { state: 'changed', renamedTo: 'lib/retry.ts' });
    });

    it('a file deleted, not renamed, stays missing', async () => {
      commitAll(root, 'first');
      const citation = cite();
      git(root, 'rm', '-q', 'src/retry.ts');
      commitAll(root, 'delete');
      assert.deepEqual(await followed(folders, citation), { state: 'missing' });
    });

    it('recall’s check runs no git: a renamed file is missing there until the full check writes its new path', async () => {
      const first = commitAll(root, 'first');
      const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
      try {
        const [saved] = await memory.memories.save('a', undefined, {
          content: 'retry() loops',
          citations: [{ path: 'src/retry.ts', startLine: 2, endLine: 6 }],
        });
        move(root, 'src/retry.ts', 'lib/retry.ts');
        write('lib/retry.ts', ['// a new first line', ...FILE]);
        const renamed = commitAll(root, 'rename');
        assert.notEqual(renamed, first);
        assert.match((await memory.recall('a', undefined, 'retry loops')).formatted, /`src\/retry\.ts:2-6` is gone/);
        const report = await memory.checkCitations();
        assert.deepEqual(report.counts, { valid: 0, moved: 1, changed: 0, missing: 0 });
        assert.deepEqual(report.entities[0]!.citations[0]!.movedTo, { path: 'lib/retry.ts', startLine: 3, endLine: 7 });
        assert.equal(report.reanchored, 1);
        const now = await storedCitation(memory, saved.id);
        assert.deepEqual(
          [now.path, now.startLine, now.endLine, now.commit, now.hash],
          ['lib/retry.ts', 3, 7, renamed, saved.citations![0]!.hash],
          'the new path and lines, cited anew at the commit the folder is at now; the same lines',
        );
        assert.doesNotMatch((await memory.recall('a', undefined, 'retry loops')).formatted, /May be outdated/);
        assert.deepEqual((await memory.checkCitations()).counts, { valid: 1, moved: 0, changed: 0, missing: 0 });
      } finally {
        await cleanup();
      }
    });

    it('the full check reports a renamed and edited file as changed, and the citation follows the file, still stale', async () => {
      commitAll(root, 'first');
      const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
      try {
        const [saved] = await memory.memories.save('a', undefined, {
          content: 'retry() loops',
          citations: [{ path: 'src/retry.ts', startLine: 2, endLine: 6 }],
        });
        move(root, 'src/retry.ts', 'lib/retry.ts');
        write(
          'lib/retry.ts',
          FILE.map((line) => line.replace('attempt()', 'attempt(i)')),
        );
        commitAll(root, 'rename and edit');
        const report = await memory.checkCitations();
        const [status] = report.entities[0]!.citations;
        assert.equal(status!.state, 'changed');
        assert.equal(status!.renamedTo, 'lib/retry.ts');
        assert.equal(status!.changedAt, fs.statSync(path.join(root, 'lib/retry.ts')).mtime.toISOString());
        assert.equal(report.entities[0]!.stale, true);
        // Its path follows the file, so what asks about lib/retry.ts finds it; its lines stay as cited.
        assert.equal(report.reanchored, 1);
        assert.deepEqual(await storedCitation(memory, saved.id), { ...saved.citations![0], path: 'lib/retry.ts' });
        const [about] = await memory.citingFiles('a', undefined, ['lib/retry.ts']);
        assert.equal(about?.stale, true);
        assert.equal((await memory.checkCitations()).entities[0]!.citations[0]!.state, 'changed');
      } finally {
        await cleanup();
      }
    });
  });

  describe('where a rename is not followed', () => {
    it('outside a git repository a gone file is missing, as before', async () => {
      const citation = cite();
      fs.mkdirSync(path.join(root, 'lib'));
      fs.renameSync(path.join(root, 'src/retry.ts'), path.join(root, 'lib/retry.ts'));
      assert.deepEqual(await followed(folders, citation), { state: 'missing' });
    });

    it('a rename in the working tree alone (not staged) is missing: git cannot tell it from a deletion', async () => {
      initRepository(root);
      commitAll(root, 'first');
      const citation = cite();
      fs.mkdirSync(path.join(root, 'lib'));
      fs.renameSync(path.join(root, 'src/retry.ts'), path.join(root, 'lib/retry.ts'));
      assert.deepEqual(await followed(folders, citation), { state: 'missing' });
      git(root, 'add', '-A');
      assert.equal((await followed(folders, citation)).moved?.path, 'lib/retry.ts', 'once staged, it is followed');
    });

    it('never follows a rename out of the workspace folder, to its parent or through a link, nor into a secret file', async () => {
      // The repository holds the workspace folder `ws` and a sibling folder.
      initRepository(root);
      const ws = path.join(root, 'ws');
      fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
      fs.renameSync(path.join(root, 'src/retry.ts'), path.join(ws, 'src/retry.ts'));
      commitAll(root, 'first');
      const inWs: WorkspaceFolder[] = [{ name: 'ws', path: ws }];
      const citation = anchorCitation(inWs, { path: 'src/retry.ts', startLine: 2, endLine: 6 });

      move(root, 'ws/src/retry.ts', 'ws/lib/retry.ts');
      commitAll(root, 'rename inside the folder');
      assert.equal((await followed(inWs, citation)).moved?.path, 'lib/retry.ts', 'inside the folder: followed');

      // The renamed file's folder swapped for a link to a copy outside the workspace.
      const outside = tempDir('wm-cite-git-outside-');
      try {
        fs.writeFileSync(path.join(outside, 'retry.ts'), `${FILE.join('\n')}\n`);
        fs.rmSync(path.join(ws, 'lib'), { recursive: true });
        fs.symlinkSync(outside, path.join(ws, 'lib'));
        assert.deepEqual(await followed(inWs, citation), { state: 'missing' }, 'a link out is not followed');
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }

      fs.rmSync(path.join(ws, 'lib'));
      git(root, 'checkout', '-q', '--', 'ws/lib');
      move(root, 'ws/lib/retry.ts', 'elsewhere/retry.ts');
      commitAll(root, 'rename out of the folder');
      assert.ok(fs.existsSync(path.join(root, 'elsewhere/retry.ts')));
      assert.deepEqual(await followed(inWs, citation), { state: 'missing' }, 'out of the folder: not followed');

      move(root, 'elsewhere/retry.ts', 'ws/.env');
      commitAll(root, 'back, as a secret file');
      assert.deepEqual(await followed(inWs, citation), { state: 'missing' }, 'into a secret file: not followed');
    });

    it('without git installed, a renamed file is missing and nothing throws', async () => {
      initRepository(root);
      commitAll(root, 'first');
      const citation = cite();
      move(root, 'src/retry.ts', 'lib/retry.ts');
      commitAll(root, 'rename');
      const saved = process.env.PATH;
      process.env.PATH = tempDir('wm-no-git-');
      try {
        assert.deepEqual(await followed(folders, citation), { state: 'missing' });
      } finally {
        fs.rmSync(process.env.PATH, { recursive: true, force: true });
        process.env.PATH = saved;
      }
      assert.equal((await followed(folders, citation)).moved?.path, 'lib/retry.ts', 'with git: followed');
    });
  });
});

/** A memory's first citation as the store has it now. */
async function storedCitation(memory: Memory, id: string): Promise<Citation> {
  return (await memory.memories.get(id))!.citations![0]!;
}
