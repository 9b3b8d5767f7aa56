import type { SQLInputValue } from 'node:sqlite';

import { MemoryError } from '../errors';
import { type Database, type Row, translateSqliteError } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import { countOf, num, searchDocColumns, text } from '../store/rows';
import { createSearchIndex, ftsTable, SEARCH_INDEX_TABLES, vocabTable } from '../store/schema';
import type { EntityType } from '../types';
import { documentFor, documentLength, type SearchDocument } from './documents';

/** What to do about any damage to the search index: it is derived, so rebuilding it is the repair. */
export const REBUILD_ADVICE = 'Rebuild the search index (rebuildIndex(), CLI `reindex`, or Memory: Rebuild Index).';

/**
 * A SQLite failure of an index statement as the store's error. A missing
 * table or a broken FTS5 table is damage that a rebuild repairs, and says
 * so; anything else (busy, full, read-only, a damaged page) is translated
 * as any other statement's.
 */
function indexError(error: unknown, file: string): unknown {
  // Database.get and .all have already made a MemoryError of some: what SQLite said is its cause.
  const sqlite = error instanceof MemoryError ? error.cause : error;
  const errcode = (sqlite as { errcode?: unknown } | null)?.errcode;
  // Extended result codes keep the primary code in their low byte.
  const code = typeof errcode === 'number' ? errcode & 0xff : undefined;
  // 1 = SQLITE_ERROR (a missing table, a broken FTS5 table), 267 = SQLITE_CORRUPT_VTAB
  // (FTS5's own data). A damaged page (plain SQLITE_CORRUPT) may be anyone's: the store's error.
  if (code !== 1 && errcode !== 267) return error instanceof MemoryError ? error : translateSqliteError(error, file);
  const reason = sqlite instanceof Error ? sqlite.message : String(sqlite);
  return new MemoryError('STORE_CORRUPT', `The search index of ${file} is damaged (${reason}). ${REBUILD_ADVICE}`, {
    cause: sqlite,
  });
}

/** Called by the entity store inside each write transaction, so the index never lags the data. */
export interface EntityIndexer {
  /**
   * Indexes a version of an entity; returns the search row to record on
   * the entity's ref, or null when the entity is not searchable (profiles,
   * sessions).
   */
  index(entityId: string, body: VersionBody, fresh: boolean): number | null;
  remove(entityId: string): void;
  /** Drops every row; `index` is then called for each live entity. */
  clear(): void;
}

/** Per-column BM25 weights. */
export interface ColumnWeights {
  content: number;
  tags: number;
  meta: number;
}

export interface IndexStats {
  docs: number;
  /** Average document length in terms. */
  averageLength: number;
}

export interface Candidate {
  entityId: string;
  doc: SearchDocument;
}

/** Which entities a search may return. */
export interface IndexScope {
  type: EntityType;
  agentIds: readonly string[];
  /** Undefined: any user. A string: that user's entities and those without a user. */
  userId?: string;
}

/**
 * Documents matching every group, where a group matches a document that
 * has any of its terms: `[[a, b]]` is "a OR b", `[[a], [b, c]]` is "a AND (b OR c)".
 */
export type MatchQuery = readonly (readonly string[])[];

/**
 * How many search rows may wait outside FTS5 before they are put into it
 * together. Each search reads the waiting rows of its type and matches them
 * itself, so this stays small; 64 spreads FTS5's per-transaction cost over
 * 64 single saves.
 */
export const PENDING_LIMIT = 64;

/**
 * How many of the newest matching rows FTS5 ranks at most. bm25() costs
 * about 1.5 µs per matching row, and a query whose every word is common
 * (each in a fifth of a 100,000-memory store) matches ~19,000 rows: 28 ms of
 * CPU to keep the best hundred, the slowest searches there (p95), and twice
 * that while another process writes. Past the window only the newest rows
 * are ranked (a row is rewritten on every save, so newest means most
 * recently saved, which recall's recency favours anyway). A query with a
 * word rarer than this is ranked exactly as before. Measured on the search
 * benchmark's 400 questions at 100,000 memories: the top ten identical for
 * 347 of them and 98% the same overall (bench/search-under-load.mjs).
 */
export const RANK_WINDOW = 5000;

interface TransactionBatch {
  queued: Map<number, { type: string; columns: string[] }>;
  /** Set once the transaction has indexed PENDING_LIMIT rows: the rest go straight into FTS5. */
  direct: boolean;
}

const split = (terms: string): string[] => (terms ? terms.split(' ') : []);

/** A search_docs row's three indexed columns, in FTS5's column order. */
function columnValues(row: Row): [string, string, string] {
  const { content, tags, meta } = searchDocColumns(row);
  return [content, tags, meta];
}

const columnsOf = (doc: SearchDocument): string[] => [doc.content, doc.tags, doc.meta].map((terms) => terms.join(' '));

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

function matchExpression(query: MatchQuery): string {
  return query.map((group) => `(${group.map(quote).join(' OR ')})`).join(' AND ');
}

/** Every term of a document, whatever the column. */
const termsOf = (doc: SearchDocument): Set<string> => new Set([...doc.content, ...doc.tags, ...doc.meta]);

function matches(query: MatchQuery, doc: SearchDocument): boolean {
  const present = termsOf(doc);
  return query.every((group) => group.some((term) => present.has(term)));
}

/** The scope as a condition on the search_docs row `alias`. */
function scopeClause(scope: IndexScope, alias: string): { clause: string; params: string[] } {
  const agents = scope.agentIds.map(() => '?').join(', ');
  const user = scope.userId === undefined ? '' : ` AND (${alias}.user_id = ? OR ${alias}.user_id IS NULL)`;
  return {
    clause: `${alias}.agent_id IN (${agents})${user}`,
    params: [...scope.agentIds, ...(scope.userId === undefined ? [] : [scope.userId])],
  };
}

function toCandidate(row: Row): Candidate {
  const { content, tags, meta } = searchDocColumns(row);
  return {
    entityId: text(row, 'search_docs', 'entity_id'),
    doc: { content: split(content), tags: split(tags), meta: split(meta) },
  };
}

/**
 * The SQLite FTS5 index over pre-tokenized entity text. FTS5 finds and
 * pre-ranks candidates; the searcher rescores them (see bm25.ts) from the
 * stored terms.
 */
export class FtsIndex implements EntityIndexer {
  constructor(private readonly db: Database) {}

  /** The index's statements: their failures say the index is damaged and how to repair it. */
  private readonly sql = {
    run: (sql: string, ...params: SQLInputValue[]) => this.guarded(() => this.db.run(sql, ...params)),
    get: (sql: string, ...params: SQLInputValue[]) => this.guarded(() => this.db.get(sql, ...params)),
    all: (sql: string, ...params: SQLInputValue[]) => this.guarded(() => this.db.all(sql, ...params)),
  };

  private guarded<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw indexError(error, this.db.path);
    }
  }

  index(entityId: string, body: VersionBody, fresh: boolean): number | null {
    if (!fresh) this.remove(entityId);
    const doc = documentFor(body);
    if (!doc) return null;
    const length = documentLength(doc);
    const columns = columnsOf(doc);
    const { lastInsertRowid } = this.sql.run(
      `INSERT INTO search_docs (entity_id, type, agent_id, user_id, length, content, tags, meta)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      entityId,
      body.type,
      body.agentId,
      body.userId ?? null,
      length,
      ...columns,
    );
    const batch = this.batch();
    if (batch.direct) this.insertFts(body.type, lastInsertRowid, columns);
    else {
      batch.queued.set(lastInsertRowid, { type: body.type, columns });
      // A large transaction pays FTS5's price once anyway: index as it goes.
      if (batch.queued.size >= PENDING_LIMIT) {
        batch.direct = true;
        for (const [rowid, row] of batch.queued) this.insertFts(row.type, rowid, row.columns);
        batch.queued.clear();
      }
    }
    this.countChange(body.type, 1, length);
    return lastInsertRowid;
  }

  private insertFts(type: string, rowid: number, columns: readonly string[]): void {
    this.sql.run(`INSERT INTO ${ftsTable(type)} (rowid, content, tags, meta) VALUES (?, ?, ?, ?)`, rowid, ...columns);
  }

  /**
   * The rows this transaction has indexed but not yet put into FTS5. Just
   * before the commit they join the pending rows, or, once PENDING_LIMIT rows
   * are waiting, all of them go into FTS5 in this one transaction.
   */
  private batch(): TransactionBatch {
    return this.db.perTransaction<TransactionBatch>(
      'search_batch',
      () => ({ queued: new Map(), direct: false }),
      ({ queued }) => {
        if (queued.size === 0) return;
        const waiting = countOf(this.sql.get('SELECT count(*) AS n FROM search_pending'), 'search_pending');
        if (waiting + queued.size < PENDING_LIMIT) {
          for (const rowid of queued.keys()) this.sql.run('INSERT INTO search_pending (rowid) VALUES (?)', rowid);
          return;
        }
        for (const [rowid, row] of queued) this.insertFts(row.type, rowid, row.columns);
        for (const row of this.sql.all(
          'SELECT d.rowid, d.type, d.content, d.tags, d.meta FROM search_pending p CROSS JOIN search_docs d ON d.rowid = p.rowid',
        ))
          this.insertFts(text(row, 'search_docs', 'type'), num(row, 'search_docs', 'rowid'), columnValues(row));
        this.sql.run('DELETE FROM search_pending');
      },
    );
  }

  /** Document counts and lengths change per write but are stored once per transaction. */
  private countChange(type: string, docs: number, terms: number): void {
    const pending = this.pendingCounts();
    const delta = pending.get(type) ?? { docs: 0, terms: 0 };
    pending.set(type, { docs: delta.docs + docs, terms: delta.terms + terms });
  }

  private pendingCounts(): Map<string, { docs: number; terms: number }> {
    return this.db.perTransaction(
      'search_stats',
      () => new Map<string, { docs: number; terms: number }>(),
      (changes) => {
        for (const [type, delta] of changes) {
          this.sql.run(
            `INSERT INTO search_stats (type, docs, terms) VALUES (?, ?, ?)
             ON CONFLICT(type) DO UPDATE SET docs = docs + excluded.docs, terms = terms + excluded.terms`,
            type,
            delta.docs,
            delta.terms,
          );
        }
      },
    );
  }

  remove(entityId: string): void {
    const row = this.sql.get(
      `SELECT d.rowid, d.type, d.content, d.tags, d.meta, d.length FROM refs r JOIN search_docs d ON d.rowid = r.search_rowid
       WHERE r.id = ? AND d.entity_id = r.id`,
      entityId,
    );
    if (!row) return;
    const rowid = num(row, 'search_docs', 'rowid');
    const type = text(row, 'search_docs', 'type');
    const waiting =
      this.batch().queued.delete(rowid) ||
      this.sql.run('DELETE FROM search_pending WHERE rowid = ?', rowid).changes === 1;
    // An external-content FTS5 table forgets a row when told its old values.
    if (!waiting) {
      this.sql.run(
        `INSERT INTO ${ftsTable(type)} (${ftsTable(type)}, rowid, content, tags, meta)
         VALUES ('delete', ?, ?, ?, ?)`,
        rowid,
        ...columnValues(row),
      );
    }
    this.sql.run('DELETE FROM search_docs WHERE rowid = ?', rowid);
    this.countChange(type, -1, -num(row, 'search_docs', 'length'));
  }

  /**
   * Drops every table of the index and creates them again, empty. Emptying
   * them instead would need them whole: FTS5's 'delete-all' fails on a table
   * that was dropped or lost a shadow table, and a DELETE must read a damaged
   * table's rows. Dropping needs neither, so a rebuild repairs any index.
   */
  clear(): void {
    // main. by name: a snapshot being restored is attached with tables of the same names,
    // and an unqualified name missing from main would drop the snapshot's.
    for (const table of SEARCH_INDEX_TABLES) this.db.exec(`DROP TABLE IF EXISTS main.${table}`);
    createSearchIndex(this.db);
    this.pendingCounts().clear();
    this.batch().queued.clear();
  }

  /**
   * The best `limit` rows in the scope matching `query`, by FTS5's weighted
   * BM25, with their terms; and, apart, the matching rows still waiting to
   * enter FTS5, which nothing has ranked. The scope is checked on search_docs
   * before anything is ranked; the terms are read only for the rows that
   * made the cut.
   */
  candidates(
    query: MatchQuery,
    scope: IndexScope,
    weights: ColumnWeights,
    limit: number,
  ): { ranked: Candidate[]; waiting: Candidate[] } {
    const { clause, params } = scopeClause(scope, 's');
    const table = ftsTable(scope.type);
    const expression = matchExpression(query);
    // The RANK_WINDOW-th newest match, when there are more: older rows are not ranked. FTS5 walks
    // the doclist backwards for this (well under a millisecond) and takes `rowid >= ?` as a range.
    const floorRow = this.db.get(
      `SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ${RANK_WINDOW - 1}`,
      expression,
    );
    const floor = floorRow ? Number(floorRow.rowid) : 0;
    const rank = (from: number): Candidate[] =>
      this.db
        .all(
          `SELECT d.entity_id, d.content, d.tags, d.meta
           FROM (SELECT f.rowid AS id, bm25(${table}, ?, ?, ?) AS rank
                 FROM ${table} f JOIN search_docs s ON s.rowid = f.rowid
                 WHERE ${table} MATCH ? AND f.rowid >= ? AND ${clause}
                 ORDER BY rank LIMIT ?) r
           JOIN search_docs d ON d.rowid = r.id ORDER BY r.rank`,
          weights.content,
          weights.tags,
          weights.meta,
          expression,
          from,
          ...params,
          limit,
        )
        .map(toCandidate);
    let ranked = rank(floor);
    // A scope that is a small corner of the store may have too few rows among the newest: rank every match then.
    if (floor > 0 && ranked.length < limit) ranked = rank(0);
    const waiting = this.waiting(scope.type, scope).filter((candidate) => matches(query, candidate.doc));
    return { ranked, waiting };
  }

  /** Runs `work`'s reads in one read transaction: a flush by another process cannot move rows out of sight between them. */
  read<T>(work: () => T): T {
    return this.db.read(work);
  }

  /**
   * Rows of `type` not yet in FTS5 (at most PENDING_LIMIT), optionally only
   * those in a scope. CROSS JOIN makes SQLite start from the few waiting rows:
   * left to itself it may scan every search row for the type and scope.
   */
  private waiting(type: EntityType, scope?: IndexScope): Candidate[] {
    const { clause, params } = scope ? scopeClause(scope, 'd') : { clause: '1', params: [] };
    return this.db
      .all(
        `SELECT d.entity_id, d.content, d.tags, d.meta FROM search_pending p CROSS JOIN search_docs d ON d.rowid = p.rowid
         WHERE d.type = ? AND ${clause}`,
        type,
        ...params,
      )
      .map(toCandidate);
  }

  /** How many indexed documents of `type` contain each term (in any column). */
  documentFrequencies(type: EntityType, terms: readonly string[]): Map<string, number> {
    const frequencies = new Map<string, number>();
    for (const term of terms) {
      const row = this.sql.get(`SELECT doc FROM ${vocabTable(type)} WHERE term = ?`, term);
      if (row) frequencies.set(term, num(row, vocabTable(type), 'doc'));
    }
    for (const { doc } of this.waiting(type)) {
      const present = termsOf(doc);
      for (const term of terms) if (present.has(term)) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    }
    return frequencies;
  }

  /** How many documents of `type` are indexed, and their average length. */
  stats(type: EntityType): IndexStats {
    const row = this.sql.get('SELECT docs, terms FROM search_stats WHERE type = ?', type);
    const docs = countOf(row, 'search_stats', 'docs');
    return { docs, averageLength: docs > 0 ? countOf(row, 'search_stats', 'terms') / docs : 0 };
  }
}
