import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { FAKE } from './fake-secrets';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/**
 * Team memory through real git: a bare repository as the remote, two clones
 * with different git identities, each with its own store, working only
 * through the CLI as two people would.
 */
describe('team memory through git (two clones of one repository)', function () {
  this.timeout(120_000);
  let base: string;

  /** One person's clone: git as them, the CLI in their clone. */
  function person(name: string, email: string) {
    const dir = path.join(base, name);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', `user.name=${name}`, '-c', `user.email=${email}`, ...args], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const cli = (...args: string[]) => {
      const env = {
        ...process.env,
        WORKSPACE_MEMORY_DIR: '',
        WORKSPACE_MEMORY_WORKSPACE: '',
        WORKSPACE_MEMORY_TEAM_FOLDER: '',
      };
      const result = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', env });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    const json = <T>(...args: string[]): T => {
      const result = cli(...args, '--json');
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout) as T;
    };
    return { dir, git, cli, json };
  }

  let ana: ReturnType<typeof person>;
  let ben: ReturnType<typeof person>;
  const teamFile = (who: typeof ana, id: string) =>
    fs.readdirSync(path.join(who.dir, '.memory', 'memory')).find((name) => name.endsWith(`-${id.slice(-12)}.md`));

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => {
    base = tempDir('wm-team-git-');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', path.join(base, 'remote.git')]);
    ana = person('ana', 'ana@example.org');
    ben = person('ben', 'ben@example.org');
    execFileSync('git', ['clone', '-q', path.join(base, 'remote.git'), ana.dir], { stdio: 'ignore' });
    // The store is each person's own: never committed.
    fs.writeFileSync(path.join(ana.dir, '.gitignore'), '.workspace-memory/\n');
    ana.git('add', '.gitignore');
    ana.git('commit', '-qm', 'start');
    ana.git('push', '-q', 'origin', 'HEAD:main');
    execFileSync('git', ['clone', '-q', path.join(base, 'remote.git'), ben.dir], { stdio: 'ignore' });
    // Who each clone's CLI writes as: git's identity in that clone, as a person's own config would say.
    for (const [who, name] of [
      [ana, 'ana'],
      [ben, 'ben'],
    ] as const) {
      who.git('config', 'user.name', name);
      who.git('config', 'user.email', `${name}@example.org`);
    }
    assert.equal(ana.cli('init').code, 0);
    assert.equal(ben.cli('init').code, 0);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  /** Ana saves a memory and shares it with the team, commits and pushes; its id. */
  function anaShares(content: string): string {
    const { entity } = ana.json<{ entity: { id: string } }>(
      'save',
      'memory',
      '--content',
      content,
      '--category',
      'decision',
    );
    assert.equal(ana.cli('team', 'share', entity.id).code, 0);
    ana.git('add', '.memory');
    ana.git('commit', '-qm', 'share');
    ana.git('push', '-q', 'origin', 'HEAD:main');
    return entity.id;
  }

  it('a memory Ana shares reaches Ben with the pull, as Ana’s; Ben’s edit comes back to Ana as Ben’s', () => {
    const id = anaShares('We deploy with docker compose from deploy/');
    ben.git('pull', '-q', 'origin', 'main');
    const got = ben.json<{ content: string; agentId: string }>('get', id);
    assert.deepEqual([got.content, got.agentId], ['We deploy with docker compose from deploy/', '_team']);
    const [first] = ben.json<{ commit: { author: string } }[]>('history', id);
    assert.equal(first!.commit.author, 'ana <ana@example.org>', "the commit is the file's git author's");
    assert.match(ben.cli('search', 'docker compose').stdout, new RegExp(id));
    assert.match(ben.cli('list', 'memory').stdout, new RegExp(`${id}  team memory/decision`), 'listed with his own');

    const updated = ben.cli('update', id, '--content', 'We deploy with docker compose --wait from deploy/');
    assert.equal(updated.code, 0);
    assert.match(updated.stdout, /; team memory: commit the team folder to share the change$/m);
    assert.match(fs.readFileSync(path.join(ben.dir, '.memory', 'memory', teamFile(ben, id)!), 'utf8'), /--wait/);
    ben.git('commit', '-qam', 'wait for health checks');
    ben.git('push', '-q', 'origin', 'HEAD:main');
    ana.git('pull', '-q', 'origin', 'main');
    assert.equal(ana.json<{ content: string }>('get', id).content, 'We deploy with docker compose --wait from deploy/');
    const [latest] = ana.json<{ commit: { author: string; by: { kind: string } } }[]>('history', id);
    assert.deepEqual([latest!.commit.author, latest!.commit.by.kind], ['ben <ben@example.org>', 'team']);
  });

  it('edits of different memories on both sides merge cleanly; one deleted on one side goes on the other', () => {
    const first = anaShares('Releases are cut on Tuesdays');
    const second = anaShares('The staging database is called blue');
    ben.git('pull', '-q', 'origin', 'main');
    assert.equal(ana.cli('update', first, '--content', 'Releases are cut on Wednesdays').code, 0);
    ana.git('commit', '-qam', 'wednesdays');
    ana.git('push', '-q', 'origin', 'HEAD:main');
    assert.equal(ben.cli('update', second, '--content', 'The staging database is called green').code, 0);
    ben.git('commit', '-qam', 'green');
    ben.git('pull', '-q', '--no-rebase', 'origin', 'main');
    assert.equal(ben.json<{ content: string }>('get', first).content, 'Releases are cut on Wednesdays');
    assert.equal(ben.json<{ content: string }>('get', second).content, 'The staging database is called green');

    assert.equal(ben.cli('delete', first).code, 0);
    assert.equal(teamFile(ben, first), undefined, 'the file went with the memory');
    ben.git('add', '-A', '.memory');
    ben.git('commit', '-qm', 'forget the release day');
    ben.git('push', '-q', 'origin', 'HEAD:main');
    ana.git('pull', '-q', 'origin', 'main');
    const gone = ana.cli('get', first);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /was deleted; its history .* is kept/);
    const [removal] = ana.json<{ commit: { author: string; op: string } }[]>('history', first);
    assert.deepEqual(
      [removal!.commit.op, removal!.commit.author],
      ['delete', 'ben <ben@example.org>'],
      "the delete is Ben's",
    );

    // Ana removes the other file by hand, not yet committed: the delete is hers.
    fs.rmSync(path.join(ana.dir, '.memory', 'memory', teamFile(ana, second)!));
    assert.equal(ana.cli('get', second).code, 1);
    assert.equal(
      ana.json<{ commit: { author: string } }[]>('history', second)[0]!.commit.author,
      'ana <ana@example.org>',
    );
  });

  it('the same memory edited on both sides is a conflict: shown with its fix, the last good version kept, nothing lost', () => {
    const id = anaShares('The API listens on port 8080');
    ben.git('pull', '-q', 'origin', 'main');
    assert.equal(ana.cli('update', id, '--content', 'The API listens on port 9090').code, 0);
    ana.git('commit', '-qam', '9090');
    ana.git('push', '-q', 'origin', 'HEAD:main');
    assert.equal(ben.cli('update', id, '--content', 'The API listens on port 7070').code, 0);
    ben.git('commit', '-qam', '7070');
    assert.throws(() => ben.git('pull', '-q', '--no-rebase', 'origin', 'main'));
    assert.equal(ben.git('diff', '--name-only', '--diff-filter=U').trim(), `.memory/memory/${teamFile(ben, id)!}`);

    // While the file holds both sides, the memory is not written over it (nor beside it).
    const refused = ben.cli('update', id, '--tags', 'api');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not taken in \(.*conflict.*\): resolve that first/i);
    // Nor deleted or made personal: the file would bring it back, and the team would never see the change.
    assert.equal(ben.cli('delete', id).code, 1);
    assert.equal(ben.cli('team', 'unshare', id).code, 1);
    assert.equal(ben.json<{ agentId: string }>('get', id).agentId, '_team');
    assert.equal(fs.readdirSync(path.join(ben.dir, '.memory', 'memory')).length, 1, 'no second file for the id');
    const status = ben.cli('team', 'status');
    assert.equal(status.code, 3, 'a file not taken in is a finding, for scripts');
    assert.match(status.stdout, /problem {2}memory\/.*\.md:\d+: .*conflict/i);
    assert.match(status.stdout, /fix: /);
    assert.match(status.stderr, /1 team file not taken in/);
    assert.equal(
      ben.json<{ content: string }>('get', id).content,
      'The API listens on port 7070',
      'the last good version',
    );
    // Both sides are still there to choose from: Ana's in the file, Ben's in the file and the store.
    const conflicted = fs.readFileSync(path.join(ben.dir, '.memory', 'memory', teamFile(ben, id)!), 'utf8');
    assert.match(conflicted, /9090/);
    assert.match(conflicted, /7070/);

    // Resolved by hand: the store follows.
    fs.writeFileSync(
      path.join(ben.dir, '.memory', 'memory', teamFile(ben, id)!),
      conflicted.replace(/<<<<<<< .*\n[\s\S]*?=======\n([\s\S]*?)>>>>>>> .*\n/, '$1').replace(/7070|9090/, '9090'),
    );
    ben.git('commit', '-qam', 'resolve');
    assert.equal(ben.json<{ content: string }>('get', id).content, 'The API listens on port 9090');
  });

  it('sharing and making personal again leave a store that verifies, and a file never takes over a memory of one’s own', () => {
    const id = anaShares('The cache is warmed at 06:00');
    ana.git('checkout', '-q', '-b', 'kept');
    ana.git('checkout', '-q', 'main');
    assert.equal(ana.cli('team', 'unshare', id).code, 0);
    ana.git('add', '-A', '.memory');
    ana.git('commit', '-qm', 'mine again');
    assert.equal(ana.cli('update', id, '--content', 'My own note: the cache is warmed at 05:30').code, 0);
    assert.equal(ana.cli('verify').code, 0, ana.cli('verify').stdout);
    // A branch that still has the team file: the memory stays Ana's, as she wrote it.
    ana.git('checkout', '-q', 'kept');
    const mine = ana.json<{ agentId: string; content: string }>('get', id);
    assert.deepEqual([mine.agentId, mine.content], ['default', 'My own note: the cache is warmed at 05:30']);
    assert.match(ana.cli('team', 'status').stdout, /belongs to a memory of your own in this store/);
    assert.equal(ana.cli('verify').code, 0);
  });

  it('a checkout without the team folder takes the team memory out of the store, and back in with it', () => {
    const id = anaShares('Alerts go to the ops channel');
    ana.git('checkout', '-q', 'HEAD~1');
    assert.doesNotMatch(ana.cli('search', 'alerts ops channel').stdout, new RegExp(id));
    ana.git('checkout', '-q', 'main');
    assert.match(ana.cli('search', 'alerts ops channel').stdout, new RegExp(id));
  });

  it('a branch switch swaps the team memory, and switching back brings it back', () => {
    const id = anaShares('Feature flags live in flags.yaml');
    ana.git('checkout', '-q', '-b', 'experiment');
    const other = ana.json<{ entity: { id: string } }>(
      'save',
      'memory',
      '--content',
      'Experiments run behind the lab flag',
    ).entity.id;
    assert.equal(ana.cli('team', 'share', other).code, 0);
    ana.git('add', '.memory');
    ana.git('commit', '-qm', 'lab');
    ana.git('checkout', '-q', 'main');
    assert.equal(ana.cli('get', other).code, 1, 'not on main');
    assert.equal(ana.json<{ content: string }>('get', id).content, 'Feature flags live in flags.yaml');
    ana.git('checkout', '-q', 'experiment');
    assert.equal(ana.json<{ content: string }>('get', other).content, 'Experiments run behind the lab flag');
  });

  it('team check passes a clean folder and exits 3 on a broken file, a secret and a near-duplicate, without a store', () => {
    anaShares('Use pnpm, never npm, in this repository');
    const clean = spawnSync(process.execPath, [CLI, 'team', 'check', ana.dir], { encoding: 'utf8' });
    assert.deepEqual(
      [clean.status, clean.stdout.trim()],
      [0, '1 team file checked in ' + path.relative(process.cwd(), path.join(ana.dir, '.memory')) + ': nothing to fix'],
    );
    const folder = path.join(ana.dir, '.memory', 'memory');
    fs.writeFileSync(path.join(folder, 'broken-000000000000.md'), '---\nid: [\n---\nx\n');
    fs.writeFileSync(
      path.join(folder, 'token-2c6d1a3b9e8f.md'),
      `---\nid: memory-mx00000002c6d1a3b9e8f\ntype: memory\n---\nThe deploy token is ${FAKE.githubClassic}\n`,
    );
    // Said again in other words: a copy to merge.
    fs.copyFileSync(
      path.join(
        folder,
        fs.readdirSync(folder).find((name) => name.startsWith('use-pnpm'))!,
      ),
      path.join(folder, 'copy-3d7e2b4c0f9a.md'),
    );
    const copied = path.join(folder, 'copy-3d7e2b4c0f9a.md');
    fs.writeFileSync(
      copied,
      fs
        .readFileSync(copied, 'utf8')
        .replace(/^id: .*$/m, 'id: memory-mx00000003d7e2b4c0f9a')
        .replace('never npm, in this repository', 'never npm in this repository'),
    );
    const report = spawnSync(process.execPath, [CLI, 'team', 'check', ana.dir, '--json'], { encoding: 'utf8' });
    assert.equal(report.status, 3, report.stderr);
    const { findings } = JSON.parse(report.stdout) as { findings: { kind: string; path: string; message: string }[] };
    assert.deepEqual(
      findings.filter(({ kind }) => kind !== 'duplicate').map(({ kind, path: file }) => `${kind} ${file}`),
      ['file memory/broken-000000000000.md', 'secret memory/token-2c6d1a3b9e8f.md'],
    );
    // The pair once, from either side, naming the other file.
    const [duplicate, ...more] = findings.filter(({ kind }) => kind === 'duplicate');
    assert.equal(more.length, 0);
    const original = `memory/${fs.readdirSync(folder).find((name) => name.startsWith('use-pnpm'))!}`;
    const pair = [duplicate!.path, /says nearly what (\S+) says/.exec(duplicate!.message)?.[1]].sort();
    assert.deepEqual(pair, ['memory/copy-3d7e2b4c0f9a.md', original].sort());
    // Every file counts as checked, those with findings too.
    assert.equal((JSON.parse(report.stdout) as { files: number }).files, 4);

    // From a subfolder of the repository, without an argument: the repository's team folder, not none.
    fs.mkdirSync(path.join(ana.dir, 'src', 'deep'), { recursive: true });
    const below = spawnSync(process.execPath, [CLI, 'team', 'check'], {
      cwd: path.join(ana.dir, 'src', 'deep'),
      encoding: 'utf8',
    });
    assert.equal(below.status, 3);
    assert.match(below.stdout, /4 team files checked/);
  });

  it('team check --staged judges what the commit will hold, not the working tree', () => {
    anaShares('Releases are tagged from main');
    const folder = path.join(ana.dir, '.memory', 'memory');
    const file = path.join(folder, 'token-2c6d1a3b9e8f.md');
    fs.writeFileSync(
      file,
      `---\nid: memory-mx00000002c6d1a3b9e8f\ntype: memory\n---\nThe deploy token is ${FAKE.githubClassic}\n`,
    );
    ana.git('add', '.memory');
    // Taken out of the working copy only: the commit would still carry it.
    fs.writeFileSync(
      file,
      `---\nid: memory-mx00000002c6d1a3b9e8f\ntype: memory\n---\nThe deploy token is in the vault\n`,
    );
    const tree = spawnSync(process.execPath, [CLI, 'team', 'check'], { cwd: ana.dir, encoding: 'utf8' });
    assert.equal(tree.status, 0, tree.stdout);
    const staged = spawnSync(process.execPath, [CLI, 'team', 'check', '--staged', '--json'], {
      cwd: ana.dir,
      encoding: 'utf8',
    });
    assert.equal(staged.status, 3, staged.stderr);
    const report = JSON.parse(staged.stdout) as { folder: string; findings: { kind: string; path: string }[] };
    assert.deepEqual(
      report.findings.map(({ kind, path: found }) => `${kind} ${found}`),
      ['secret memory/token-2c6d1a3b9e8f.md'],
    );
    assert.equal(report.folder, path.join(ana.dir, '.memory'), 'named as the real folder');
  });
});
