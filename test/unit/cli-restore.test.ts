import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';

import { confirm, describeRestore } from '../../src/server/cli/restore-confirm';
import { tempDir } from './helpers';

const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

function cli(args: string[]) {
  // Standard input is a pipe, not a terminal: as in a script.
  const result = spawnSync(process.execPath, [CLI, ...args], { input: '', encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T = Record<string, unknown>>(args: string[]): T {
  const result = cli([...args, '--json']);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

async function answer(text: string | null): Promise<{ yes: boolean; asked: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let asked = '';
  output.on('data', (chunk: Buffer) => (asked += chunk.toString('utf8')));
  const pending = confirm('Restore this snapshot?', { input, output });
  if (text === null) input.end();
  else input.write(text);
  return { yes: await pending, asked };
}

describe('cli: snapshot restore asks first', () => {
  let dir: string;
  let snapshot: string;
  let added: string;
  beforeEach(() => {
    dir = tempDir('wm-cli-restore-');
    json(['init', '--dir', dir]);
    json(['save', 'memory', '--dir', dir, '--content', 'kept']);
    snapshot = json<{ id: string }>(['snapshot', 'create', 'first', '--dir', dir]).id;
    added = json<{ entity: { id: string } }>(['save', 'memory', '--dir', dir, '--content', 'dropped by restore']).entity
      .id;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('rebuilds a store too damaged to open from a snapshot, with --yes, and refuses without it', () => {
    const file = path.join(dir, 'memory.db');
    // Cut short: SQLite cannot read its schema any more.
    fs.truncateSync(file, 1024);
    fs.rmSync(`${file}-wal`, { force: true });
    fs.rmSync(`${file}-shm`, { force: true });
    assert.match(cli(['stats', '--dir', dir]).stderr, /STORE_CORRUPT/);
    const refused = cli(['snapshot', 'restore', snapshot, '--dir', dir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /cannot be opened/);
    const restored = cli(['snapshot', 'restore', snapshot, '--dir', dir, '--yes']);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(
      restored.stdout,
      /the damaged store file was rebuilt \(it could not be read, so no snapshot of it was taken; it is kept as .*memory\.db\.unreadable-/,
    );
    const list = json<{ items: { content: string }[] }>(['list', 'memory', '--dir', dir]);
    assert.deepEqual(
      list.items.map((item) => item.content),
      ['kept'],
    );
    assert.equal(cli(['verify', '--dir', dir]).code, 0);
  });

  it('without a terminal and without --yes, shows what would change, refuses with exit 2 and changes nothing', () => {
    const result = cli(['snapshot', 'restore', snapshot, '--dir', dir]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`remove +1 entity \\(1 memory\\): ${added}`));
    assert.match(result.stderr, /first save +the store as it is now as a snapshot, so this restore can be undone/);
    assert.match(result.stderr, /keep +1 entity as it is\n +rewind +every entity's history to the snapshot/);
    assert.match(result.stderr, /Give --yes to restore/);
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 2);
  });

  it('with --json and without --yes, prints the preview and the refusal as JSON only, exit 2, changing nothing', () => {
    const result = cli(['snapshot', 'restore', snapshot, '--dir', dir, '--json']);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr, '');
    const answer = JSON.parse(result.stdout) as {
      done: boolean;
      error: { code: string; message: string };
      preview: { snapshot: { id: string }; removed: { ids: { id: string }[] } };
    };
    assert.equal(answer.done, false);
    assert.equal(answer.error.code, 'CONFIRMATION_REQUIRED');
    assert.match(answer.error.message, /Give --yes to restore/);
    assert.equal(answer.preview.snapshot.id, snapshot);
    assert.deepEqual(
      answer.preview.removed.ids.map((entry) => entry.id),
      [added],
    );
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 2);
  });

  it('with --json and without --yes, answers in JSON for a store too damaged to open too', () => {
    fs.truncateSync(path.join(dir, 'memory.db'), 1024);
    fs.rmSync(path.join(dir, 'memory.db-wal'), { force: true });
    const result = cli(['snapshot', 'restore', snapshot, '--dir', dir, '--json']);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr, '');
    const answer = JSON.parse(result.stdout) as { error: { code: string }; preview: { rebuild: boolean } };
    assert.equal(answer.error.code, 'CONFIRMATION_REQUIRED');
    assert.equal(answer.preview.rebuild, true);
  });

  it('with --yes restores and prints, in the past tense, what changed and how to undo it; --json adds the changes and the kept snapshot', () => {
    const text = cli(['snapshot', 'restore', snapshot, '--dir', dir, '--yes']);
    assert.equal(text.code, 0, text.stderr);
    const said = new RegExp(
      `^restored ${snapshot} \\(first\\); the store as it was is kept as snapshot (snap-\\S+) — undo: workspace-memory snapshot restore \\1 --dir ${dir}\\n  removed +1 entity \\(1 memory\\): ${added}\\n  kept +1 entity as it is\\n  rewound +every`,
    ).exec(text.stdout);
    assert.ok(said, text.stdout);
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 1);
    // The undo it names brings back what the restore dropped.
    assert.equal(cli(['snapshot', 'restore', said[1]!, '--dir', dir, '--yes']).code, 0);
    assert.equal(json<{ memories: number }>(['stats', '--dir', dir]).memories, 2);
    cli(['snapshot', 'restore', snapshot, '--dir', dir, '--yes']);

    json(['save', 'memory', '--dir', dir, '--content', 'dropped again']);
    const result = json<{
      id: string;
      label: string;
      before: { label: string; entities: number };
      changes: { removed: { total: number }; unchanged: number };
    }>(['snapshot', 'restore', snapshot, '--dir', dir, '--yes']);
    assert.equal(result.id, snapshot);
    assert.equal(result.label, 'first');
    assert.equal(result.changes.removed.total, 1);
    assert.equal(result.changes.unchanged, 1);
    assert.deepEqual([result.before.label, result.before.entities], ['before restoring first', 2]);
  });

  it('an unknown snapshot is an error before anything is asked', () => {
    const result = cli(['snapshot', 'restore', 'snap-nope', '--dir', dir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /SNAPSHOT_NOT_FOUND/);
  });

  it('takes only y or yes as consent; anything else, or no answer, is no', async () => {
    for (const yes of ['y\n', 'YES\n', ' yes \n']) assert.equal((await answer(yes)).yes, true, yes);
    for (const no of ['\n', 'n\n', 'yep\n', 'no\n', null]) assert.equal((await answer(no)).yes, false, String(no));
    assert.equal((await answer('n\n')).asked, 'Restore this snapshot? [y/N] ');
  });

  it('describes a restore that changes no entity', () => {
    const none = { total: 0, byType: {}, ids: [] };
    const text = describeRestore({
      snapshot: { id: 'snap-x', label: '', createdAt: '', entities: 3, bytes: 0 },
      restored: none,
      removed: none,
      changed: none,
      unchanged: 3,
    });
    assert.equal(
      text,
      "  first save  the store as it is now as a snapshot, so this restore can be undone\n  no entity changes\n  keep        3 entities as they are\n  rewind      every entity's history to the snapshot: commits made since it are dropped",
    );
  });
});
