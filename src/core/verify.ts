import { MemoryError } from './errors';
import { REBUILD_ADVICE } from './search/fts-index';
import { recordVerifyOutcome } from './store/damage-marker';
import type { Database } from './store/database';
import { missingTableError } from './store/missing-table';
import { countOf, text } from './store/rows';
import { missingColumns, missingTables, STATE_TABLES, STORE_TABLES, type StoreTable } from './store/schema';
import { damagedHeaderError, headerDamage, impossibleLayoutVersion } from './store/store-file';
import { checkCommitHashes, checkCommitLinks, checkOrphans, checkRefs, walkChains } from './verify/history';
import {
  indexCounts,
  lostPendingRows,
  missingIndexTables,
  staleIndexRows,
  unindexedEntities,
} from './verify/search-index';
import { type HistoryTables, readCommits, readObjects, readRefs, reasonOf } from './verify/tables';
import type { VerifyError, VerifyErrorCode, VerifyReport } from './verify/types';

export type { VerifyError, VerifyErrorCode, VerifyReport } from './verify/types';

/**
 * Runs one check. A check that fails part-way (a damaged page, a dropped
 * table) becomes one error of `failure` saying so, and the checks after it
 * still run: verify lists every problem it can find instead of stopping at
 * the first. Only errors that are not about the store's content (it was
 * closed, say) end verify.
 */
function run(errors: VerifyError[], check: string, failure: VerifyErrorCode, work: () => VerifyError[]): void {
  try {
    // One by one: a spread of a hundred thousand errors would overflow the call's arguments.
    for (const error of work()) errors.push(error);
  } catch (error) {
    if (error instanceof MemoryError && error.code !== 'STORE_CORRUPT') throw error;
    const advice = failure === 'SEARCH_INDEX' ? ` ${REBUILD_ADVICE}` : '';
    errors.push({
      code: failure,
      id: check,
      message: `The ${check} check could not finish: ${reasonOf(error)}.${advice}`,
    });
  }
}

/** SQLite's own page-level check of the file. */
function sqliteIntegrity(db: Database, schema: string): VerifyError[] {
  return db
    .all(`PRAGMA ${schema}.quick_check`)
    .map((row) => text(row, `${schema}.quick_check`, 'quick_check'))
    .filter((text) => text !== 'ok')
    .map((text) => ({ code: 'SQLITE_INTEGRITY', id: schema, message: text }));
}

/**
 * The live file's header: the fields SQLite reads without checking (a
 * damaged write version only makes the file read-only), and a layout version
 * no release wrote, which must not read as "written by a newer version".
 */
function fileHeader(db: Database): VerifyError[] {
  const version = countOf(db.get('PRAGMA main.user_version'), 'pragma', 'user_version');
  const damage =
    headerDamage(db.path) ??
    (impossibleLayoutVersion(version) ? `the layout version (bytes 60-63) reads ${version}` : undefined);
  return damage ? [{ code: 'FILE_HEADER', id: 'header', message: damagedHeaderError(db.path, damage).message }] : [];
}

/**
 * The store's tables that are gone: every one the layout has, for the live
 * store; those a restore copies, for a snapshot. Reading a missing table
 * fails too, but only the reads that need it, and only with SQLite's words:
 * this names each one once, with what puts it back.
 */
function missingStoreTables(db: Database, schema: string): VerifyError[] {
  const expected = schema === 'main' ? STORE_TABLES : STATE_TABLES;
  // A column dropped from a table that is there (by hand, or a damaged schema): its table is
  // reported as missing what it needs, since only a restore or a rebuild puts a column back.
  const columns: VerifyError[] = missingColumns(db, schema, expected as StoreTable[]).map((column) => ({
    code: 'MISSING_TABLE',
    id: column.split('.')[0]!,
    message: `The ${column.split('.')[0]} table has no ${column.split('.')[1]} column: the store's layout was changed. Restore a snapshot (\`workspace-memory snapshot restore\`) to put it back.`,
  }));
  return [
    ...columns,
    ...missingTables(db, expected, schema).map((table): VerifyError => ({
      code: 'MISSING_TABLE',
      id: table,
      message:
        schema === 'main'
          ? missingTableError(db.path, table).message
          : `The snapshot has no ${table} table: it was damaged after it was taken.`,
    })),
  ];
}

/** The history checks; those that need a table read whole say so when it was not. */
function verifyHistory(tables: HistoryTables, errors: VerifyError[]): void {
  run(errors, 'commit links', 'CHECK_SKIPPED', () => checkCommitLinks(tables));
  run(errors, 'commit hashes', 'CHECK_SKIPPED', () => checkCommitHashes(tables));
  run(errors, 'entity heads', 'CHECK_SKIPPED', () => checkRefs(tables));
  let reachable: ReadonlySet<number> | undefined;
  run(errors, 'entity histories', 'CHECK_SKIPPED', () => {
    const walk = walkChains(tables);
    reachable = walk.reachable;
    return walk.errors;
  });
  if (reachable && tables.commits.complete && tables.refs.complete) {
    const found = reachable;
    run(errors, 'orphan commits', 'CHECK_SKIPPED', () => checkOrphans(tables, found));
  } else {
    errors.push({
      code: 'CHECK_SKIPPED',
      id: 'orphan commits',
      message: 'Commits were not checked for being on some history: the commits or entities could not all be read.',
    });
  }
}

/**
 * The search index against the entities it indexes. The index is derived
 * data: any damage, even a table that is gone, is repaired by rebuilding it.
 */
function verifySearchIndex(db: Database, errors: VerifyError[]): void {
  const missing: VerifyError[] = [];
  run(missing, 'search index tables', 'SEARCH_INDEX', () => missingIndexTables(db));
  errors.push(...missing);
  if (missing.length > 0) return;
  run(errors, 'search rows of entities', 'SEARCH_INDEX', () => unindexedEntities(db));
  run(errors, 'stale search rows', 'SEARCH_INDEX', () => staleIndexRows(db));
  run(errors, 'search counts', 'SEARCH_INDEX', () => indexCounts(db));
  run(errors, 'waiting search rows', 'SEARCH_INDEX', () => lostPendingRows(db));
}

/**
 * Recomputes every object and commit hash and walks every entity's chain
 * from its head to its root, then (for the live store) checks the search
 * index. `schema` is `main` for the live store, or the name a snapshot is
 * attached under before it is restored. Damage is reported, never thrown;
 * only a file whose schema cannot be read at all, where nothing could be
 * checked, throws STORE_CORRUPT.
 *
 * For the live store, the outcome is also left beside the file: damage
 * other than the search index's (which a rebuild repairs) makes writes
 * refuse until a verify finds the store valid (see store/damage-marker.ts).
 */
export function verifyState(db: Database, schema = 'main'): VerifyReport {
  const errors: VerifyError[] = [];
  // Every statement below needs the schema: if it cannot be read, say so once.
  try {
    db.get(`SELECT count(*) AS n FROM ${schema}.sqlite_master`);
  } catch (error) {
    // The live store's own error (STORE_CORRUPT, naming its file); an attached snapshot's is the report.
    if (schema === 'main') throw error;
    errors.push({ code: 'UNREADABLE', id: schema, message: `The schema cannot be read: ${reasonOf(error)}.` });
    return { valid: false, totalObjects: 0, totalCommits: 0, totalEntities: 0, errors };
  }
  if (schema === 'main') run(errors, 'file header', 'FILE_HEADER', () => fileHeader(db));
  run(errors, 'SQLite integrity', 'SQLITE_INTEGRITY', () => sqliteIntegrity(db, schema));
  run(errors, 'store tables', 'UNREADABLE', () => missingStoreTables(db, schema));
  const tables: HistoryTables = {
    objects: readObjects(db, schema, errors),
    commits: readCommits(db, schema, errors),
    refs: readRefs(db, schema, errors),
  };
  verifyHistory(tables, errors);
  // Snapshots hold the history only; the live store also has its search index.
  if (schema === 'main') {
    verifySearchIndex(db, errors);
    const damage = errors.filter((error) => error.code !== 'SEARCH_INDEX').map((error) => error.message);
    recordVerifyOutcome(db.path, damage, new Date());
  }
  return {
    valid: errors.length === 0,
    totalObjects: tables.objects.rows.size,
    totalCommits: tables.commits.rows.size,
    totalEntities: tables.refs.rows.size,
    errors,
  };
}
