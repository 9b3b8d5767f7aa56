import * as assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Command } from 'commander';

import { registerRagCommands } from '../../src/server/cli/rag-commands';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function cli(args: string[], input?: string, env?: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T = Record<string, unknown>>(args: string[], input?: string): T {
  const result = cli([...args, '--json'], input);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

/**
 * Runs the CLI with an OpenAI-compatible chat or embeddings endpoint that
 * never answers, and presses Ctrl-C (a real SIGINT) once its first request is in.
 */
async function cliStoppedByCtrlC(args: string[], endpoint: 'CHAT' | 'EMBED') {
  let child: ChildProcess | undefined;
  const server = http.createServer(() => child?.kill('SIGINT'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const env = {
      ...process.env,
      [`WORKSPACE_MEMORY_${endpoint}_URL`]: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      [`WORKSPACE_MEMORY_${endpoint}_MODEL`]: 'fake',
    };
    child = spawn(process.execPath, [CLI, ...args], { env });
    let [stdout, stderr] = ['', ''];
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child?.on('close', resolve));
    return { code, stdout, stderr };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
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

  it('init keeps the store out of git, and leaves a .gitignore of its own alone', () => {
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\*$/m);
    fs.writeFileSync(path.join(dir, '.gitignore'), 'mine\n');
    assert.equal(cli(['init', '--dir', dir]).code, 0);
    assert.equal(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), 'mine\n');
  });

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

  it('updates the content from standard input, and only the other fields when nothing is piped', () => {
    const id = json<{ entity: { id: string } }>(['save', 'memory', '--dir', dir, '--content', 'Use pnpm']).entity.id;
    type Updated = { entity: { content: string; tags: string[] } };
    assert.equal(json<Updated>(['update', id, '--dir', dir], 'Use npm\n').entity.content, 'Use npm');
    const tagged = json<Updated>(['update', id, '--dir', dir, '--tags', 'a,b'], '');
    assert.deepEqual([tagged.entity.content, tagged.entity.tags], ['Use npm', ['a', 'b']]);
    // `while read id; do update $id --tags t; done < ids.txt`: the rest of the file is not the content.
    const looped = json<Updated>(['update', id, '--dir', dir, '--tags', 'c'], 'second-id\nthird-id\n');
    assert.deepEqual([looped.entity.content, looped.entity.tags], ['Use npm', ['c']]);
    const nothing = cli(['update', id, '--dir', dir], '');
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /Nothing to update.*standard input.*\[INVALID_INPUT\]/);
  });

  it('takes an empty or blank WORKSPACE_MEMORY_USER and WORKSPACE_MEMORY_AGENT as unset', () => {
    const env = { ...process.env, WORKSPACE_MEMORY_USER: '', WORKSPACE_MEMORY_AGENT: ' ' };
    const result = cli(['save', 'memory', '--dir', dir, '--content', 'x', '--json'], '', env);
    assert.equal(result.code, 0, result.stderr);
    const { entity } = JSON.parse(result.stdout) as { entity: { agentId: string; userId?: string } };
    assert.deepEqual([entity.agentId, entity.userId], ['default', undefined]);
    const blankUser = cli(['list', 'memory', '--dir', dir], '', { ...env, WORKSPACE_MEMORY_USER: '  ' });
    assert.equal(blankUser.code, 0, blankUser.stderr);
    const padded = cli(['save', 'memory', '--dir', dir, '--content', 'y', '--json'], '', {
      ...env,
      WORKSPACE_MEMORY_AGENT: ' team ',
    });
    assert.equal((JSON.parse(padded.stdout) as { entity: { agentId: string } }).entity.agentId, 'team');
  });

  it('snapshots, restores, exports, imports, verifies, cleans up and reports stats', () => {
    json(['save', 'memory', '--dir', dir, '--content', 'kept']);
    const snapshot = json<{ id: string }>(['snapshot', 'create', 'first', '--dir', dir]);
    json(['save', 'memory', '--dir', dir, '--content', 'dropped by restore']);
    assert.equal(json<unknown[]>(['snapshot', 'list', '--dir', dir]).length, 1);
    json(['snapshot', 'restore', snapshot.id, '--dir', dir, '--yes']);
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
      [
        ['import', path.join(dir, 'nope.json'), '--dir', dir],
        /Cannot read .*nope\.json: no such file\. \[INVALID_INPUT\]/,
        1,
      ],
      [['import', dir, '--dir', dir], /Cannot read .*: it is a folder, not a file\. \[INVALID_INPUT\]/, 1],
      [['save', 'memory', '--dir', dir, '--file', path.join(dir, 'nope.md')], /nope\.md: no such file/, 1],
      [
        ['export', '--dir', dir, '--out', path.join(dir, 'missing', 'x.json')],
        /Cannot write .*x\.json: the folder .*missing does not exist\. \[INVALID_INPUT\]/,
        1,
      ],
      [['export', '--dir', dir, '--out', dir], /Cannot write .*: it is a folder, not a file\. \[INVALID_INPUT\]/, 1],
      [['snapshot', 'restore', 'snap-nope', '--dir', dir], /SNAPSHOT_NOT_FOUND/, 1],
      [['stats', '--dir', path.join(dir, 'not-a-store')], /init/, 1],
      [['frobnicate'], /unknown command/, 2],
      [['import', '-', '--dir', dir], /Only export version 1 is supported\. \[IMPORT_INVALID\]/, 1],
    ];
    for (const [args, pattern, code] of cases) {
      const result = cli(args, args.includes('-') ? '{"version": 99, "entities": {}}' : '');
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      // A message that quotes another sentence ends once: no "supported.. [CODE]".
      assert.doesNotMatch(result.stderr, /[.!?:;,]\. \[/, 'doubled punctuation');
      if (code === 1) assert.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
    }
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 0, 'nothing was written');
  });

  it('exits 130 after the partial report when Ctrl-C stops a rag sync', async () => {
    const docs = tempDir('wm-cli-docs-');
    for (const name of ['a.md', 'b.md']) fs.writeFileSync(path.join(docs, name), `# ${name}\n\nSome text.\n`);
    const program = new Command().exitOverride();
    registerRagCommands(program);
    const listening = process.listeners('SIGINT');
    // Ctrl-C on the first progress line, when the sync is under way. Its listener is
    // called directly: a real SIGINT would reach mocha's own listener too.
    const ctrlC = () => process.listeners('SIGINT').find((listener) => !listening.includes(listener))?.('SIGINT');
    const { stdout, stderr } = process;
    // The originals, to put back: assigned back onto their own streams, so their `this` is right.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const [writeOut, writeErr] = [stdout.write, stderr.write];
    const isTTY = Object.getOwnPropertyDescriptor(stderr, 'isTTY');
    let out = '';
    Object.defineProperty(stderr, 'isTTY', { value: true, configurable: true });
    stderr.write = (chunk: string) => (chunk.startsWith('\r1 of') && ctrlC(), true);
    stdout.write = (chunk: string) => ((out += chunk), true);
    try {
      await program.parseAsync(['node', 'workspace-memory', 'rag', 'sync', docs, '--dir', dir]);
      assert.match(out, /^stopped: [01] added/m);
      assert.equal(process.exitCode, 130);
    } finally {
      stdout.write = writeOut;
      stderr.write = writeErr;
      if (isTTY) Object.defineProperty(stderr, 'isTTY', isTTY);
      else delete (stderr as { isTTY?: boolean }).isTTY;
      process.exitCode = undefined;
      fs.rmSync(docs, { recursive: true, force: true });
    }
  });

  it('exits 130 when Ctrl-C stops an embed backfill, after its report', async () => {
    json(['save', 'memory', '--dir', dir, '--content', 'Use pnpm']);
    const result = await cliStoppedByCtrlC(['embed', '--dir', dir], 'EMBED');
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stdout, /^stopped: embedded 0/);
  });

  it('exits 130 when Ctrl-C cancels a run before it has anything to report', async () => {
    const session = json<{ entity: { id: string } }>(['save', 'session', '--dir', dir, '--content', 'We set up CI.']);
    const result = await cliStoppedByCtrlC(['mine', session.entity.id, '--dir', dir], 'CHAT');
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /\[CANCELLED\]/);
  });

  it('refuses --max-chars 0, deletes a repeated id once, and says when recall left items out for the budget', () => {
    const docs = tempDir('wm-cli-docs-');
    fs.writeFileSync(path.join(docs, 'a.md'), '# Kafka\n\nKafka retention is seven days.\n');
    const bad = cli(['rag', 'sync', docs, '--dir', dir, '--max-chars', '0']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /maxChars .*\[INVALID_INPUT\]/);
    const saved = json<{ entity: { id: string } }>(['save', 'memory', '--dir', dir, '--content', 'Kafka keeps data']);
    const deleted = cli(['delete', saved.entity.id, saved.entity.id, '--dir', dir]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout.trim().split('\n').length, 1, deleted.stdout);
    json(['save', 'memory', '--dir', dir, '--content', 'Kafka retention is seven days on the staging cluster']);
    assert.match(
      cli(['recall', 'kafka retention', '--dir', dir, '--max-chars', '50']).stdout,
      /did not fit the budget/,
    );
    fs.rmSync(docs, { recursive: true, force: true });
  });

  it('delete says which entity went, by its first words and id, and where its history is; --json gives the commits', () => {
    const content = 'Staging deploys need the VPN: connect with the ops profile before running make deploy-staging';
    const saved = json<{ entity: { id: string } }>(['save', 'memory', '--dir', dir, '--content', content]);
    const id = saved.entity.id;
    const deleted = cli(['delete', id, '--dir', dir]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(
      deleted.stdout,
      `deleted memory “Staging deploys need the VPN: connect with the…” (${id}); its history is kept: workspace-memory history ${id}\n`,
    );
    assert.equal(cli(['history', id, '--dir', dir]).code, 0);
    const other = json<{ entity: { id: string } }>(['save', 'memory', '--dir', dir, '--content', 'Short one']);
    const commits = json<{ entityId: string; op: string }[]>(['delete', other.entity.id, '--dir', dir]);
    assert.deepEqual(
      commits.map((commit) => [commit.entityId, commit.op]),
      [[other.entity.id, 'delete']],
    );
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

  it('says an empty store file is empty, and init makes it a store again', () => {
    const empty = tempDir('wm-cli-empty-');
    try {
      fs.writeFileSync(path.join(empty, 'memory.db'), '');
      const stats = cli(['stats', '--dir', empty]);
      assert.equal(stats.code, 1);
      assert.match(stats.stderr, /is empty.*\[STORE_CORRUPT\]/);
      assert.equal(cli(['init', '--dir', empty]).code, 0);
      assert.equal(cli(['stats', '--dir', empty]).code, 0);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
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
