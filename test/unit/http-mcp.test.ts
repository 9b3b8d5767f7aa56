import * as assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import { operationsFor } from '../../src/core/operations';
import { McpSessions } from '../../src/server/http/mcp-sessions';
import { createMcpServer } from '../../src/server/mcp/server';
import { type Answer, request, type RequestOptions, SCOPE, type Served, serveTemp } from './http-fixture';

const CLIENT = { name: 'http-test-client', version: '3.4.5' };

function textOf(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function connect(
  served: Served,
  token = served.token,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(CLIENT);
  await client.connect(transport);
  return { client, transport };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A POST to /mcp as the Streamable HTTP transport sends it. */
function mcpPost(
  served: Served,
  body: unknown,
  headers: Record<string, string> = {},
  options: RequestOptions = {},
): Promise<Answer> {
  return request(served, '/mcp', {
    method: 'POST',
    headers: {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION,
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...options,
  });
}

/** Starts a session by hand; its id. */
async function initialize(served: Served): Promise<string> {
  const answer = await mcpPost(served, INITIALIZE);
  assert.equal(answer.status, 200, answer.text);
  const id = answer.headers['mcp-session-id'];
  assert.equal(typeof id, 'string');
  await mcpPost(served, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': id as string });
  return id as string;
}

describe('http mcp', function () {
  this.timeout(30_000);
  let served: Served;
  beforeEach(async () => (served = await serveTemp()));
  afterEach(async () => served.close());

  it('lists exactly the tools the stdio server lists', async () => {
    const { client } = await connect(served);
    const overHttp = await client.listTools();
    const [local, remote] = InMemoryTransport.createLinkedPair();
    const stdioServer = createMcpServer(served.memory, SCOPE, { version: 'x' });
    await stdioServer.connect(remote);
    const direct = new Client(CLIENT);
    await direct.connect(local);
    try {
      assert.deepEqual(overHttp.tools, (await direct.listTools()).tools);
      assert.deepEqual(
        overHttp.tools.map((tool) => tool.name),
        operationsFor('mcp').map((operation) => operation.name),
      );
      assert.equal(client.getServerVersion()?.name, 'workspace-memory');
      assert.match(client.getInstructions() ?? '', /memory_recall/);
    } finally {
      await direct.close();
      await client.close();
    }
  });

  it('calls tools, recording each write as the client that made it', async () => {
    const { client } = await connect(served);
    try {
      const saved = await client.callTool({
        name: 'memory_save',
        arguments: { content: 'The cache is flushed at midnight.' },
      });
      assert.equal(saved.isError, undefined, textOf(saved));
      const id = (saved.structuredContent as { entity: { id: string } }).entity.id;
      const found = await client.callTool({ name: 'memory_search', arguments: { query: 'cache flushed' } });
      assert.match(textOf(found), new RegExp(id));
      const [entry] = await served.memory.memories.history(id);
      assert.deepEqual(entry?.commit.by, { kind: 'mcp', ...CLIENT, tool: 'memory_save' });
      const bad = await client.callTool({ name: 'memory_save', arguments: { content: '' } });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /^memory_save: `content`.*\[INVALID_INPUT\]$/);
    } finally {
      await client.close();
    }
  });

  it('keeps several clients’ sessions apart, each with its own name', async () => {
    const first = await connect(served);
    const other = new Client({ name: 'second-client', version: '1.0.0' });
    const secondTransport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${served.token}` } },
    });
    await other.connect(secondTransport);
    try {
      assert.notEqual(first.transport.sessionId, secondTransport.sessionId);
      const saved = await other.callTool({
        name: 'memory_save',
        arguments: { content: 'Written by the second client.' },
      });
      const id = (saved.structuredContent as { entity: { id: string } }).entity.id;
      const [entry] = await served.memory.memories.history(id);
      assert.equal((entry?.commit.by as { name?: string }).name, 'second-client');
    } finally {
      await first.client.close();
      await other.close();
    }
  });

  it('needs the token', async () => {
    await assert.rejects(
      connect(served, 'wrong'),
      (error: { code?: unknown; message: string }) => error.code === 401 && /UNAUTHORIZED/.test(error.message),
    );
    const answer = await mcpPost(served, INITIALIZE, {}, { token: null });
    assert.equal(answer.status, 401);
  });

  it('refuses what is not a message of a session', async () => {
    const session = await initialize(served);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const noSession = await mcpPost(served, call);
    assert.equal(noSession.status, 400);
    assert.match(noSession.text, /Mcp-Session-Id/);
    const unknown = await mcpPost(served, call, { 'Mcp-Session-Id': 'not-a-session' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json<{ error: { code: number } }>().error.code, -32001);
    const parse = await mcpPost(served, '{"jsonrpc":', { 'Mcp-Session-Id': session });
    assert.equal(parse.status, 400);
    assert.equal(parse.json<{ error: { code: number } }>().error.code, -32700);
    const empty = await mcpPost(served, '', { 'Mcp-Session-Id': session });
    assert.equal(empty.status, 400);
    assert.equal(empty.json<{ error: { code: number } }>().error.code, -32700);
    const batch = await mcpPost(served, [call, { ...call, id: 3 }], { 'Mcp-Session-Id': session });
    assert.equal(batch.status, 400);
    assert.deepEqual(
      batch.json<{ id: number }[]>().map((reply) => reply.id),
      [2, 3],
    );
    const listed = await mcpPost(served, call, { 'Mcp-Session-Id': session });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.json<{ result: { tools: unknown[] } }>().result.tools.length, operationsFor('mcp').length);
  });

  it('answers a tools/call whose arguments the SDK would change as the catalogue does, before the SDK sees it', async () => {
    const session = await initialize(served);
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_save","arguments":{"content":"x","__proto__":{"agentId":"other"}}}}`;
    const answer = await mcpPost(served, body, { 'Mcp-Session-Id': session });
    assert.equal(answer.status, 200);
    const reply = answer.json<{ id: number; result: CallToolResult }>();
    assert.equal(reply.id, 7);
    assert.equal(reply.result.isError, true);
    assert.match(textOf(reply.result), /__proto__.*\[INVALID_INPUT\]/);
    assert.equal((await served.memory.stats()).memories, 0);
  });

  it('answers GET with 405 (no stream of server messages) and ends a session on DELETE', async () => {
    const session = await initialize(served);
    const get = await request(served, '/mcp', { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': session } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST, DELETE');
    const ended = await request(served, '/mcp', {
      method: 'DELETE',
      headers: { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION },
    });
    assert.equal(ended.status, 200, ended.text);
    const after = await mcpPost(served, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'Mcp-Session-Id': session });
    assert.equal(after.status, 404);
  });

  it('refuses a body over the limit', async () => {
    const session = await initialize(served);
    const answer = await mcpPost(served, 'x', {
      'Mcp-Session-Id': session,
      'Content-Length': String(64 * 1024 * 1024),
    });
    assert.equal(answer.status, 413);
  });

  it('closes the session unused the longest when full', async () => {
    const sessions = new McpSessions(() => createMcpServer(served.memory, SCOPE), 2);
    const headers = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };
    const open = async (): Promise<string> => {
      const answer = await sessions.handle(
        new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(INITIALIZE) }),
      );
      return answer.headers.get('mcp-session-id') ?? '';
    };
    const list = async (id: string): Promise<number> =>
      (
        await sessions.handle(
          new Request('http://localhost/mcp', {
            method: 'POST',
            headers: { ...headers, 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION },
            body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
          }),
        )
      ).status;
    try {
      const first = await open();
      const second = await open();
      // Using the first makes the second the one unused the longest.
      assert.equal(await list(first), 200);
      const third = await open();
      assert.equal(sessions.size, 2);
      assert.equal(await list(second), 404);
      assert.equal(await list(first), 200);
      assert.equal(await list(third), 200);
    } finally {
      await sessions.closeAll();
    }
  });
});
