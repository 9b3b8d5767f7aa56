import type { Readable, Writable } from 'node:stream';

import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { LIMITS } from '../../core/validation';
import { type ErrorReply, errorReply, INVALID_REQUEST } from './jsonrpc-errors';
import { LineReader } from './line-reader';
import { checkLine, type Verdict } from './message-check';

/**
 * The longest message line the server reads, in bytes. The largest
 * legitimate message is a save or update carrying LIMITS.maxContentBytes of
 * content; JSON escaping can grow that up to six times (a control character
 * becomes \u00XX), so eight times the content limit (8 MiB) leaves room for
 * that and the other arguments. Anything longer is refused unread.
 */
export const MAX_MESSAGE_BYTES = 8 * LIMITS.maxContentBytes;

export interface GuardedStdioOptions {
  maxMessageBytes?: number;
  /** One line per message refused or dropped, for standard error. */
  log: (line: string) => void;
}

/**
 * The server side of MCP's stdio transport, like the SDK's
 * StdioServerTransport, but bad input never stops it: a line longer than
 * the limit is skipped as it streams in (the SDK's buffer overflowed and
 * closed the transport), and a line that is not a valid MCP message gets
 * the JSON-RPC error it deserves (parse error, invalid request, invalid
 * params) and a log line, instead of silence. Only valid messages reach
 * the SDK's Protocol. It also closes when standard input ends.
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly reader: LineReader;
  private readonly maxMessageBytes: number;
  private started = false;
  private closed = false;
  /** Settles when a full output drains; shared by every write made meanwhile. */
  private drained: Promise<void> | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: GuardedStdioOptions,
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.reader = new LineReader(this.maxMessageBytes);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('GuardedStdioTransport already started.');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
    this.input.on('end', this.onEnd);
    this.output.on('error', this.onStreamError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onStreamError);
    this.input.off('end', this.onEnd);
    // The output's error listener stays: replies still in flight may hit a closed pipe, which must not crash.
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (const frame of this.reader.push(bytes)) {
      const verdict: Verdict =
        frame.kind === 'line' ? checkLine(frame.bytes) : tooLarge(frame.size, frame.id, this.maxMessageBytes);
      const size = frame.kind === 'line' ? frame.bytes.length : frame.size;
      if (verdict.kind === 'message') this.deliver(verdict.message);
      else if (verdict.kind === 'refused') this.refuse(verdict, size);
      else if (verdict.kind === 'answered') this.answer(verdict, size);
    }
  };

  /** A handler that throws is reported, and the other messages of the chunk still go through. */
  private deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private refuse(verdict: Extract<Verdict, { kind: 'refused' }>, size: number): void {
    const answered = verdict.replies.length
      ? `answered ${verdict.replies.map((r) => r.error.code).join(', ')}`
      : 'not answered';
    this.options.log(`dropped a message of ${size} bytes (${answered}): ${verdict.reason}`);
    for (const reply of verdict.replies) void this.write(`${JSON.stringify(reply)}\n`);
  }

  private answer(verdict: Extract<Verdict, { kind: 'answered' }>, size: number): void {
    this.options.log(`dropped a tools/call of ${size} bytes (answered with a tool error): ${verdict.reason}`);
    void this.write(`${JSON.stringify(verdict.reply)}\n`);
  }

  private readonly onStreamError = (error: Error): void => {
    // A broken pipe means the client is gone: report it and stop, rather than crash on an unhandled 'error'.
    this.onerror?.(error);
    void this.close();
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  /**
   * Writes one line; the promise settles once the output can take more. A
   * flood of replies to a slow client all wait on the same 'drain': one
   * listener per waiting reply leaked past Node's limit of ten and printed
   * a MaxListenersExceededWarning. An output that closes or fails while
   * full never drains, so that ends the wait too (the error itself goes to
   * onStreamError), rather than leave every later send pending forever.
   */
  private write(line: string): Promise<void> {
    if (this.output.write(line)) return Promise.resolve();
    // Written after the output was gone: no event will ever come.
    if (this.output.destroyed || this.output.writableEnded) return Promise.resolve();
    this.drained ??= new Promise((resolve) => {
      const done = (): void => {
        this.output.off('drain', done);
        this.output.off('close', done);
        this.output.off('error', done);
        this.drained = undefined;
        resolve();
      };
      this.output.on('drain', done);
      this.output.on('close', done);
      this.output.on('error', done);
    });
    return this.drained;
  }
}

function tooLarge(size: number, id: string | number | undefined, limit: number): Verdict {
  const message = `Invalid request: the message is too large (${size} bytes is over the limit of ${limit} bytes).`;
  const reply: ErrorReply = errorReply(id ?? null, INVALID_REQUEST, message);
  return { kind: 'refused', replies: [reply], reason: message };
}
