import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { LineReader } from '../../src/server/mcp/line-reader';
import { checkLine } from '../../src/server/mcp/message-check';
import { TopLevelIdScanner } from '../../src/server/mcp/top-level-id';
import { GuardedStdioTransport } from '../../src/server/mcp/transport';

/** Scans `text` split into pieces of `step` bytes, so every chunk boundary is tried. */
function scan(text: string, step = Infinity): string | number | undefined {
  const scanner = new TopLevelIdScanner();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += Math.min(step, bytes.length)) scanner.push(bytes.subarray(i, i + step));
  return scanner.id();
}

describe('mcp framing: the top-level id of an unparsed line', () => {
  it('finds the id wherever it is among the top-level keys, across any chunk boundary', () => {
    const params = { name: 'memory_save', arguments: { content: 'x'.repeat(100), id: 'inner' } };
    const cases: [unknown, string | number][] = [
      [{ method: 'tools/call', params, jsonrpc: '2.0', id: 'last' }, 'last'],
      [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params }, 7],
      [{ id: -1.5e3, params }, -1500],
      [{ params: { content: '\\"\n\t\\\\'.repeat(40) }, id: 'escapes' }, 'escapes'],
      [{ id: 'quote " and \\ and é', params }, 'quote " and \\ and é'],
    ];
    for (const [message, id] of cases) {
      const text = JSON.stringify(message);
      assert.equal(scan(text), id, text);
      for (const step of [1, 2, 3, 7]) assert.equal(scan(text, step), id, `${text} in pieces of ${step}`);
    }
    assert.equal(scan('{ "id" : "spaced" , "method" : "ping" }'), 'spaced');
    assert.equal(scan('{"id":1,"method":"ping","id":2}'), 2, 'the last one wins, as with JSON.parse');
  });

  it('ignores ids that are nested, inside strings, unusable or not yet ended', () => {
    const none = [
      '{"params":{"id":5},"method":"ping"}',
      '{"method":"say \\"id\\":5","params":{"text":"{\\"id\\":6}"}}',
      '{"idx":5,"xid":6,"i":7}',
      '{"id":{"a":1},"method":"ping"}',
      '{"id":[1],"method":"ping"}',
      '{"id":null}',
      '{"id":true}',
      `{"id":"${'x'.repeat(2000)}"}`,
      '[{"id":1}]',
      '{"method":"ping","id":42',
      '"id":5',
    ];
    for (const text of none) assert.equal(scan(text), undefined, text);
  });
});

describe('mcp framing: lines', () => {
  const line = (frame: unknown) => (frame as { bytes: Buffer }).bytes.toString();

  it('splits lines across and within chunks', () => {
    const reader = new LineReader(100);
    assert.deepEqual(reader.push(Buffer.from('{"a":')), []);
    const frames = [...reader.push(Buffer.from('1}\n{"b":2}\n\n{"c"')), ...reader.push(Buffer.from(':3}\r\n'))];
    assert.deepEqual(frames.map(line), ['{"a":1}', '{"b":2}', '', '{"c":3}\r']);
  });

  it('skips a line over the limit as it streams, keeping its id and size, then reads on', () => {
    const reader = new LineReader(64);
    const head = '{"method":"tools/call","params":{"content":"';
    const tail = '"},"id":"big"}';
    const frames = [
      ...reader.push(Buffer.from(head)),
      ...reader.push(Buffer.alloc(1000, 'x')),
      ...reader.push(Buffer.from(`${tail}\n{"id":2}`)),
      ...reader.push(Buffer.from('\n')),
    ];
    assert.equal(frames.length, 2);
    const [oversized, next] = frames;
    assert.deepEqual(oversized, { kind: 'oversized', size: head.length + 1000 + tail.length, id: 'big' });
    assert.equal(line(next), '{"id":2}');
    // Exactly at the limit is still a line.
    assert.equal(reader.push(Buffer.from(`${'y'.repeat(64)}\n`))[0]?.kind, 'line');
    assert.equal(reader.push(Buffer.from(`${'y'.repeat(65)}\n`))[0]?.kind, 'oversized');
  });
});

describe('mcp framing: refusals', () => {
  it('cuts messages that quote megabytes of input', () => {
    const verdict = checkLine(Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"ping","${'k'.repeat(100_000)}":1}`));
    assert.equal(verdict.kind, 'refused');
    if (verdict.kind !== 'refused') return;
    const [reply] = verdict.replies;
    assert.equal(reply?.error.code, -32600);
    assert.ok(reply.error.message.length <= 301, `${reply.error.message.length} characters`);
    assert.ok(verdict.reason.length <= 301);
  });
});

describe('mcp framing: the guarded stdio transport', () => {
  async function open(onmessage: (message: JSONRPCMessage) => void) {
    const input = new PassThrough();
    const output = new PassThrough();
    const log: string[] = [];
    const errors: Error[] = [];
    let closed = 0;
    const transport = new GuardedStdioTransport(input, output, { maxMessageBytes: 100, log: (line) => log.push(line) });
    transport.onmessage = onmessage;
    transport.onerror = (error) => errors.push(error);
    transport.onclose = () => closed++;
    await transport.start();
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const replies = () =>
      written
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id: unknown; error?: { code: number } });
    return { input, output, log, errors, closed: () => closed, settle, replies, transport };
  }

  it('refuses an oversized line by its id and hands on the next', async () => {
    const received: JSONRPCMessage[] = [];
    const peer = await open((message) => received.push(message));
    peer.input.write(`{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"x":"${'x'.repeat(200)}"}},"id":3}\n`);
    peer.input.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await peer.settle();
    assert.deepEqual(peer.replies(), [
      {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32600,
          message: 'Invalid request: the message is too large (268 bytes is over the limit of 100 bytes).',
        },
      },
    ]);
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    assert.equal(peer.log.length, 1);
    assert.match(peer.log[0] ?? '', /^dropped a message of 268 bytes \(answered -32600\)/);
  });

  it('reports a handler that throws and still delivers the rest of the chunk', async () => {
    const received: unknown[] = [];
    const peer = await open((message) => {
      received.push('id' in message ? message.id : undefined);
      if (received.length === 1) throw new Error('handler failed');
    });
    peer.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await peer.settle();
    assert.deepEqual(received, [1, 2]);
    assert.deepEqual(
      peer.errors.map((error) => error.message),
      ['handler failed'],
    );
  });

  it('closes once when its input ends, and survives an output error', async () => {
    const peer = await open(() => undefined);
    peer.output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    assert.equal(peer.closed(), 1);
    peer.output.emit('error', new Error('again, after close'));
    peer.input.end();
    await peer.settle();
    assert.equal(peer.closed(), 1);
    assert.deepEqual(
      peer.errors.map((error) => error.message),
      ['write EPIPE', 'again, after close'],
    );
    const ends = await open(() => undefined);
    ends.input.end();
    await ends.settle();
    assert.equal(ends.closed(), 1);
  });

  /**
   * Tester's minor note: a flood of replies to a slow client printed a
   * MaxListenersExceededWarning, one 'drain' listener per reply written
   * while the pipe was full. One listener serves all of them now.
   */
  it('waits for a full output with one drain listener, however many replies queue', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 16 });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const transport = new GuardedStdioTransport(input, output, { log: () => undefined });
      await transport.start();
      let resolved = 0;
      const sends = Array.from({ length: 50 }, (_, id) =>
        transport.send({ jsonrpc: '2.0', id, result: {} }).then(() => resolved++),
      );
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(resolved, 0, 'nothing is written until the client reads');
      assert.ok(output.listenerCount('drain') <= 1, `${output.listenerCount('drain')} drain listeners`);
      output.resume();
      await Promise.all(sends);
      assert.equal(output.listenerCount('drain'), 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning'),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('does not leave a reply waiting forever when the output closes while full', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 16 });
    const transport = new GuardedStdioTransport(input, output, { log: () => undefined });
    transport.onerror = () => undefined;
    await transport.start();
    const sends = Array.from({ length: 5 }, (_, id) => transport.send({ jsonrpc: '2.0', id, result: {} }));
    output.destroy();
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 1000));
    assert.equal(await Promise.race([Promise.all(sends).then(() => 'settled'), timeout]), 'settled');
    assert.equal(output.listenerCount('drain'), 0);
    const late = transport.send({ jsonrpc: '2.0', id: 'late', result: {} });
    assert.equal(await Promise.race([late.then(() => 'settled'), timeout]), 'settled', 'a send after it closed');
  });
});
