import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function cli(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T = Record<string, unknown>>(args: string[], input?: string): T {
  const result = cli([...args, '--json'], input);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

describe('cli', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => {
    dir = tempDir('wm-cli-');
    assert.equal(cli(['init', '--dir', dir]).code, 0);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('saves, gets, updates, lists, shows history and deletes', () => {
    const saved = json<{ entity: { id: string; tags: string[]; category: string } }>([
      'save',
      'memory',
      '--dir',
      dir,
      '--agent',
      'a',
      '--user',
      'u',
      '--content',
      'Use pnpm',
      '--tags',
      'tooling,js',
      '--category',
      'decision',
    ]);
    const id = saved.entity.id;
    assert.deepEqual(saved.entity.tags, ['tooling', 'js']);
    assert.equal(saved.entity.category, 'decision');
    assert.equal(json<{ content: string }>(['get', id, '--dir', dir]).content, 'Use pnpm');
    json(['update', id, '--dir', dir, '--content', 'Use npm']);
    const page = json<{ items: { id: string }[]; total: number }>(['list', 'memory', '--dir', dir, '--agent', 'a']);
    assert.equal(page.total, 1);
    json(['delete', id, '--dir', dir]);
    const history = json<{ commit: { op: string } }[]>(['history', id, '--dir', dir]);
    assert.deepEqual(
      history.map((h) => h.commit.op),
      ['delete', 'update', 'create'],
    );
    assert.match(cli(['history', id, '--dir', dir]).stdout, /delete/);
  });

  it('reads content from standard input and takes other fields as --input JSON', () => {
    const saved = json<{ entity: { content: string; messages: unknown[]; conversationId: string } }>([
      'save',
      'session',
      '--dir',
      dir,
      '--input',
      '{"messages":[{"role":"user","content":"hi"}]}',
      '--conversation',
      'c1',
    ]);
    assert.equal(saved.entity.conversationId, 'c1');
    assert.equal(saved.entity.messages.length, 1);
    const piped = json<{ entity: { content: string } }>(['save', 'skill', '--dir', dir], 'Deploy with make\n');
    assert.equal(piped.entity.content, 'Deploy with make');
  });

  it('snapshots, restores, exports, imports, verifies, cleans up and reports stats', () => {
    json(['save', 'memory', '--dir', dir, '--content', 'kept']);
    const snapshot = json<{ id: string }>(['snapshot', 'create', 'first', '--dir', dir]);
    json(['save', 'memory', '--dir', dir, '--content', 'dropped by restore']);
    assert.equal(json<unknown[]>(['snapshot', 'list', '--dir', dir]).length, 1);
    json(['snapshot', 'restore', snapshot.id, '--dir', dir]);
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 1);

    const file = path.join(dir, 'export.json');
    json(['export', '--dir', dir, '--out', file]);
    const other = tempDir('wm-cli-import-');
    try {
      cli(['init', '--dir', other]);
      assert.equal(json<{ imported: number }>(['import', file, '--dir', other]).imported, 1);
      assert.equal(json<{ skipped: number }>(['import', file, '--dir', other, '--skip-existing']).skipped, 1);
      const piped = path.join(other, 'piped');
      cli(['init', '--dir', piped]);
      assert.equal(
        json<{ imported: number }>(['import', '-', '--dir', piped], fs.readFileSync(file, 'utf8')).imported,
        1,
      );
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
    assert.equal(json<{ valid: boolean }>(['verify', '--dir', dir]).valid, true);
    const dry = json<{ dryRun: boolean; removed: number }>([
      'cleanup',
      '--dir',
      dir,
      '--max-age-days',
      '0',
      '--dry-run',
    ]);
    assert.equal(dry.dryRun, true);
    assert.equal(dry.removed, 1);
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 1);
  });

  it('fails with a one-line reason and a non-zero exit on bad input', () => {
    const cases: [string[], RegExp, number][] = [
      [['get', 'a/b', '--dir', dir], /INVALID_ID/, 1],
      [['get', 'memory-missing', '--dir', dir], /NOT_FOUND/, 1],
      [['save', 'note', '--dir', dir, '--content', 'x'], /UNKNOWN_TYPE/, 1],
      [['save', 'memory', '--dir', dir, '--content', 'x', '--category', 'gossip'], /INVALID_INPUT/, 1],
      [['list', 'memory', '--dir', dir, '--limit', '1000'], /LIMIT_TOO_LARGE/, 1],
      [['import', path.join(dir, 'nope.json'), '--dir', dir], /Cannot read/, 1],
      [['snapshot', 'restore', 'snap-nope', '--dir', dir], /SNAPSHOT_NOT_FOUND/, 1],
      [['stats', '--dir', path.join(dir, 'not-a-store')], /init/, 1],
      [['frobnicate'], /unknown command/, 2],
    ];
    for (const [args, pattern, code] of cases) {
      const result = cli(args, '');
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      if (code === 1) assert.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
    }
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 0, 'nothing was written');
  });

  it('verify exits 1 on a damaged store', () => {
    json(['save', 'memory', '--dir', dir, '--content', 'original']);
    const db = new DatabaseSync(path.join(dir, 'memory.db'));
    db.exec(`UPDATE objects SET data = replace(data, 'original', 'forged')`);
    db.close();
    const result = cli(['verify', '--dir', dir]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /OBJECT_HASH_MISMATCH/);
  });

  it('has --help on every command', () => {
    for (const command of [
      'init',
      'save',
      'get',
      'list',
      'history',
      'update',
      'delete',
      'snapshot',
      'export',
      'import',
      'stats',
      'verify',
      'cleanup',
    ]) {
      const result = cli([command, '--help']);
      assert.equal(result.code, 0, command);
      assert.match(result.stdout, /Usage: workspace-memory/);
    }
  });
});
