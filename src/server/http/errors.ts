import { isMemoryError, type MemoryErrorCode } from '../../core/errors';

/** The codes of refusals made by the HTTP layer itself, before any operation runs. */
export type HttpErrorCode = 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'INTERNAL';

export type ErrorCode = MemoryErrorCode | HttpErrorCode;

/** The body of every error answer: `{ "error": { "code", "message" } }`. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

/**
 * The status for each code the store reports. A Record rather than a
 * switch so a new MemoryErrorCode does not compile until it is given one.
 */
const STATUS_OF_MEMORY_ERROR: Readonly<Record<MemoryErrorCode, number>> = {
  INVALID_ID: 400,
  INVALID_INPUT: 400,
  UNKNOWN_TYPE: 400,
  TOO_MANY_TAGS: 400,
  LIMIT_TOO_LARGE: 400,
  TYPE_MISMATCH: 400,
  SNAPSHOT_INVALID: 400,
  IMPORT_INVALID: 400,
  UNKNOWN_WRITER: 400,
  INVALID_SUPERSEDE: 400,
  // The content was refused for what it holds, as a bad field would be.
  SECRET_DETECTED: 400,
  CONTENT_TOO_LARGE: 413,
  NOT_FOUND: 404,
  SNAPSHOT_NOT_FOUND: 404,
  NOT_PENDING: 409,
  NOTHING_TO_REVERT: 409,
  REVIEW_CONFLICT: 409,
  EXPORT_CONFLICT: 409,
  // Another process holds the store's write lock past the busy timeout: worth a retry.
  STORE_BUSY: 503,
  STORE_CLOSED: 503,
  AI_UNAVAILABLE: 503,
  CANCELLED: 500,
  STORE_INCOMPATIBLE: 500,
  STORE_READONLY: 500,
  STORE_CORRUPT: 500,
  STORE_FULL: 500,
  SQLITE_UNAVAILABLE: 500,
  AI_INVALID_OUTPUT: 500,
  TEAM_FOLDER_ACCESS: 500,
};

const STATUS_OF_HTTP_ERROR: Readonly<Record<HttpErrorCode, number>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INTERNAL: 500,
};

export function statusOf(code: ErrorCode): number {
  return (STATUS_OF_MEMORY_ERROR as Record<string, number>)[code] ?? STATUS_OF_HTTP_ERROR[code as HttpErrorCode];
}

/** A JSON error answer; `headers` for WWW-Authenticate, Allow, Connection. */
export function errorResponse(code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { error: { code, message } };
  return Response.json(body, { status: statusOf(code), headers });
}

/**
 * A body refused for its size may still be arriving: closing the connection
 * after the answer stops the client sending the rest, rather than have the
 * server read and drop it.
 */
export function closingIfTooLarge(code: ErrorCode): Record<string, string> {
  return code === 'CONTENT_TOO_LARGE' ? { Connection: 'close' } : {};
}

/**
 * What a failure becomes: a MemoryError keeps its code and message (they
 * are written for callers); anything else is a bug, whose details go to
 * the server's log, not to the client.
 */
export function failureResponse(error: unknown, log: (line: string) => void): Response {
  if (isMemoryError(error)) return errorResponse(error.code, error.message, closingIfTooLarge(error.code));
  log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return errorResponse('INTERNAL', 'The server failed to answer; its log says why.');
}
