import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { syncProgressText } from '../../src/server/cli/rag-commands';
import { tempDir } from './helpers';

const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

describe('cli: document sync progress', () => {
  it('names the phase and counts the whole job', () => {
    assert.equal(syncProgressText({ phase: 'reading', done: 1407, total: 1527 }), '1407 of 1527: reading files');
    assert.equal(
      syncProgressText({ phase: 'writing', done: 1500, total: 1527, path: 'a.md' }),
      '1500 of 1527: writing chunks',
    );
  });
});

describe('cli: rag sync names documents by their folder', function () {
  this.timeout(60_000);

  it('syncing a second folder leaves the first one’s documents, and citations carry the folder', () => {
    const root = tempDir('wm-cli-prefix-');
    try {
      const dir = path.join(root, 'store');
      for (const [folder, file, text] of [
        ['docs', 'deploy.md', '# Deploy\n\nShip with make deploy.\n'],
        ['other', 'notes.md', '# Notes\n\nThe cache keeps sessions for an hour.\n'],
      ]) {
        fs.mkdirSync(path.join(root, folder!));
        fs.writeFileSync(path.join(root, folder!, file!), text!);
      }
      const run = (args: string[]) =>
        spawnSync(process.execPath, [CLI, ...args, '--dir', dir], { cwd: root, encoding: 'utf8' });
      assert.equal(run(['init']).status, 0);
      assert.equal(run(['rag', 'sync', 'docs']).status, 0);
      const second = run(['rag', 'sync', 'other']);
      assert.equal(second.status, 0, second.stderr);
      assert.doesNotMatch(second.stdout, /^removed/m);
      assert.match(second.stdout, / 0 removed,/);
      const status = run(['rag', 'status', '--json']);
      const files = (JSON.parse(status.stdout) as { documents: { path: string }[] }).documents
        .map((file) => file.path)
        .sort();
      assert.deepEqual(files, ['docs/deploy.md', 'other/notes.md']);
      assert.match(run(['rag', 'query', 'make deploy']).stdout, /^\[1\] docs\/deploy\.md:3/m);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
