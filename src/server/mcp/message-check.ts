import {
  type CallToolResult,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import {
  type ErrorReply,
  errorReply,
  INVALID_PARAMS,
  INVALID_REQUEST,
  PARSE_ERROR,
  type ReplyId,
  usableId,
} from './jsonrpc-errors';
import { describeIssues, paramsProblem } from './params-check';
import { forbiddenKeyError } from './tool-arguments';

/** A tools/call answered by the guard itself, as the server would answer a failed call: a tool error. */
export interface ToolErrorReply {
  jsonrpc: '2.0';
  id: string | number;
  result: CallToolResult;
}

/**
 * What to do with one line from the client: hand a valid message to the
 * SDK, skip a blank line, refuse it with error replies (none for a
 * notification or a response, which JSON-RPC never answers) and a reason
 * for the log, or answer a tools/call whose arguments the SDK would
 * silently change (see forbiddenKeyError) with a tool error.
 */
export type Verdict =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'blank' }
  | { kind: 'refused'; replies: ErrorReply[]; reason: string }
  | { kind: 'answered'; reply: ToolErrorReply; reason: string };

/**
 * Messages may quote the client's input (a JSON syntax error, an unknown
 * key), which can be megabytes long: they are cut to this length, both in
 * the reply and in the log.
 */
const MAX_MESSAGE_CHARS = 300;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function cut(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}

function refused(reason: string, ...replies: ErrorReply[]): Verdict {
  return { kind: 'refused', replies, reason };
}

/** Refused with one error reply, or none when `id` is undefined (a notification). */
function refusedWith(id: ReplyId | undefined, code: number, message: string): Verdict {
  const text = cut(message);
  return id === undefined ? refused(text) : refused(text, errorReply(id, code, text));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks one line (without its newline) as a JSON-RPC 2.0 message for an MCP server. */
export function checkLine(bytes: Uint8Array): Verdict {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    // Decoding leniently would turn the bad bytes into U+FFFD and store mangled text.
    return refusedWith(null, PARSE_ERROR, 'Parse error: the message is not valid UTF-8.');
  }
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refusedWith(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
  }
  return checkValue(value);
}

/** Checks a parsed JSON value as one message. */
export function checkValue(value: unknown): Verdict {
  if (Array.isArray(value)) return refuseBatch(value);
  if (!isPlainObject(value)) {
    return refusedWith(null, INVALID_REQUEST, 'Invalid request: a message must be a JSON object.');
  }
  if (!('method' in value) && ('result' in value || 'error' in value)) return checkResponse(value);
  // From here on it is a request (it has an id) or a notification (it has none).
  const hasId = 'id' in value;
  const id = usableId(value.id);
  if (hasId && id === undefined) {
    return refusedWith(null, INVALID_REQUEST, 'Invalid request: `id` must be a string or a number.');
  }
  // A message without an id that is not even a valid notification is answered
  // (JSON-RPC 2.0 section 5.1); only a valid notification goes unanswered.
  const replyId = hasId ? id : null;
  if (value.jsonrpc !== '2.0') {
    return refusedWith(replyId, INVALID_REQUEST, 'Invalid request: `jsonrpc` must be "2.0".');
  }
  if (typeof value.method !== 'string') {
    return refusedWith(replyId, INVALID_REQUEST, 'Invalid request: a request needs a `method` string.');
  }
  const noticeId = hasId ? id : undefined;
  if (value.params !== undefined && !isPlainObject(value.params)) {
    return refusedWith(noticeId, INVALID_PARAMS, `Invalid params for ${value.method}: \`params\` must be an object.`);
  }
  const envelope = (hasId ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(value);
  if (!envelope.success) {
    const inParams = envelope.error.issues.every((issue) => issue.path[0] === 'params');
    const message = inParams
      ? `Invalid params for ${value.method}: ${describeIssues(envelope.error.issues, 1)}.`
      : `Invalid request: ${describeIssues(envelope.error.issues)}.`;
    return refusedWith(inParams ? noticeId : replyId, inParams ? INVALID_PARAMS : INVALID_REQUEST, message);
  }
  const problem = paramsProblem(hasId ? 'request' : 'notification', value.method, value.params);
  if (problem) return refusedWith(noticeId, INVALID_PARAMS, problem);
  if (value.method === 'tools/call' && id !== undefined) {
    const result = forbiddenKeyError(value.params);
    if (result) {
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      return { kind: 'answered', reply: { jsonrpc: '2.0', id, result }, reason: cut(text) };
    }
  }
  return { kind: 'message', message: envelope.data };
}

/** A response is handed on if valid; a bad one is only logged, as answering it could start an endless exchange. */
function checkResponse(value: Record<string, unknown>): Verdict {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { kind: 'message', message: parsed.data };
  return refused(`Invalid response: ${describeIssues(parsed.error.issues)}.`);
}

/**
 * MCP 2025-06-18 removed JSON-RPC batching. Each request in the batch gets
 * its own error, so a client waiting on it fails at once; a batch with no
 * request in it gets one error with a null id.
 */
function refuseBatch(items: unknown[]): Verdict {
  const message =
    'Invalid request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send each message on its own line.';
  const ids = items.flatMap((item) => {
    const id = isPlainObject(item) && 'method' in item ? usableId(item.id) : undefined;
    return id === undefined ? [] : [id];
  });
  const replies = ids.length
    ? ids.map((id) => errorReply(id, INVALID_REQUEST, message))
    : [errorReply(null, INVALID_REQUEST, message)];
  return refused(`a batch of ${items.length}: ${message}`, ...replies);
}
