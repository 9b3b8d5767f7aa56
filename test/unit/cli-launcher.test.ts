import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { listening } from './http-fixture';

/**
 * bin/workspace-memory.js is the command `npm link` puts on the PATH: it runs
 * the CLI under the `node` it was started with when that has node:sqlite, and
 * under the project's own Node 24 otherwise.
 */
const root = path.resolve(__dirname, '../..');
const LAUNCHER = path.join(root, 'bin', 'workspace-memory.js');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

function run(node: string, args: string[]) {
  return spawnSync(node, [LAUNCHER, ...args], { encoding: 'utf8', timeout: 30_000 });
}

/** A `node` older than 22.13 on this machine (the build machines have Node 20), if any. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const probe = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const [major, minor] = (probe.stdout ?? '').trim().split('.').map(Number);
    if (probe.status === 0 && major !== undefined && (major < 22 || (major === 22 && (minor ?? 0) < 13)))
      return candidate;
  }
  return undefined;
}

/** `promise`, or a failure naming `what` if it takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

interface Launched {
  launcher: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; after: number }>;
}

/** `workspace-memory serve` through the launcher started by `node`, once it listens. */
function launchServe(node: string, dir: string): Promise<Launched> {
  const launcher = spawn(node, [LAUNCHER, 'serve', '--dir', dir, '--port', '0', '--json']);
  let [stdout, stderr] = ['', ''];
  launcher.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let signalled = 0;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; after: number }>((resolve) =>
    launcher.on('exit', (code, signal) => resolve({ code, signal, after: Date.now() - signalled })),
  );
  const kill = launcher.kill.bind(launcher);
  launcher.kill = (signal?: NodeJS.Signals | number) => {
    signalled = Date.now();
    return kill(signal);
  };
  return new Promise((resolve, reject) => {
    launcher.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        const { url } = JSON.parse(stdout) as { url: string };
        resolve({ launcher, url, stderr: () => stderr, exited });
      } catch {
        // Not all of it yet.
      }
    });
    void exited.then(({ code }) => reject(new Error(`the launcher exited with ${code} before listening: ${stderr}`)));
  });
}

describe('the workspace-memory command (bin/workspace-memory.js)', () => {
  it('is the package bin', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    assert.equal(path.resolve(root, manifest.bin['workspace-memory']!), LAUNCHER);
  });

  it('runs the CLI under a Node that has node:sqlite', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-launcher-'));
    try {
      const result = run(process.execPath, ['init', '--dir', dir]);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /store ready/);
      assert.equal(run(process.execPath, ['--version']).stdout.trim(), version);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs the CLI under the project’s own Node when the one on the PATH is too old', function () {
    const old = olderNode();
    if (!old) {
      console.log('      (skipped: no Node older than 22.13 on this machine to start it with)');
      this.skip();
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-launcher-'));
    try {
      assert.equal(run(old, ['init', '--dir', dir]).status, 0);
      const result = run(old, ['save', 'memory', '--dir', dir, '--content', 'launched by an old node', '--json']);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(
        (JSON.parse(result.stdout) as { entity: { content: string } }).entity.content,
        'launched by an old node',
      );
      // A failing command's status comes through.
      assert.equal(run(old, ['get', 'memory-none', '--dir', dir]).status, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a long-running command under the project’s own Node', function () {
    this.timeout(40_000);
    let old: string | undefined;
    let dir: string;
    before(function () {
      old = olderNode();
      if (!old) {
        console.log('      (skipped: no Node older than 22.13 on this machine to start it with)');
        this.skip();
      }
    });
    beforeEach(() => (dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-launcher-')), '.workspace-memory')));
    afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`passes ${signal} on to it and exits as it did`, async () => {
        const serving = await launchServe(old!, dir);
        try {
          serving.launcher.kill(signal);
          const exited = await within(serving.exited, 8000, `the launcher's exit after ${signal}`);
          assert.deepEqual({ code: exited.code, signal: exited.signal }, { code: 0, signal: null }, serving.stderr());
          assert.ok(exited.after < 5000, `exited ${exited.after} ms after ${signal}`);
          assert.match(serving.stderr(), new RegExp(`${signal}: finishing the requests in flight`));
          assert.equal(await listening(serving.url), false);
        } finally {
          serving.launcher.kill('SIGKILL');
        }
      });
    }

    it('stops `serve` when the launcher is killed outright (SIGKILL), leaving no orphan serving', async () => {
      const serving = await launchServe(old!, dir);
      serving.launcher.kill('SIGKILL');
      await serving.exited;
      const deadline = Date.now() + 8000;
      while ((await listening(serving.url)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await listening(serving.url), false, 'the server outlived its launcher');
    });

    it('passes SIGTERM on to `mcp`, which waits on standard input', async () => {
      const launcher = spawn(old!, [LAUNCHER, 'mcp', '--dir', dir]);
      let stderr = '';
      const serving = new Promise<void>((resolve) =>
        launcher.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('serving ')) resolve();
        }),
      );
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        launcher.on('exit', (code, signal) => resolve({ code, signal })),
      );
      try {
        await serving;
        const started = Date.now();
        launcher.kill('SIGTERM');
        assert.deepEqual(
          await within(exited, 8000, "the launcher's exit after SIGTERM"),
          { code: 0, signal: null },
          stderr,
        );
        assert.ok(Date.now() - started < 5000);
      } finally {
        launcher.kill('SIGKILL');
      }
    });
  });
});
