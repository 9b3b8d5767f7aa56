import { REBUILD_ADVICE } from '../search/fts-index';
import type { Database } from '../store/database';
import { countOf, num, text } from '../store/rows';
import { ftsTable, SEARCH_INDEX_TABLES } from '../store/schema';
import { SEARCHABLE_TYPES } from '../types';
import type { VerifyError } from './types';

/** At most this many rows of each kind of index damage are listed: one is enough to call for a rebuild. */
const INDEX_SAMPLES = 20;

const indexError = (id: string, problem: string): VerifyError => ({
  code: 'SEARCH_INDEX',
  id,
  message: `${problem} ${REBUILD_ADVICE}`,
});

/**
 * The search index's tables that are missing (dropped by hand or by a
 * tool). The other index checks read them, so they run only when none is.
 */
export function missingIndexTables(db: Database): VerifyError[] {
  const present = new Set(
    db.all('SELECT name FROM main.sqlite_master').map((row) => text(row, 'sqlite_master', 'name')),
  );
  return SEARCH_INDEX_TABLES.filter((table) => !present.has(table)).map((table) =>
    indexError(table, `The search index table ${table} is missing.`),
  );
}

/** Every live searchable entity has exactly its own search row. */
export function unindexedEntities(db: Database): VerifyError[] {
  const searchable = SEARCHABLE_TYPES.map((type) => `'${type}'`).join(', ');
  return db
    .all(
      `SELECT r.id FROM refs r LEFT JOIN search_docs d ON d.rowid = r.search_rowid
       WHERE r.deleted = 0 AND r.type IN (${searchable}) AND (d.rowid IS NULL OR d.entity_id <> r.id) LIMIT ${INDEX_SAMPLES}`,
    )
    .map((row) => text(row, 'refs', 'id'))
    .map((id) => indexError(id, `Entity ${id} is not in the search index.`));
}

/** Every search row belongs to a live entity (not deleted, pending review or superseded) that points back at it. */
export function staleIndexRows(db: Database): VerifyError[] {
  return db
    .all(
      `SELECT d.rowid, d.entity_id FROM search_docs d LEFT JOIN refs r ON r.id = d.entity_id
       WHERE r.id IS NULL OR r.deleted <> 0 OR r.search_rowid IS NOT d.rowid LIMIT ${INDEX_SAMPLES}`,
    )
    .map((row) => text(row, 'search_docs', 'entity_id'))
    .map((id) => indexError(id, `The search index holds a stale row for ${id}.`));
}

/** The per-type counts BM25 uses are right, and FTS5 holds every row but those waiting in the queue. */
export function indexCounts(db: Database): VerifyError[] {
  const errors: VerifyError[] = [];
  const counted = new Map(
    db
      .all('SELECT type, docs, terms FROM search_stats')
      .map((row) => [
        text(row, 'search_stats', 'type'),
        [num(row, 'search_stats', 'docs'), num(row, 'search_stats', 'terms')],
      ]),
  );
  for (const type of SEARCHABLE_TYPES) {
    const actual = db.get(
      `SELECT count(*) AS docs, coalesce(sum(length), 0) AS terms,
         (SELECT count(*) FROM search_pending p JOIN search_docs w ON w.rowid = p.rowid WHERE w.type = ?1) AS waiting
       FROM search_docs WHERE type = ?1`,
      type,
    );
    const docs = countOf(actual, 'search_docs', 'docs');
    const [statDocs, statTerms] = counted.get(type) ?? [0, 0];
    if (statDocs !== docs || statTerms !== countOf(actual, 'search_docs', 'terms')) {
      errors.push(indexError(type, `The ${type} search counts are wrong.`));
    }
    const belong = docs - countOf(actual, 'search_pending', 'waiting');
    const inFts = countOf(db.get(`SELECT count(*) AS n FROM ${ftsTable(type)}_docsize`), `${ftsTable(type)}_docsize`);
    if (inFts !== belong) {
      errors.push(indexError(type, `The ${type} full-text index holds ${inFts} rows where ${belong} belong.`));
    }
  }
  return errors;
}

/** Every row waiting to enter FTS5 is a search row. */
export function lostPendingRows(db: Database): VerifyError[] {
  const lost = countOf(
    db.get(
      'SELECT count(*) AS n FROM search_pending p LEFT JOIN search_docs d ON d.rowid = p.rowid WHERE d.rowid IS NULL',
    ),
    'search_pending',
  );
  return lost > 0 ? [indexError('search_pending', `${lost} waiting search rows have no document.`)] : [];
}
