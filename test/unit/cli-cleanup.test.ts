import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { tempDir } from './helpers';

const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

function cli(args: string[]) {
  // Standard input is a pipe, not a terminal: as in a script.
  const result = spawnSync(process.execPath, [CLI, ...args], { input: '', encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const memories = (dir: string): number =>
  (JSON.parse(cli(['stats', '--dir', dir, '--json']).stdout) as { memories: number }).memories;

// Issue #17: `cleanup --max-age-days 0 </dev/null` deleted 12 entities without asking.
describe('cli: cleanup asks first', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('wm-cli-cleanup-');
    cli(['init', '--dir', dir]);
    for (let i = 1; i <= 7; i++)
      cli(['save', 'memory', '--dir', dir, '--content', `## Note ${i}\nDeploys go through stage ${i}.`]);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('without a terminal and without --yes, shows what it would delete by first words, refuses with exit 2 and deletes nothing', () => {
    const result = cli(['cleanup', '--dir', dir, '--max-age-days', '0']);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^cleanup would delete 7 entities\n {2}memory +Note \d+ {2}\(memory-/);
    assert.match(result.stderr, /\n {2}and 2 more\n/);
    assert.match(result.stderr, /no terminal to ask on; nothing was changed\. Give --yes to delete/);
    assert.equal(memories(dir), 7);
  });

  it('with --json and without --yes, prints the preview and the refusal as JSON, exit 2, deleting nothing', () => {
    const result = cli(['cleanup', '--dir', dir, '--max-age-days', '0', '--json']);
    assert.equal(result.code, 2, result.stderr);
    const answer = JSON.parse(result.stdout) as {
      done: boolean;
      error: { code: string };
      preview: { dryRun: boolean; removed: number };
    };
    assert.deepEqual([answer.done, answer.error.code], [false, 'CONFIRMATION_REQUIRED']);
    assert.deepEqual([answer.preview.dryRun, answer.preview.removed], [true, 7]);
    assert.equal(memories(dir), 7);
  });

  it('deletes with --yes, lists with --dry-run, and asks nothing when nothing is old enough', () => {
    assert.match(cli(['cleanup', '--dir', dir, '--max-age-days', '0', '--dry-run']).stdout, /would remove 7/);
    assert.equal(memories(dir), 7);
    const none = cli(['cleanup', '--dir', dir, '--max-age-days', '30']);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /^removed 0, kept 7/);
    const yes = cli(['cleanup', '--dir', dir, '--max-age-days', '0', '--yes']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.match(yes.stdout, /removed 7, kept 0/);
    assert.equal(memories(dir), 0);
  });
});
