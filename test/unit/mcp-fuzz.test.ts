import * as assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const MCP = path.join(ROOT, 'dist', 'mcp.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const MB = 1024 * 1024;

type Id = string | number | null;
interface Reply {
  jsonrpc: string;
  id?: Id;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * A client that speaks raw newline-delimited JSON-RPC to the built server,
 * so it can send what no well-behaved SDK client would.
 */
class RawPeer {
  readonly replies: Reply[] = [];
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private pending = '';
  private waiters: (() => void)[] = [];
  private nextId = 0;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, args, { stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.pending += chunk;
      let newline: number;
      while ((newline = this.pending.indexOf('\n')) >= 0) {
        this.replies.push(JSON.parse(this.pending.slice(0, newline)) as Reply);
        this.pending = this.pending.slice(newline + 1);
      }
      this.wake();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
      this.wake();
    });
    this.child.on('exit', () => this.wake());
    // Writing to a server that died fails with EPIPE; take() reports the exit itself, with its stderr.
    this.child.stdin.on('error', () => this.wake());
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  write(data: string | Buffer): void {
    this.child.stdin.write(data);
  }

  /** Takes the first reply that matches, waiting for it; fails if the server exits or stays silent. */
  async take(match: (reply: Reply) => boolean, what: string, timeoutMs = 10_000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.replies.findIndex(match);
      const [reply] = index >= 0 ? this.replies.splice(index, 1) : [];
      if (reply) return reply;
      assert.ok(this.alive, `the server exited (${this.child.exitCode}) waiting for ${what}; stderr:\n${this.stderr}`);
      const left = deadline - Date.now();
      assert.ok(left > 0, `no ${what} within ${timeoutMs} ms; stderr:\n${this.stderr.slice(-2000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async request(method: string, params?: Record<string, unknown>): Promise<Reply> {
    const id = `req-${++this.nextId}`;
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) })}\n`);
    return this.take((reply) => reply.id === id, `the reply to ${method}`);
  }

  /** The error reply with this id, after writing `line`. */
  async errorFor(line: string | Buffer, id: Id, timeoutMs?: number): Promise<{ code: number; message: string }> {
    this.write(line);
    const reply = await this.take((r) => r.id === id && r.error !== undefined, `an error with id ${id}`, timeoutMs);
    return reply.error!;
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }

  get exitCode(): number | null {
    return this.child.exitCode;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

function toolText(reply: Reply): string {
  const content = (reply.result?.content ?? []) as { type: string; text?: string }[];
  return content.map((part) => part.text ?? '').join('');
}

const request = (id: Id, method: string, params?: unknown) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) })}\n`;
const save = (id: Id, content: string) => request(id, 'tools/call', { name: 'memory_save', arguments: { content } });

describe('mcp server under malformed and oversized input', function () {
  this.timeout(60_000);
  let dir: string;
  let peer: RawPeer;
  let saved = 0;

  before(() => {
    if (!fs.existsSync(MCP) || !fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(async () => {
    dir = tempDir('wm-mcp-fuzz-');
    saved = 0;
    peer = new RawPeer([MCP, '--dir', dir, '--agent', 'a']);
    const init = await peer.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '1.0.0' },
    });
    assert.ok(init.result, JSON.stringify(init));
    peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  });
  afterEach(async () => {
    await peer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** After every bad input: the process lives, answers ping, and runs a real tool call. */
  async function assertServing(): Promise<void> {
    assert.ok(peer.alive, `the server exited with ${peer.exitCode}; stderr:\n${peer.stderr}`);
    assert.deepEqual((await peer.request('ping')).result, {});
    const call = await peer.request('tools/call', {
      name: 'memory_save',
      arguments: { content: `Still serving ${++saved}` },
    });
    assert.equal(call.result?.isError, undefined, toolText(call));
    const stats = await peer.request('tools/call', { name: 'stats', arguments: {} });
    assert.match(toolText(stats), new RegExp(`memories: ${saved}\\b`));
  }

  const droppedLines = () => peer.stderr.split('\n').filter((line) => /dropped/.test(line)).length;

  it('refuses a 10 MB message by its id, and a 25 MB one, logging each, and keeps serving', async () => {
    // The SDK's client puts the id last, after the params.
    const big = `${JSON.stringify({ method: 'tools/call', params: { name: 'memory_save', arguments: { content: 'x'.repeat(10 * MB) } }, jsonrpc: '2.0', id: 'big-10' })}\n`;
    const error = await peer.errorFor(big, 'big-10');
    assert.equal(error.code, -32600);
    assert.match(error.message, /too large.*limit of \d+ bytes/i);
    await assertServing();

    const huge = `${JSON.stringify({ jsonrpc: '2.0', id: 25, method: 'tools/call', params: { name: 'memory_save', arguments: { content: 'y'.repeat(25 * MB) } } })}\n`;
    assert.equal((await peer.errorFor(huge, 25)).code, -32600);
    await assertServing();

    // No id anywhere: an error with a null id.
    assert.equal((await peer.errorFor(`[${'1,'.repeat(6 * MB)}1]\n`, null)).code, -32600);
    await assertServing();
    assert.equal(droppedLines(), 3, peer.stderr);
    assert.match(peer.stderr, /too large/);
  });

  it('takes a message split across many writes, and several messages in one write', async () => {
    const line = save('split', 'Written in pieces');
    for (let i = 0; i < line.length; i += 7) peer.write(line.slice(i, i + 7));
    const reply = await peer.take((r) => r.id === 'split', 'the split message');
    assert.equal(reply.result?.isError, undefined, toolText(reply));
    saved++;
    peer.write(request('p1', 'ping') + request('p2', 'ping').replace('\n', '\r\n') + request('p3', 'ping'));
    for (const id of ['p1', 'p2', 'p3']) assert.deepEqual((await peer.take((r) => r.id === id, id)).result, {});
    await assertServing();
  });

  it('answers garbage and truncated JSON with a parse error', async () => {
    for (const line of ['hello world\n', '{"jsonrpc":"2.0","id":5,"method":"ping"\n', '{"a":\n', 'nul\n', '}\n']) {
      const error = await peer.errorFor(line, null);
      assert.equal(error.code, -32700, line);
      assert.match(error.message, /parse error/i);
      await assertServing();
    }
  });

  it('answers invalid requests with -32600 and their id when it is usable', async () => {
    const cases: [string, Id, RegExp][] = [
      ['{"jsonrpc":"2.0","id":9}\n', 9, /method/],
      ['{"jsonrpc":"2.0","id":"m","method":7}\n', 'm', /method/],
      ['{"jsonrpc":"1.0","id":"v","method":"ping"}\n', 'v', /jsonrpc/],
      ['{"id":"nov","method":"ping"}\n', 'nov', /jsonrpc/],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n', null, /id/],
      ['{"jsonrpc":"2.0","id":[1],"method":"ping"}\n', null, /id/],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}\n', null, /id/],
      ['{"jsonrpc":"2.0","id":true,"method":"ping"}\n', null, /id/],
      ['{"jsonrpc":"2.0","id":"x","method":"ping","extra":1}\n', 'x', /extra/],
      ['42\n', null, /object/],
      ['"ping"\n', null, /object/],
      ['null\n', null, /object/],
      ['{"jsonrpc":"2.0","method":5}\n', null, /method/],
    ];
    for (const [line, id, message] of cases) {
      const error = await peer.errorFor(line, id);
      assert.equal(error.code, -32600, line);
      assert.match(error.message, message, line);
    }
    await assertServing();
  });

  it('answers params of the wrong type with -32602 and a readable reason', async () => {
    const cases: [string, RegExp][] = [
      [request('s', 'tools/call', 'memory_save'), /`params` must be an object/],
      [request('a', 'tools/list', [1]), /`params` must be an object/],
      [request('n', 'tools/call', { name: 5 }), /tools\/call.*`name`/],
      [request('g', 'tools/call', { name: 'memory_save', arguments: 'content' }), /`arguments`/],
      [request('i', 'initialize', { protocolVersion: 1 }), /initialize.*`protocolVersion`/],
      [request('m', 'ping', { _meta: 5 }), /`_meta`/],
    ];
    for (const [line, message] of cases) {
      const id = (JSON.parse(line) as { id: string }).id;
      const error = await peer.errorFor(line, id);
      assert.equal(error.code, -32602, line);
      assert.match(error.message, message, line);
      assert.doesNotMatch(error.message, /"code":|\[\s*\{/, 'no raw schema dump');
    }
    await assertServing();
  });

  it('answers an unknown method with -32601', async () => {
    assert.equal((await peer.errorFor(request('u', 'memory/drop', {}), 'u')).code, -32601);
    await assertServing();
  });

  it('refuses a batch, answering each request in it', async () => {
    const batch = `[${request('b1', 'ping').trim()},${request('b2', 'tools/list').trim()},{"jsonrpc":"2.0","method":"notifications/initialized"}]\n`;
    peer.write(batch);
    for (const id of ['b1', 'b2']) {
      const reply = await peer.take((r) => r.id === id, id);
      assert.equal(reply.error?.code, -32600);
      assert.match(reply.error.message, /batch/i);
    }
    const empty = await peer.errorFor('[]\n', null);
    assert.equal(empty.code, -32600);
    assert.match(empty.message, /batch/i);
    await assertServing();
  });

  it('refuses bytes that are not UTF-8 instead of saving mangled text', async () => {
    const line = Buffer.concat([
      Buffer.from(save('u8', 'caf').slice(0, -4)),
      Buffer.from([0xe9]),
      Buffer.from('"}}}\n'),
    ]);
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(line));
    const error = await peer.errorFor(line, null);
    assert.equal(error.code, -32700);
    assert.match(error.message, /UTF-8/);
    await assertServing();
    const found = await peer.request('tools/call', { name: 'memory_search', arguments: { query: 'caf' } });
    assert.doesNotMatch(toolText(found), /\uFFFD/);
  });

  it('ignores blank lines without a reply', async () => {
    peer.write('\n\r\n   \n\t\n');
    await assertServing();
    assert.equal(peer.replies.length, 0, JSON.stringify(peer.replies));
    assert.equal(droppedLines(), 0);
  });

  it('never answers a notification or a response, but logs a bad one', async () => {
    peer.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}\n');
    peer.write('{"jsonrpc":"2.0","method":"notifications/initialized","params":7}\n');
    peer.write('{"jsonrpc":"2.0","id":"r","result":5}\n');
    peer.write('{"jsonrpc":"2.0","id":"e","error":{"code":"x"}}\n');
    await assertServing();
    assert.equal(peer.replies.length, 0, JSON.stringify(peer.replies));
    assert.equal(droppedLines(), 4, peer.stderr);
  });

  it('answers a tools/call with bad arguments with a readable tool error', async () => {
    const reply = await peer.request('tools/call', { name: 'memory_save', arguments: { content: 42, tags: 'x' } });
    assert.equal(reply.result?.isError, true);
    const text = toolText(reply);
    assert.match(text, /^memory_save: `content`.*; `tags`.*\[INVALID_INPUT\]$/);
    assert.doesNotMatch(text, /"code":|\[\s*\{|Input validation error/);
    const unknown = await peer.request('tools/call', { name: 'memory_drop', arguments: {} });
    assert.equal(unknown.result?.isError, true);
    assert.match(toolText(unknown), /Unknown operation "memory_drop".*\[NOT_FOUND\]/);
    await assertServing();
  });

  /**
   * Tester's report J: the SDK's tools/call schema copies `arguments` key by
   * key, which turns a top-level `__proto__` into the copy's prototype: the
   * call ran without it. It gets the tool error `call` gives, word for word.
   */
  it('refuses a top-level __proto__ in tool arguments as `call` does, saving nothing', async () => {
    const raw = (id: string, args: string) =>
      `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"memory_save","arguments":${args}}}\n`;
    peer.write(raw('proto', '{"content":"x","__proto__":{"agentId":"b"}}'));
    const reply = await peer.take((r) => r.id === 'proto', 'the reply to the __proto__ call');
    assert.equal(reply.result?.isError, true, JSON.stringify(reply));
    const text = toolText(reply);
    assert.equal(
      text,
      "memory_save: __proto__ is not allowed as a key (it can reach an object's prototype); rename it. [INVALID_INPUT]",
    );
    const viaCall = spawnSync(
      process.execPath,
      [CLI, 'call', 'memory_save', '{"content":"x","__proto__":{"agentId":"b"}}', '--dir', dir, '--agent', 'a'],
      { encoding: 'utf8' },
    );
    assert.equal(viaCall.status, 1);
    assert.equal(viaCall.stderr.trim().replace(/^workspace-memory: /, ''), text, 'the same words as `call`');
    // Nested, or first of several keys: the same refusal, and an unknown tool is still NOT_FOUND.
    peer.write(raw('first', '{"__proto__":1,"content":"x"}'));
    assert.match(
      toolText(await peer.take((r) => r.id === 'first', 'a reply')),
      /^memory_save: __proto__ is not allowed/,
    );
    peer.write(raw('nested', '{"content":"x","metadata":{"__proto__":{"a":1}}}'));
    assert.match(
      toolText(await peer.take((r) => r.id === 'nested', 'a reply')),
      /metadata.*__proto__.*\[INVALID_INPUT\]/,
    );
    peer.write(raw('unknown', '{"__proto__":{}}').replace('memory_save', 'memory_drop'));
    assert.match(toolText(await peer.take((r) => r.id === 'unknown', 'a reply')), /\[NOT_FOUND\]/);
    // Its stats count only its own save: none of the refused calls saved anything.
    await assertServing();
  });

  it('keeps replies short and log lines single, whatever the input quotes', async () => {
    const key = `\u001b[31m${'k'.repeat(200_000)}`;
    const error = await peer.errorFor(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'k', method: 'ping', [key]: 1 })}\n`,
      'k',
    );
    assert.equal(error.code, -32600);
    assert.ok(error.message.length <= 301, `${error.message.length} characters`);
    assert.equal((await peer.errorFor(`\u001b[2J\rgarbage\t${'g'.repeat(300_000)}\n`, null)).code, -32700);
    await assertServing();
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(peer.stderr, /[\u0000-\u0009\u000b-\u001f]/, 'no control characters but the line breaks');
    for (const line of peer.stderr.trimEnd().split('\n')) {
      assert.match(line, /^workspace-memory mcp: /);
      assert.ok(line.length < 1100, `a log line of ${line.length} characters`);
    }
  });

  it('survives a flood of small bad messages, answering each', async () => {
    const lines = ['x\n', '{"jsonrpc":"2.0","id":1}\n', '[1]\n', '{"id":{}}\n', '{\n'];
    peer.write(Array.from({ length: 400 }, (_, i) => lines[i % lines.length]).join(''));
    await assertServing();
    const errors = peer.replies.filter((reply) => reply.error);
    assert.equal(errors.length, 400);
    assert.equal(droppedLines(), 400);
  });

  it('`workspace-memory mcp` keeps serving after an oversized message too', async () => {
    await peer.close();
    peer = new RawPeer([CLI, 'mcp', '--dir', dir, '--agent', 'a']);
    const error = await peer.errorFor(save('cli-big', 'z'.repeat(12 * MB)), 'cli-big');
    assert.equal(error.code, -32600);
    await assertServing();
  });

  it('exits with 0 when the client closes its input after bad messages', async () => {
    peer.write('garbage\n');
    await peer.take((r) => r.id === null, 'the parse error');
    await peer.close();
    assert.equal(peer.exitCode, 0);
  });
});
