import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { operationsFor } from '../../src/core/operations';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const MCP = path.join(ROOT, 'dist', 'mcp.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts a server process the way an MCP client would, and connects the SDK's own client to it. */
async function connect(
  args: string[],
  env?: Record<string, string>,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: 'workspace-memory-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => log };
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('mcp server', function () {
  this.timeout(60_000);
  let dir: string;
  let docs: string;
  let client: Client;
  let stderr: () => string;

  before(() => {
    if (!fs.existsSync(MCP) || !fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(async () => {
    dir = tempDir('wm-mcp-');
    docs = tempDir('wm-mcp-docs-');
    fs.writeFileSync(path.join(docs, 'deploy.md'), '# Deploy\n\nRun make deploy to ship to kubernetes.\n');
    // Writes land at once here; the review queue, the default, has its own test below.
    ({ client, stderr } = await connect([MCP, '--dir', dir, '--agent', 'a', '--user', 'u', '--review', 'immediate']));
  });
  afterEach(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(docs, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, args);
    assert.ok(!result.isError, `${name} failed: ${textOf(result)}`);
    return result;
  };

  it('lists every MCP operation with its schema and hints', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      operationsFor('mcp').map((op) => op.name),
    );
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const save = byName.get('memory_save');
    assert.deepEqual(save?.inputSchema.required, ['content']);
    assert.ok(save?.description && save.description.length > 80);
    assert.equal(save?.annotations?.readOnlyHint, false);
    assert.equal(save?.annotations?.destructiveHint, true);
    assert.equal(byName.get('skill_save')?.annotations?.destructiveHint, true);
    assert.equal(byName.get('memory_search')?.annotations?.readOnlyHint, true);
    assert.equal(byName.get('memory_forget')?.annotations?.destructiveHint, true);
    assert.equal(byName.get('profile_update')?.annotations?.destructiveHint, true);
    assert.match(stderr(), /serving .* for agent a and user u/);
  });

  it('runs every tool against the store in the scope it was started with', async () => {
    // Named without a prefix, as a workspace's root folder: citations read deploy.md.
    assert.equal(cli(['rag', 'sync', docs, '--dir', dir, '--agent', 'a', '--prefix', '.']).code, 0);
    const saved = await ok('memory_save', { content: 'We deploy the api with docker compose', tags: ['deploy'] });
    const memory = (saved.structuredContent as { entity: { id: string; agentId: string; userId: string } }).entity;
    assert.deepEqual([memory.agentId, memory.userId], ['a', 'u']);
    assert.match(textOf(saved), new RegExp(memory.id));
    assert.match(textOf(await ok('memory_search', { query: 'deploy' })), new RegExp(memory.id));
    assert.match(textOf(await ok('memory_recall', { query: 'deploy the api' })), /## Memories/);
    await ok('memory_update', { id: memory.id, content: 'We deploy the api with helm' });
    assert.match(textOf(await ok('memory_history', { id: memory.id })), /update/);
    await ok('memory_forget', { id: memory.id });
    assert.match(textOf(await ok('skill_save', { content: 'Release: tag, push, wait for CI' })), /Saved skill/);
    assert.match(textOf(await ok('skill_search', { query: 'release' })), /tag, push/);
    assert.match(textOf(await ok('docs_search', { query: 'deploy to k8s' })), /from `deploy\.md:1`/);
    assert.match(textOf(await ok('rag_query', { query: 'deploy' })), /^\[1\] knowledge `[^`]+` · from `deploy\.md:1`/m);
    await ok('profile_update', { content: 'Staff engineer' });
    assert.match(textOf(await ok('profile_get')), /Staff engineer/);
    assert.match(textOf(await ok('stats')), /memories: 0/);
    assert.match(textOf(await ok('verify')), /^Valid/);
    const exported = JSON.parse(textOf(await ok('export'))) as { entities: { skills: unknown[] } };
    assert.equal(exported.entities.skills.length, 1);
  });

  it('by default holds writes for review, says so, and records the client that made them', async () => {
    const { client: queued } = await connect([MCP, '--dir', dir, '--agent', 'a', '--user', 'u']);
    try {
      const saved = (await queued.callTool({
        name: 'memory_save',
        arguments: { content: 'The cache TTL is 5 minutes' },
      })) as CallToolResult;
      assert.ok(!saved.isError, textOf(saved));
      assert.match(textOf(saved), /waiting for a person's review.*Do not write it again/s);
      const id = (saved.structuredContent as { entity: { id: string } }).entity.id;
      const found = (await queued.callTool({
        name: 'memory_search',
        arguments: { query: 'cache TTL' },
      })) as CallToolResult;
      assert.doesNotMatch(textOf(found), new RegExp(id));
      const pending = (await queued.callTool({ name: 'review_list', arguments: {} })) as CallToolResult;
      // Quoted as data, as every read result: the least trusted text in the store.
      assert.match(textOf(pending), /^1 write\(s\) waiting for review\.\n\nStored notes from Workspace Memory/);
      assert.match(
        textOf(pending),
        new RegExp(`pending: memory \`${id}\` · fact · written .* · by mcp \`workspace-memory-test\``),
      );
      // No tool approves: that is for people.
      const { tools } = await queued.listTools();
      assert.ok(!tools.some((tool) => /approve|reject/.test(tool.name)));
      const history = JSON.parse(cli(['history', id, '--dir', dir, '--json']).stdout) as { commit: { by: unknown } }[];
      assert.deepEqual(history[0]!.commit.by, {
        kind: 'mcp',
        name: 'workspace-memory-test',
        version: '1.0.0',
        tool: 'memory_save',
      });
    } finally {
      await queued.close();
    }
    const badMode = spawnSync(process.execPath, [MCP, '--dir', dir, '--review', 'sometimes'], { encoding: 'utf8' });
    assert.notEqual(badMode.status, 0);
    assert.match(badMode.stderr, /must be "queue" or "immediate"/);
  });

  it('answers bad calls with a tool error and keeps serving', async () => {
    // The catalogue's own wording, as the CLI's `call` gives it, not the SDK's schema dump.
    const wrongType = await call('memory_save', { content: 42, tags: 'deploy' });
    assert.equal(wrongType.isError, true);
    assert.match(textOf(wrongType), /^memory_save: `content` must be text; `tags` must be a list\. \[INVALID_INPUT\]$/);
    const missing = await call('memory_search', {});
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /query/);
    const scoped = await call('memory_save', { content: 'x', agentId: 'b' });
    assert.equal(scoped.isError, true);
    assert.match(textOf(scoped), /agentId/);
    const unknown = await call('memory_drop', {});
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /Unknown operation "memory_drop".*\[NOT_FOUND\]/);
    const absent = await call('memory_forget', { id: 'memory-nobody' });
    assert.equal(absent.isError, true);
    assert.match(textOf(absent), /NOT_FOUND/);
    // Still serving after all of that.
    await ok('memory_save', { content: 'The server survived bad calls' });
    assert.match(textOf(await ok('memory_search', { query: 'survived' })), /survived/);
  });

  it("refuses another agent's memory as not found", async () => {
    const saved = cli(['save', 'memory', '--dir', dir, '--agent', 'b', '--content', 'Agent b plan', '--json']);
    const { entity } = JSON.parse(saved.stdout) as { entity: { id: string } };
    const refused = await call('memory_forget', { id: entity.id });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /NOT_FOUND/);
    assert.equal(cli(['get', entity.id, '--dir', dir]).code, 0);
  });
});

describe('mcp entry points', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (!fs.existsSync(MCP) || !fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => (dir = tempDir('wm-mcp-entry-')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exits cleanly when the client closes its input, writing nothing but protocol to stdout', () => {
    const result = spawnSync(process.execPath, [MCP, '--dir', dir], { input: '', encoding: 'utf8', timeout: 20_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /serving .* for agent default/);
    assert.ok(fs.existsSync(path.join(dir, 'memory.db')), 'the store is created');
  });

  it('refuses a bad agent id or option before serving', () => {
    const bad = spawnSync(process.execPath, [MCP, '--dir', dir, '--agent', '../x'], { input: '', encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /agent id.*INVALID_ID/);
    const unknown = spawnSync(process.execPath, [MCP, '--bogus'], { input: '', encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /Usage/);
  });

  it('--scoped-only serves only the agent-scoped tools, refusing store-wide ones', async () => {
    const { client } = await connect([MCP, '--dir', dir, '--agent', 'a', '--scoped-only']);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(
        names,
        operationsFor('tool')
          .map((op) => op.name)
          .sort(),
      );
      const exported = (await client.callTool({ name: 'export', arguments: {} })) as CallToolResult;
      assert.equal(exported.isError, true);
    } finally {
      await client.close();
    }
  });

  it('takes a blank WORKSPACE_MEMORY_AGENT and WORKSPACE_MEMORY_USER as unset, as the CLI does', async () => {
    const { client, stderr } = await connect([MCP, '--dir', dir], {
      WORKSPACE_MEMORY_AGENT: ' ',
      WORKSPACE_MEMORY_USER: '  ',
    });
    try {
      await client.listTools();
      assert.match(stderr(), /serving .* for agent default\n/);
    } finally {
      await client.close();
    }
  });

  it('--help of both entry points names every tool --scoped-only leaves out', () => {
    const scoped = new Set(operationsFor('tool').map((op) => op.name));
    const left = operationsFor('mcp').filter((op) => !scoped.has(op.name));
    const help = [
      spawnSync(process.execPath, [MCP, '--help'], { encoding: 'utf8' }).stderr,
      cli(['mcp', '--help']).stdout,
    ];
    for (const text of help) {
      const line = text.slice(text.indexOf('--scoped-only', text.indexOf('\n')));
      for (const op of left) assert.match(line, new RegExp(`\\b${op.name}\\b`), `${op.name} in ${line}`);
    }
  });

  it('`workspace-memory mcp` serves the same tools', async () => {
    const { client } = await connect([CLI, 'mcp', '--dir', dir, '--agent', 'a', '--review', 'immediate']);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, operationsFor('mcp').length);
      const result = (await client.callTool({
        name: 'memory_save',
        arguments: { content: 'Via the CLI' },
      })) as CallToolResult;
      assert.ok(!result.isError, textOf(result));
    } finally {
      await client.close();
    }
    assert.equal(
      (JSON.parse(cli(['list', 'memory', '--dir', dir, '--agent', 'a', '--json']).stdout) as { total: number }).total,
      1,
    );
  });
});

describe('cli call', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => {
    dir = tempDir('wm-call-');
    assert.equal(cli(['init', '--dir', dir]).code, 0);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists the operations with their effect and arguments', () => {
    const text = cli(['call', '--list']);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /memory_forget {2}\(destructive\)/);
    assert.match(text.stdout, / {4}query: string/);
    const list = JSON.parse(cli(['call', '--list', '--json']).stdout) as { name: string; inputSchema: object }[];
    assert.deepEqual(
      list.map((op) => op.name),
      operationsFor('cli').map((op) => op.name),
    );
  });

  it('runs an operation with JSON arguments in the --agent and --user scope', () => {
    const scope = ['--dir', dir, '--agent', 'a', '--user', 'u'];
    const saved = cli(['call', 'memory_save', '{"content":"Use pnpm","category":"decision"}', ...scope, '--json']);
    assert.equal(saved.code, 0, saved.stderr);
    const { entity } = JSON.parse(saved.stdout) as { entity: { id: string; userId: string; category: string } };
    assert.deepEqual([entity.userId, entity.category], ['u', 'decision']);
    const found = cli(['call', 'memory_search', '{"query":"pnpm"}', ...scope]);
    assert.match(found.stdout, new RegExp(entity.id));
    const otherAgent = cli(['call', 'memory_forget', JSON.stringify({ id: entity.id }), '--dir', dir, '--agent', 'b']);
    assert.equal(otherAgent.code, 1);
    assert.match(otherAgent.stderr, /NOT_FOUND/);
  });

  it('fails with a one-line reason on bad arguments or an unknown operation', () => {
    const bad = cli(['call', 'memory_save', '{"content":7}', '--dir', dir]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /memory_save: `content`.*\[INVALID_INPUT\]/);
    assert.match(cli(['call', 'memory_save', 'not json', '--dir', dir]).stderr, /not valid JSON/);
    const unknown = cli(['call', 'memory_drop', '--dir', dir]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown operation "memory_drop"/);
  });
});
