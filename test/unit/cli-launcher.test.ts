import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * bin/workspace-memory.js is the command `npm link` puts on the PATH: it runs
 * the CLI under the `node` it was started with when that has node:sqlite, and
 * under the project's own Node 24 otherwise.
 */
const root = path.resolve(__dirname, '../..');
const launcher = path.join(root, 'bin', 'workspace-memory.js');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

function run(node: string, args: string[]) {
  return spawnSync(node, [launcher, ...args], { encoding: 'utf8', timeout: 30_000 });
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

describe('the workspace-memory command (bin/workspace-memory.js)', () => {
  it('is the package bin', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    assert.equal(path.resolve(root, manifest.bin['workspace-memory']!), launcher);
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
});
