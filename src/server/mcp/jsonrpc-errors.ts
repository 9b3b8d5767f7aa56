import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/**
 * The id an error reply carries: the request's own when it could be read,
 * otherwise null, as JSON-RPC 2.0 requires (section 5). The SDK's
 * JSONRPCErrorResponse type has no null id, hence this type of our own.
 */
export type ReplyId = string | number | null;

export interface ErrorReply {
  jsonrpc: '2.0';
  id: ReplyId;
  error: { code: number; message: string };
}

/** The JSON-RPC error codes the guard answers with (the SDK itself answers -32601). */
export const PARSE_ERROR: number = ErrorCode.ParseError;
export const INVALID_REQUEST: number = ErrorCode.InvalidRequest;
export const INVALID_PARAMS: number = ErrorCode.InvalidParams;

export function errorReply(id: ReplyId, code: number, message: string): ErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/**
 * An id a client can match a reply to: a string or a finite number. MCP
 * wants whole numbers, but a fractional one still names the request, so
 * it is echoed in the -32600 that refuses it.
 */
export function usableId(value: unknown): string | number | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}
