import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { jsonErrorReason } from '../../src/core/text';
import { dirArgument } from '../../src/server/cli/suggested-command';
import { tempDir } from './helpers';

const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

function cli(args: string[], input = '', cwd?: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The message of JSON.parse's refusal of `text`. */
function parseError(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  return assert.fail(`${text} parsed`);
}

// Issue #17: what a new user read in a fresh-clone run.
describe('cli: messages a new user reads', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('wm-cli-messages-');
    cli(['init', '--dir', dir]);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('says standard input that is not JSON is not, in one sentence without the input quoted back', () => {
    const result = cli(['import', '-', '--dir', dir], 'garbage\n');
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim(),
      "workspace-memory: standard input is not JSON (Unexpected token 'g'). [IMPORT_INVALID]",
    );
  });

  it('says a JSON document without an export’s fields is not a Workspace Memory export', () => {
    const result = cli(['import', '-', '--dir', dir], '{"foo":1}');
    assert.match(result.stderr, /Not a Workspace Memory export: it has no "format": "workspace-memory"/);
  });

  it('says a deleted entity was deleted and how to see its history; an id that never was is only not found', () => {
    const saved = JSON.parse(cli(['save', 'memory', '--dir', dir, '--content', 'soon gone', '--json']).stdout) as {
      entity: { id: string };
    };
    const { id } = saved.entity;
    cli(['delete', id, '--dir', dir]);
    const result = cli(['get', id, '--dir', dir]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim(),
      `workspace-memory: ${id} was deleted; its history (2 versions) is kept: see \`workspace-memory history ${id} --dir ${dir}\`. [NOT_FOUND]`,
    );
    assert.match(cli(['get', 'memory-never', '--dir', dir]).stderr, /No entity with id memory-never\. \[NOT_FOUND\]/);
  });

  it('refuses to sync a file in CLI terms: ingest it, or sync its folder', () => {
    const docs = path.join(dir, 'docs');
    fs.mkdirSync(docs);
    fs.writeFileSync(path.join(docs, 'setup.md'), '# Setup\n\nRun it.\n');
    const result = cli(['rag', 'sync', 'docs/setup.md', '--dir', dir], '', dir);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr.trim(),
      'workspace-memory: docs/setup.md is a file; rag sync mirrors a folder (and removes what is gone from it). Add or refresh the file with `workspace-memory rag ingest docs/setup.md`, or mirror its folder with `workspace-memory rag sync docs`. [INVALID_INPUT]',
    );
  });

  it('leaves --dir out of a command it suggests when the folder is the default one, and quotes one with spaces', () => {
    assert.equal(dirArgument('.workspace-memory', path.resolve('.workspace-memory')), '');
    assert.equal(dirArgument('/tmp/x', '/tmp/y'), ' --dir /tmp/x');
    assert.equal(dirArgument("/tmp/it's here", '/tmp/y'), " --dir '/tmp/it'\\''s here'");
  });

  it('makes where JSON.parse stopped plain, and drops the input it quotes back', () => {
    assert.equal(jsonErrorReason(parseError('garbage')), "Unexpected token 'g'");
    assert.equal(
      jsonErrorReason(parseError(`{"a": "${'x'.repeat(50)}" x}`)),
      "Expected ',' or '}' after property value at line 1, column 60",
    );
    assert.equal(jsonErrorReason(parseError('')), 'Unexpected end of JSON input');
    assert.equal(jsonErrorReason('odd'), 'odd');
  });
});
