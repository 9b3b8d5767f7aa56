import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Memory } from '../../src/core/memory';
import { withProvenance } from '../../src/core/provenance';
import { parseWhen } from '../../src/server/cli/trust-commands';
import { FAKE } from './fake-secrets';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const AGENT = { kind: 'mcp', name: 'Cursor', version: '1.4' } as const;

describe('cli: review, revert, reinstate', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => {
    dir = tempDir('wm-cli-trust-');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function seed(): Promise<{ held: string[]; kept: string }> {
    const memory = await Memory.open({ dir, author: 'ana' });
    try {
      const [kept] = await memory.memories.save('default', undefined, {
        content: 'Deploys go through the release branch',
      });
      const held: string[] = [];
      for (const content of ['Agent note one', 'Agent note two']) {
        const [entity] = await withProvenance(AGENT, () => memory.memories.save('default', undefined, { content }));
        held.push(entity.id);
      }
      return { held, kept: kept.id };
    } finally {
      await memory.close();
    }
  }

  it('lists, approves and rejects pending writes; history shows who wrote and who approved', async () => {
    const { held } = await seed();
    const listed = cli(['review', 'list', '--dir', dir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${held[0]}  new memory  by Cursor 1\\.4 \\(MCP\\)`));
    assert.equal(cli(['review', 'approve', '--dir', dir]).code, 1, 'no ids and no --all is an error');
    const approved = cli(['review', 'approve', held[0]!, '--dir', dir]);
    assert.equal(approved.stdout.trim(), `approved ${held[0]}`);
    const again = cli(['review', 'approve', held[0]!, '--dir', dir]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not waiting for review\. \[NOT_PENDING\]/);
    const history = cli(['history', held[0]!, '--dir', dir]);
    assert.match(history.stdout, /approve .*\n {4}by \S+ \(CLI\)/);
    assert.match(history.stdout, /create .*\n {4}by Cursor 1\.4 \(MCP\) · queued for review/);
    assert.equal(cli(['review', 'reject', '--all', '--dir', dir]).stdout.trim(), `rejected ${held[1]}`);
    assert.equal(cli(['review', 'list', '--dir', dir]).stdout.trim(), 'nothing is waiting for review');
  });

  it('reverts one writer after showing the list, asks first, and says when there is nothing to revert', async () => {
    const { held, kept } = await seed();
    cli(['review', 'approve', '--all', '--dir', dir]);
    const dry = cli(['revert', '--by', 'mcp', '--name', 'Cursor', '--since', '1h', '--dir', dir, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Reverting would change 2 entities:/);
    // The approval was the CLI's: only the create was Cursor's.
    assert.match(dry.stdout, new RegExp(`delete +${held[0]}  1 write\n {6}Agent note one`));
    // No terminal to ask on: refused, nothing changed.
    const refused = cli(['revert', '--by', 'mcp', '--dir', dir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /nothing was changed\. Give --yes/);
    assert.equal(cli(['get', held[0]!, '--dir', dir]).code, 0);
    const done = cli(['revert', '--by', 'mcp', '--dir', dir, '--yes']);
    assert.equal(done.stdout.trim(), 'reverted 2 entities');
    assert.equal(cli(['get', held[0]!, '--dir', dir]).code, 1);
    assert.equal(cli(['get', kept, '--dir', dir]).code, 0);
    const nothing = cli(['revert', '--by', 'mcp', '--dir', dir, '--yes']);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /Nothing to revert.*\[NOTHING_TO_REVERT\]/);
    assert.match(
      cli(['revert', '--by', 'robots', '--dir', dir]).stderr,
      /Unknown writer kind "robots".*\[UNKNOWN_WRITER\]/,
    );
    assert.match(cli(['revert', '--by', 'mcp', '--since', 'last week', '--dir', dir]).stderr, /\[INVALID_INPUT\]/);
  });

  it('reinstates a superseded memory', async () => {
    const memory = await Memory.open({ dir });
    const [wrong] = await memory.memories.save('default', undefined, { content: 'Port 5433' });
    await memory.memories.save('default', undefined, {
      content: 'Port 6543',
      category: 'correction',
      supersedes: wrong.id,
    });
    await memory.close();
    assert.equal(cli(['get', wrong.id, '--dir', dir]).code, 1);
    assert.match(cli(['reinstate', wrong.id, '--dir', dir]).stdout, new RegExp(`reinstated ${wrong.id}`));
    assert.equal(cli(['get', wrong.id, '--dir', dir]).code, 0);
    assert.match(cli(['reinstate', wrong.id, '--dir', dir]).stderr, /No superseded memory/);
  });

  it('verify --secrets lists what holds secrets, --redact and --purge take them out', async () => {
    const leaky = await Memory.open({ dir, secrets: 'allow' });
    const [saved] = await leaky.memories.save('default', undefined, { content: `key ${FAKE.awsAccessKey}` });
    await leaky.close();
    const listed = cli(['verify', '--secrets', '--dir', dir]);
    assert.equal(listed.code, 1);
    assert.equal(listed.stdout.trim(), `${saved.id}  aws-access-key in content line 1`);
    assert.ok(!listed.stdout.includes(FAKE.awsAccessKey));
    assert.match(
      cli(['verify', '--secrets', '--redact', '--dir', dir]).stdout,
      /redacted 1 entity; older versions still hold secrets/,
    );
    assert.equal(cli(['verify', '--secrets', '--dir', dir]).stdout.trim(), `${saved.id}  1 older version`);
    const refused = cli(['verify', '--secrets', '--purge', '--dir', dir]);
    assert.equal(refused.code, 2);
    assert.match(cli(['verify', '--secrets', '--purge', '--yes', '--dir', dir]).stdout, /purged 1 version of 1 entity/);
    assert.equal(cli(['verify', '--secrets', '--dir', dir]).stdout.trim(), 'no secrets found');
    assert.equal(cli(['verify', '--dir', dir]).code, 0);
    assert.equal(cli(['verify', '--redact', '--dir', dir]).code, 1);
  });

  it('takes the secret policy from WORKSPACE_MEMORY_SECRETS', () => {
    assert.equal(cli(['init', '--dir', dir]).code, 0);
    const content = `key ${FAKE.awsAccessKey}`;
    const blocked = cli(['save', 'memory', '--content', content, '--dir', dir], {
      ...process.env,
      WORKSPACE_MEMORY_SECRETS: 'block',
    });
    assert.equal(blocked.code, 1);
    assert.match(blocked.stderr, /A secret was found: aws-access-key in content on line 1\..*\[SECRET_DETECTED\]/);
    const bad = cli(['list', 'memory', '--dir', dir], { ...process.env, WORKSPACE_MEMORY_SECRETS: 'sometimes' });
    assert.match(bad.stderr, /secret policy must be one of redact, block, allow/);
    const saved = cli(['save', 'memory', '--content', content, '--dir', dir, '--json']);
    assert.match(saved.stdout, /key \[redacted: aws-access-key\]/);
    const told = cli(['save', 'memory', '--content', content, '--dir', dir]);
    assert.match(told.stderr, /a secret was redacted before it was stored \(aws-access-key\)/);
  });

  it('reads --since as a span back from now or an ISO time', () => {
    const now = Date.parse('2026-12-01T12:00:00.000Z');
    assert.equal(parseWhen('2h', now), '2026-12-01T10:00:00.000Z');
    assert.equal(parseWhen('1w', now), '2026-11-24T12:00:00.000Z');
    assert.equal(parseWhen('2026-11-30', now), '2026-11-30');
    assert.equal(parseWhen(undefined, now), undefined);
    assert.throws(() => parseWhen('99999999999d', now), /--since takes an ISO date or time, or a span back from now/);
    assert.throws(() => parseWhen('last week', now, '--until'), /--until takes/);
  });
});
