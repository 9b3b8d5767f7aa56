import type { Database, Row } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import { SEARCHABLE_TYPES, type EntityType } from '../types';
import { type SearchDocument, documentFor, documentLength } from './documents';

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

const split = (value: unknown): string[] => (value ? String(value).split(' ') : []);

/** The FTS5 table (and its vocabulary) of one searchable type. */
const ftsTable = (type: string): string => `search_fts_${type}`;
const vocabTable = (type: string): string => `search_vocab_${type}`;

function toCandidate(row: Row): Candidate {
  return {
    entityId: String(row.entity_id),
    doc: { content: split(row.content), tags: split(row.tags), meta: split(row.meta) },
  };
}

/**
 * The SQLite FTS5 index over pre-tokenized entity text. FTS5 finds and
 * pre-ranks candidates; the searcher rescores them (see bm25.ts) from the
 * stored terms.
 */
export class FtsIndex implements EntityIndexer {
  constructor(private readonly db: Database) {}

  index(entityId: string, body: VersionBody, fresh: boolean): number | null {
    if (!fresh) this.remove(entityId);
    const doc = documentFor(body);
    if (!doc) return null;
    const length = documentLength(doc);
    const columns = [doc.content, doc.tags, doc.meta].map((terms) => terms.join(' '));
    const { lastInsertRowid } = this.db.run(
      `INSERT INTO search_docs (entity_id, type, agent_id, user_id, length, content, tags, meta)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      entityId,
      body.type,
      body.agentId,
      body.userId ?? null,
      length,
      ...columns,
    );
    this.db.run(
      `INSERT INTO ${ftsTable(body.type)} (rowid, content, tags, meta) VALUES (?, ?, ?, ?)`,
      lastInsertRowid,
      ...columns,
    );
    this.countChange(body.type, 1, length);
    return lastInsertRowid;
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
          this.db.run(
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
    const row = this.db.get(
      `SELECT d.rowid, d.type, d.content, d.tags, d.meta, d.length FROM refs r JOIN search_docs d ON d.rowid = r.search_rowid
       WHERE r.id = ? AND d.entity_id = r.id`,
      entityId,
    );
    if (!row) return;
    // An external-content FTS5 table forgets a row when told its old values.
    this.db.run(
      `INSERT INTO ${ftsTable(String(row.type))} (${ftsTable(String(row.type))}, rowid, content, tags, meta)
       VALUES ('delete', ?, ?, ?, ?)`,
      Number(row.rowid),
      String(row.content),
      String(row.tags),
      String(row.meta),
    );
    this.db.run('DELETE FROM search_docs WHERE rowid = ?', Number(row.rowid));
    this.countChange(String(row.type), -1, -Number(row.length));
  }

  clear(): void {
    for (const type of SEARCHABLE_TYPES)
      this.db.run(`INSERT INTO ${ftsTable(type)} (${ftsTable(type)}) VALUES ('delete-all')`);
    this.db.run('DELETE FROM search_docs');
    this.db.run('DELETE FROM search_stats');
    this.pendingCounts().clear();
  }

  /**
   * The best `limit` rows in the scope for an FTS5 MATCH expression, by
   * FTS5's weighted BM25, with their terms. The scope is checked on
   * search_docs before anything is ranked; the terms are read only for the
   * rows that made the cut.
   */
  candidates(match: string, scope: IndexScope, weights: ColumnWeights, limit: number): Candidate[] {
    const agents = scope.agentIds.map(() => '?').join(', ');
    const user = scope.userId === undefined ? '' : ' AND (s.user_id = ? OR s.user_id IS NULL)';
    return this.db
      .all(
        `SELECT d.entity_id, d.content, d.tags, d.meta
         FROM (SELECT f.rowid AS id, bm25(${ftsTable(scope.type)}, ?, ?, ?) AS rank
               FROM ${ftsTable(scope.type)} f JOIN search_docs s ON s.rowid = f.rowid
               WHERE ${ftsTable(scope.type)} MATCH ? AND s.agent_id IN (${agents})${user}
               ORDER BY rank LIMIT ?) r
         JOIN search_docs d ON d.rowid = r.id ORDER BY r.rank`,
        weights.content,
        weights.tags,
        weights.meta,
        match,
        ...scope.agentIds,
        ...(scope.userId === undefined ? [] : [scope.userId]),
        limit,
      )
      .map(toCandidate);
  }

  /** How many indexed documents of `type` contain each term (in any column). */
  documentFrequencies(type: EntityType, terms: readonly string[]): Map<string, number> {
    const frequencies = new Map<string, number>();
    for (const term of terms) {
      const row = this.db.get(`SELECT doc FROM ${vocabTable(type)} WHERE term = ?`, term);
      if (row) frequencies.set(term, Number(row.doc));
    }
    return frequencies;
  }

  /** How many documents of `type` are indexed, and their average length. */
  stats(type: EntityType): IndexStats {
    const row = this.db.get('SELECT docs, terms FROM search_stats WHERE type = ?', type);
    const docs = Number(row?.docs ?? 0);
    return { docs, averageLength: docs > 0 ? Number(row?.terms ?? 0) / docs : 0 };
  }
}
