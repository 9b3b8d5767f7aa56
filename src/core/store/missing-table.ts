import { MemoryError } from '../errors';

/**
 * The table a SQLite "no such table" failure names, without its schema
 * (`main.vectors` → `vectors`); undefined for any other failure. A table of
 * the store can only be missing because a tool or a person dropped it.
 */
export function missingTableOf(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  return /no such table: (?:[\w]+\.)?(\w+)/.exec(message)?.[1];
}

/** The history tables: without them the entities are gone, and only a snapshot (or an export) has them. */
const HISTORY = new Set(['objects', 'commits', 'refs']);

/**
 * STORE_CORRUPT for a store that lacks `table`, with the repair that puts it
 * back: a rebuild of the index recreates the tables that hold no entities
 * (read counts, vectors, document sync state, the audit log) and the search
 * index's; the history's can only come back from a snapshot or an export.
 */
export function missingTableError(file: string, table: string, cause?: unknown): MemoryError {
  const repair = HISTORY.has(table)
    ? 'Restore a snapshot (`workspace-memory snapshot restore`), or start a new store with `workspace-memory init` in another folder and import an export.'
    : 'Rebuild the index (`workspace-memory reindex`, rebuildIndex(), or Memory: Rebuild Index) to recreate it, or restore a snapshot.';
  return new MemoryError(
    'STORE_CORRUPT',
    `The store at ${file} is missing its ${table} table (dropped by another tool?). ${repair}`,
    { cause },
  );
}

/** `error` as missingTableError when it is a "no such table" failure, else unchanged. */
export function translateMissingTable(error: unknown, file: string): unknown {
  if (error instanceof MemoryError && error.code !== 'STORE_CORRUPT') return error;
  const inner = error instanceof MemoryError ? error.cause : error;
  const table = missingTableOf(inner ?? error);
  return table === undefined ? error : missingTableError(file, table, inner ?? error);
}
