import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { tempDir } from './helpers';
import { CLI, listening, startServe } from './http-fixture';

const ROOT = path.join(__dirname, '..', '..');

function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('http serve command', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => (dir = path.join(tempDir('wm-http-cli-'), '.workspace-memory')));
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('says where it listens and where the token is, but not the token', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--dir', dir, '--port', '0']);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise<void>((resolve) => child.stdout.on('data', () => stdout.includes('Ctrl-C') && resolve()));
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    const token = fs.readFileSync(path.join(dir, 'http-token'), 'utf8').trim();
    assert.match(stdout, /^Serving .* at http:\/\/127\.0\.0\.1:\d+$/m);
    assert.ok(stdout.includes(`Token: in ${path.join(dir, 'http-token')} (new)`), stdout);
    assert.ok(!stdout.includes(token));
  });

  it('prints the token when asked', async () => {
    const serving = await startServe(['--dir', dir, '--print-token']);
    serving.child.kill('SIGTERM');
    assert.equal((await serving.exited).code, 0);
    assert.equal(serving.info.token, fs.readFileSync(serving.info.tokenFile, 'utf8').trim());
  });

  it('refuses an address other machines can reach without --allow-remote, before opening anything', () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
      const result = cli(['serve', '--dir', dir, '--host', host, '--port', '0']);
      assert.equal(result.code, 1, host);
      assert.match(result.stderr, new RegExp(`Refusing to listen on ${host}.*--allow-remote`));
      assert.equal(fs.existsSync(dir), false);
    }
  });

  it('listens on every interface with --allow-remote, warning on standard error', async () => {
    const serving = await startServe(['--dir', dir, '--host', '0.0.0.0', '--allow-remote']);
    assert.match(serving.stderr(), /warning: listening on 0\.0\.0\.0, which other machines can reach/);
    assert.match(serving.info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await listening(serving.info.url), true);
    serving.child.kill('SIGTERM');
    assert.equal((await serving.exited).code, 0);
  });

  it('refuses a token file others can read without a stray line from the team folder sync it began', function () {
    if (process.platform === 'win32') this.skip();
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'http-token');
    fs.writeFileSync(file, `${'a'.repeat(43)}\n`, { mode: 0o600 });
    // A team folder to sync, as in a repository that has one.
    fs.mkdirSync(path.join(path.dirname(dir), '.memory'));
    fs.chmodSync(file, 0o644);
    for (let run = 0; run < 3; run++) {
      const result = cli(['serve', '--dir', dir, '--port', '0']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /can be read or written by other users/);
      // Before the fix: "workspace-memory serve: team folder: The store is closed."
      assert.doesNotMatch(result.stderr, /team folder|store is closed/, result.stderr);
    }
  });

  it('says so when the port is taken, and refuses a port that is none', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const result = cli(['serve', '--dir', dir, '--port', String(port)]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`port ${port} is in use; choose another with --port`));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    for (const port of ['65536', '-1', 'http']) {
      assert.equal(cli(['serve', '--dir', dir, '--port', port]).code, 2, port);
    }
  });

  it('on SIGTERM, stops accepting, finishes the request in flight, closes the store and exits 0', async () => {
    // A search waits on the embeddings endpoint: this one holds the query's request until told.
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inFlight: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (inFlight = resolve));
    const embedder = http.createServer((incoming, outgoing) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () => {
        const input = (JSON.parse(body) as { input: string[] }).input;
        const answer = () =>
          outgoing.end(JSON.stringify({ data: input.map((_, index) => ({ index, embedding: [1, 0, 0] })) }));
        if (input.includes('what is in flight')) {
          inFlight();
          void held.then(answer);
        } else answer();
      });
    });
    await new Promise<void>((resolve) => embedder.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        ...process.env,
        WORKSPACE_MEMORY_EMBED_URL: `http://127.0.0.1:${(embedder.address() as AddressInfo).port}/v1`,
        WORKSPACE_MEMORY_EMBED_MODEL: 'fake',
      };
      const serving = await startServe(['--dir', dir, '--print-token'], env);
      const search = fetch(`${serving.info.url}/v1/memory_search?query=what+is+in+flight`, {
        headers: { Authorization: `Bearer ${serving.info.token}` },
      });
      await arrived;
      serving.child.kill('SIGTERM');
      // Once the signal is handled, no new connection is taken, while the search still waits.
      const deadline = Date.now() + 10_000;
      while ((await listening(serving.info.url)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await listening(serving.info.url), false);
      release?.();
      const answer = await search;
      assert.equal(answer.status, 200);
      assert.match(((await answer.json()) as { text: string }).text, /No memories match "what is in flight"/);
      assert.deepEqual(await serving.exited, { code: 0, signal: null });
      assert.match(serving.stderr(), /SIGTERM: finishing the requests in flight, then closing the store/);
      // Closed cleanly: the write-ahead log was folded into the database and removed.
      assert.equal(fs.existsSync(path.join(dir, 'memory.db-wal')), false);
    } finally {
      release?.();
      await new Promise((resolve) => embedder.close(resolve));
    }
  });
});
