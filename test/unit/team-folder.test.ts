import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { EntityStore } from '../../src/core/store/entity-store';
import { scanTeamFolder, teamFolderPath } from '../../src/core/team/folder';
import { renderTeamFile, teamFilePath } from '../../src/core/team/format';
import { syncTeamFolder } from '../../src/core/team/sync';
import type { MemoryEntity } from '../../src/core/types';
import { openTemp, tempDir } from './helpers';

const memory = (id: string, content: string): MemoryEntity => ({
  id,
  type: 'memory',
  agentId: '_team',
  content,
  tags: [],
  category: 'fact',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** The team folder's bad input: skipped or refused with a reason, nothing lost, the rest still taken in. */
describe('the team folder on disk', () => {
  let workspace: string;
  let root: string;
  const put = (entity: MemoryEntity, file = teamFilePath(entity)) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), renderTeamFile(entity, { createdBy: 'Ana' }));
    return file;
  };

  beforeEach(() => {
    workspace = tempDir('wm-team-folder-');
    root = path.join(workspace, '.memory');
    fs.mkdirSync(root);
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('must be inside the workspace, by its path and through links', () => {
    assert.equal(teamFolderPath(workspace), root);
    assert.equal(teamFolderPath(workspace, 'docs/team'), path.join(workspace, 'docs', 'team'));
    for (const outside of ['../elsewhere', '/etc', '', 'a/../../b', '.']) {
      assert.throws(() => teamFolderPath(workspace, outside), /inside the workspace/);
    }
    assert.equal(
      teamFolderPath(workspace, path.join(workspace, 'team')),
      path.join(workspace, 'team'),
      'absolute, inside',
    );
    for (const own of ['.git', '.git/memory', '.workspace-memory']) {
      assert.throws(() => teamFolderPath(workspace, own), /git's or the store's own folder/);
    }
    const away = tempDir('wm-team-away-');
    fs.symlinkSync(away, path.join(workspace, 'linked'));
    assert.throws(() => teamFolderPath(workspace, 'linked'), /linked is a link; .* Put the folder in its place/);
    // A link inside the workspace, into git's folder, or to nothing: refused alike, never read through.
    fs.mkdirSync(path.join(workspace, '.git'));
    for (const [name, target] of [
      ['inside', 'docs'],
      ['intogit', '.git'],
      ['dangling', 'missing'],
    ] as const) {
      fs.symlinkSync(target, path.join(workspace, name));
      assert.throws(() => teamFolderPath(workspace, name), new RegExp(`${name} is a link`));
    }
    fs.writeFileSync(path.join(workspace, 'plain'), 'x');
    assert.throws(
      () => teamFolderPath(workspace, 'plain'),
      /plain is a file, not a folder: move it, or choose another/,
    );
    // A link above it that leads out.
    fs.mkdirSync(path.join(away, 'team'));
    assert.throws(
      () => teamFolderPath(workspace, 'linked/team'),
      /leads outside the workspace \(through a link above it\)/,
    );
    fs.rmSync(away, { recursive: true, force: true });
  });

  it('takes in the good files and lists each bad one with why: a link, a non-Markdown file, a folder, a stray file, a file too large, names that differ only in case', () => {
    const good = put(memory('memory-mx00000001a2b3c4d5e6f7', 'Deploys go through the release branch'));
    fs.symlinkSync('/etc/passwd', path.join(root, 'memory', 'linked-aaaaaaaaaaaa.md'));
    fs.writeFileSync(path.join(root, 'memory', 'notes.txt'), 'not a team file');
    fs.mkdirSync(path.join(root, 'memory', 'nested'));
    fs.writeFileSync(path.join(root, 'stray.json'), '{}');
    fs.writeFileSync(path.join(root, 'README.md'), '# Our team memory\n');
    fs.writeFileSync(path.join(root, 'memory', 'big-bbbbbbbbbbbb.md'), 'x'.repeat(4 * 1024 * 1024 + 1));
    const twin = memory('memory-mx0000000cccccccccccc', 'Twin');
    put(twin, 'memory/twin-cccccccccccc.md');
    put({ ...twin, id: 'memory-mx0000000dddddddddddd' }, 'memory/Twin-cccccccccccc.md');

    const scan = scanTeamFolder(root);
    assert.deepEqual(
      scan.entries.map((entry) => entry.path),
      [good],
    );
    const problems = Object.fromEntries(scan.problems.map(({ path: file, problem }) => [file, problem.message]));
    assert.match(problems['memory/linked-aaaaaaaaaaaa.md']!, /is a link; links are not followed/);
    assert.match(problems['memory/notes.txt']!, /not a Markdown file/);
    assert.match(problems['memory/nested']!, /not a Markdown file/);
    assert.match(problems['stray.json']!, /not a team entity/);
    assert.match(problems['memory/big-bbbbbbbbbbbb.md']!, /4\.0 MB; a team file holds at most 4 MB/);
    assert.match(problems['memory/twin-cccccccccccc.md']!, /differ only in case/);
    assert.match(problems['memory/Twin-cccccccccccc.md']!, /differ only in case/);
    assert.equal(problems['README.md'], undefined, "the team's README is left alone");
    assert.equal(scan.problems.length, 7);
  });

  it('a scan with a cache reads again only the files whose size or time changed, and forgets removed ones', () => {
    const entity = memory('memory-mx0000000ffffffffffff', 'Port 8080');
    const file = put(entity);
    const cache = new Map() as Parameters<typeof scanTeamFolder>[1] & object;
    const contentOf = () => {
      const [entry] = scanTeamFolder(root, cache).entries;
      return entry?.input.content;
    };
    const full = path.join(root, file);
    // A whole second, which every file system keeps exactly.
    const mtime = new Date('2026-06-01T10:00:00Z');
    fs.utimesSync(full, mtime, mtime);
    assert.equal(contentOf(), 'Port 8080');
    // Same size and time: taken from the cache (a pull that did not touch it).
    fs.writeFileSync(full, renderTeamFile({ ...entity, content: 'Port 9090' }, { createdBy: 'Ana' }));
    fs.utimesSync(full, mtime, mtime);
    assert.equal(contentOf(), 'Port 8080');
    // Its time moved: read again.
    fs.utimesSync(full, new Date(mtime.getTime() + 5000), new Date(mtime.getTime() + 5000));
    assert.equal(contentOf(), 'Port 9090');
    fs.rmSync(full);
    assert.equal(contentOf(), undefined);
    assert.equal(cache.size, 0);
  });

  it('a folder that does not exist is an empty one', () => {
    assert.deepEqual(scanTeamFolder(path.join(workspace, 'missing')), { entries: [], problems: [] });
  });

  it('a file given two names with one id is refused in both, and its entity keeps its last good version', async () => {
    const entity = memory('memory-mx0000000eeeeeeeeeeee', 'The build uses Node 24');
    const { memory: store, cleanup } = await openTemp({ teamFolder: root });
    try {
      put(entity);
      await store.team!.sync();
      assert.equal((await store.memories.get(entity.id))?.content, 'The build uses Node 24');
      put({ ...entity, content: 'The build uses Node 26' }, 'memory/copy-eeeeeeeeeeee.md');
      const report = await store.team!.sync();
      assert.deepEqual(
        report.problems.map(({ problem }) => problem.code),
        ['DUPLICATE_ID', 'DUPLICATE_ID'],
      );
      assert.equal(
        (await store.memories.get(entity.id))?.content,
        'The build uses Node 24',
        'not deleted, not changed',
      );
      assert.deepEqual(report.removed, []);
    } finally {
      await cleanup();
    }
  });

  it('a memory/ folder replaced by a link is one problem, and its memories keep their last good version', async () => {
    const entity = memory('memory-mx0000000ffffffffffff', 'Logs go to stderr');
    const { memory: store, cleanup } = await openTemp({ teamFolder: root });
    try {
      put(entity);
      await store.team!.sync();
      const elsewhere = tempDir('wm-team-elsewhere-');
      fs.renameSync(path.join(root, 'memory'), path.join(elsewhere, 'memory'));
      fs.symlinkSync(path.join(elsewhere, 'memory'), path.join(root, 'memory'));
      const report = await store.team!.sync();
      assert.equal(report.problems.length, 1);
      assert.deepEqual([report.problems[0]!.path, report.problems[0]!.problem.code], ['memory', 'LOCATION']);
      assert.match(report.problems[0]!.problem.message, /^memory\/ is a link; .* not read through links/);
      assert.deepEqual(report.removed, [], 'a folder that cannot be read removes nothing');
      assert.equal((await store.memories.get(entity.id))?.content, 'Logs go to stderr');
      fs.rmSync(elsewhere, { recursive: true, force: true });
    } finally {
      await cleanup();
    }
  });

  it('a sync that read the folder before another write took its file keeps that write: no stale version, no delete', async () => {
    const { memory: store, cleanup } = await openTemp({ teamFolder: root });
    const entities = (store as unknown as { store: EntityStore }).store;
    const noAuthors = { lastAuthors: new Map(), removedBy: new Map() };
    try {
      const [first] = await store.memories.save('default', undefined, { content: 'Builds run on Node 22' });
      await store.team!.share(first.id);
      // Another command's sync read the folder here…
      const before = scanTeamFolder(root);
      // …then this one changed the team memory and shared another, each with its file, in its transaction.
      await store.memories.update(first.id, { content: 'Builds run on Node 24' });
      const [second] = await store.memories.save('default', undefined, { content: 'Tests run in CI on push' });
      await store.team!.share(second.id);
      // The sync's transaction comes after both: what it read is older than the files.
      const { report } = syncTeamFolder(entities, root, before, noAuthors);
      assert.deepEqual([report.updated, report.removed], [[], []]);
      assert.equal((await store.memories.get(first.id))?.content, 'Builds run on Node 24');
      assert.equal((await store.memories.get(second.id))?.agentId, '_team');
      assert.deepEqual(
        (await store.history(first.id)).map(({ commit }) => commit.message),
        ['update memory', 'share with the team', 'create memory'],
      );
    } finally {
      await cleanup();
    }
  });

  it('a memory keeps what its file cannot carry (the correction it is, its session) through the syncs', async () => {
    const { memory: store, cleanup } = await openTemp({ teamFolder: root });
    try {
      const [old] = await store.memories.save('default', undefined, { content: 'Indent with tabs' });
      const [fix] = await store.memories.save('default', undefined, {
        content: 'Indent with two spaces',
        category: 'correction',
        supersedes: old.id,
        sourceSession: 'session-abc',
      });
      await store.team!.share(fix.id);
      const file = path.join(root, teamFilePath(fix));
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('two spaces', 'two spaces, never tabs'));
      await store.team!.sync();
      const now = (await store.memories.get(fix.id))!;
      assert.deepEqual(
        [now.content, now.supersedes, now.sourceSession],
        ['Indent with two spaces, never tabs', old.id, 'session-abc'],
      );
    } finally {
      await cleanup();
    }
  });

  it('a team file that cannot be written fails the write with the reason, and the store keeps what it had', async () => {
    const { memory: store, cleanup } = await openTemp({ teamFolder: root });
    try {
      const [saved] = await store.memories.save('default', undefined, { content: 'Ports are set in .env' });
      await store.team!.share(saved.id);
      const file = path.join(root, teamFilePath(saved));
      assert.ok(fs.existsSync(file));
      // The file's next text goes through a temporary file beside it: a folder in its place makes the write fail.
      fs.mkdirSync(path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`));
      await assert.rejects(
        store.memories.update(saved.id, { content: 'Ports are set in .env.local' }),
        (error: unknown) =>
          (error as { code?: string }).code === 'TEAM_FOLDER_ACCESS' &&
          /^Could not write the team file of memory-\S+: .* Nothing was saved/.test((error as Error).message),
      );
      assert.equal(
        (await store.memories.get(saved.id))?.content,
        'Ports are set in .env',
        'the store kept what it had',
      );
      assert.match(fs.readFileSync(file, 'utf8'), /Ports are set in \.env\n/, 'and so did the file');
    } finally {
      await cleanup();
    }
  });
});
