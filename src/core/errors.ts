/**
 * Every failure the store reports to a caller is a MemoryError with a stable
 * `code`, so the CLI, the MCP server and the extension can map it to an exit
 * status, a JSON-RPC error or a message with a way forward.
 */
export type MemoryErrorCode =
  | 'INVALID_ID'
  | 'INVALID_INPUT'
  | 'UNKNOWN_TYPE'
  | 'CONTENT_TOO_LARGE'
  | 'TOO_MANY_TAGS'
  | 'LIMIT_TOO_LARGE'
  | 'NOT_FOUND'
  | 'TYPE_MISMATCH'
  | 'CANCELLED'
  | 'SNAPSHOT_NOT_FOUND'
  | 'SNAPSHOT_INVALID'
  | 'IMPORT_INVALID'
  | 'STORE_BUSY'
  | 'STORE_CLOSED'
  | 'STORE_INCOMPATIBLE'
  | 'STORE_READONLY'
  | 'STORE_CORRUPT'
  | 'STORE_FULL'
  | 'SQLITE_UNAVAILABLE'
  | 'AI_UNAVAILABLE'
  | 'AI_INVALID_OUTPUT'
  | 'SECRET_DETECTED'
  | 'UNKNOWN_WRITER'
  | 'NOT_PENDING'
  | 'NOTHING_TO_REVERT'
  | 'INVALID_SUPERSEDE'
  | 'REVIEW_CONFLICT'
  /**
   * An export would overwrite a person's text: a generated block edited by
   * hand, broken or duplicated markers, a file that changed meanwhile or is
   * not what the export writes. Nothing was written.
   */
  | 'EXPORT_CONFLICT'
  /** A team folder's file or folder could not be read or written (permissions, a read-only or full disk). */
  | 'TEAM_FOLDER_ACCESS';

export class MemoryError extends Error {
  override readonly name = 'MemoryError';
  constructor(
    readonly code: MemoryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isMemoryError(value: unknown, code?: MemoryErrorCode): value is MemoryError {
  return value instanceof MemoryError && (code === undefined || value.code === code);
}
