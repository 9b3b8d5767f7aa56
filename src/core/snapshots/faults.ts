/**
 * Which file is at fault when a restore fails: a snapshot that cannot be read
 * is SNAPSHOT_INVALID and leaves the live store alone, while damage in the
 * live store's own pages is what makes a restore rebuild it rather than copy
 * into it. The preview, the restore and the rebuild tell the two apart here.
 */
import { isMemoryError, MemoryError } from '../errors';
import type { Database } from '../store/database';
import { text } from '../store/rows';
import { reasonOf } from '../verify/tables';

/**
 * A failure while opening or reading a snapshot, as SNAPSHOT_INVALID. The
 * database layer names the live store in what it reports (a damaged or
 * unreadable file), but here the file at fault is the snapshot; the live
 * store's own conditions (busy, closed, full) pass unchanged.
 */
export function snapshotFault(error: unknown, what: string): unknown {
  if (isMemoryError(error) && !isMemoryError(error, 'STORE_CORRUPT') && !isMemoryError(error, 'STORE_READONLY')) {
    return error;
  }
  const sqlite = isMemoryError(error) ? error.cause : error;
  const reason = sqlite instanceof Error ? sqlite.message : String(sqlite);
  return new MemoryError('SNAPSHOT_INVALID', `${what}: ${reason}. The live store was not changed.`, { cause: error });
}

/** What to do when a store cannot be mended in place: its entities survive in an export or a snapshot. */
export const NEW_STORE_ADVICE =
  'Start a new store with `workspace-memory init` in another folder and import an export of this one (or restore a snapshot there), then move it into place.';

/**
 * Damage SQLite finds in the live file's pages (PRAGMA quick_check: every
 * page and record, not the indexes' agreement), as its first complaint;
 * undefined when there is none. A check that cannot run is damage too.
 */
export function liveDamage(db: Database): string | undefined {
  try {
    const problems = db
      .all('PRAGMA main.quick_check')
      .map((row) => text(row, 'quick_check', 'quick_check'))
      .filter((line) => line !== 'ok');
    if (problems.length === 0) return undefined;
    return problems.length === 1 ? `1 problem: ${problems[0]}` : `${problems.length} problems, first: ${problems[0]}`;
  } catch (error) {
    if (isMemoryError(error) && !isMemoryError(error, 'STORE_CORRUPT')) throw error;
    return reasonOf(error);
  }
}
