import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Memory } from '../../src/core/memory';
import { tempDir } from './helpers';

const WRITER = path.join(__dirname, '..', 'fixtures', 'writer.ts');

function startWriter(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
}

describe('durability across processes', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(async () => {
    dir = tempDir('wm-durability-');
    await (await Memory.open({ dir })).close(); // create the store first
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('two processes writing the same store at once lose nothing', async () => {
    const perWriter = 300;
    const writers = [
      startWriter(dir, 'singles', String(perWriter), 'left'),
      startWriter(dir, 'singles', String(perWriter), 'right'),
    ];
    const results = await Promise.all(writers.map(exited));
    results.forEach((result) => assert.equal(result.code, 0, result.stderr));
    const memory = await Memory.open({ dir });
    try {
      assert.equal(await memory.memories.count('agent', 'left'), perWriter);
      assert.equal(await memory.memories.count('agent', 'right'), perWriter);
      const report = await memory.verify();
      assert.deepEqual(report.errors, []);
      assert.equal(report.totalCommits, 2 * perWriter);
    } finally {
      await memory.close();
    }
  });

  it('several processes creating one new store at once all open it and lose nothing', async () => {
    // Each opens a folder with no store yet: one creates it, the others open that one;
    // none may find a store file that exists but is still empty and refuse it.
    const fresh = path.join(dir, 'fresh', '.workspace-memory');
    const tags = ['w1', 'w2', 'w3', 'w4'];
    const results = await Promise.all(tags.map((tag) => exited(startWriter(fresh, 'singles', '5', tag))));
    results.forEach((result) => assert.equal(result.code, 0, result.stderr));
    const memory = await Memory.open({ dir: fresh });
    try {
      for (const tag of tags) assert.equal(await memory.memories.count('agent', tag), 5);
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      await memory.close();
    }
    assert.deepEqual(
      fs.readdirSync(fresh).filter((name) => name.includes('.creating')),
      [],
      'no temporary store file left behind',
    );
  });

  it('a process killed with SIGKILL inside a large saveMany leaves a valid store with all or none of the batch', async () => {
    const batch = 40_000;
    const child = startWriter(dir, 'batch', String(batch));
    const done = exited(child);
    let output = '';
    await new Promise<void>((resolve) =>
      child.stdout?.on('data', (chunk) => {
        output += String(chunk);
        if (output.includes('begin')) resolve();
      }),
    );
    // The batch takes well over a second; kill it part-way through.
    await new Promise((resolve) => setTimeout(resolve, 400));
    child.kill('SIGKILL');
    const result = await done;
    assert.equal(result.signal, 'SIGKILL');
    const memory = await Memory.open({ dir });
    try {
      const count = await memory.memories.count('agent', 'batch');
      assert.ok(count === 0 || count === batch, `found ${count} of the batch`);
      if (!output.includes('committed')) assert.equal(count, 0, 'killed before the commit: nothing of the batch');
      const report = await memory.verify();
      assert.deepEqual(report.errors, []);
      // The store still takes writes after the crash.
      await memory.memories.save('agent', 'after', { content: 'still works' });
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await memory.close();
    }
  });
});
