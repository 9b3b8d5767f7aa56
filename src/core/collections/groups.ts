import type { Database } from '../store/database';
import { CHUNK_INDEX_SQL } from '../store/place';
import { countOf, num, text, textOrNull } from '../store/rows';

/**
 * Grouped listings for the views of a big store: counts per group and one
 * page of a group's ids, by SQL over refs (and their objects where a field
 * lives only there), so that no caller ever reads a whole scope of tens of
 * thousands of entities to show a few hundred rows.
 */

/** How many live entities of one category the agent has for one user (null: no user). */
export interface CategoryCount {
  category: string;
  userId: string | null;
  count: number;
}

/** A document (a knowledge source) and how many live chunks it has. */
export interface DocumentCount {
  source: string;
  chunks: number;
}

/** Entities that have a category (memories and skills). */
export type CategorizedType = 'memory' | 'skill';

/** The category of an object as stored; an object without one (or a damaged one) falls under ''. */
const CATEGORY = `coalesce(CASE WHEN json_valid(o.data) THEN json_extract(o.data, '$.category') END, '')`;

/** Live entities of `type` per category and user, categories in name order, user-less first. */
export function categoryCounts(db: Database, type: CategorizedType, agentId: string): CategoryCount[] {
  return db
    .all(
      `SELECT ${CATEGORY} AS category, r.user_id, count(*) AS n FROM refs r
       JOIN objects o ON o.seq = r.object_seq
       WHERE r.type = ? AND r.agent_id = ? AND r.deleted = 0
       GROUP BY 1, 2 ORDER BY 1, r.user_id IS NOT NULL, 2`,
      type,
      agentId,
    )
    .map((row) => ({
      category: String(row.category ?? ''),
      userId: textOrNull(row, 'refs', 'user_id'),
      count: num(row, 'refs', 'n'),
    }));
}

/** One page of the ids of a category (for one user, or none), newest first. */
export function categoryPage(
  db: Database,
  type: CategorizedType,
  agentId: string,
  category: string,
  userId: string | null,
  offset: number,
  limit: number,
): string[] {
  return db
    .all(
      `SELECT r.id FROM refs r JOIN objects o ON o.seq = r.object_seq
       WHERE r.type = ? AND r.agent_id = ? AND r.deleted = 0 AND r.user_id IS ? AND ${CATEGORY} = ?
       ORDER BY r.created_at DESC, r.id DESC LIMIT ? OFFSET ?`,
      type,
      agentId,
      userId,
      category,
      limit,
      offset,
    )
    .map((row) => text(row, 'refs', 'id'));
}

/**
 * Every document of the agent's knowledge with its live chunk count, by
 * path: the source index answers it without reading a single chunk.
 */
export function documentCounts(db: Database, agentId: string): DocumentCount[] {
  return db
    .all(
      `SELECT r.source, count(*) AS n FROM refs r INDEXED BY refs_source
       WHERE r.agent_id = ? AND r.source IS NOT NULL AND r.type = 'knowledge' AND r.deleted = 0
       GROUP BY r.source ORDER BY r.source`,
      agentId,
    )
    .map((row) => ({ source: text(row, 'refs', 'source'), chunks: num(row, 'refs', 'n') }));
}

/** One page of a document's chunks, in chunk order (chunks without an index last, oldest first). */
export function documentChunkPage(
  db: Database,
  agentId: string,
  source: string,
  offset: number,
  limit: number,
): string[] {
  return db
    .all(
      `SELECT r.id FROM refs r INDEXED BY refs_source JOIN objects o ON o.seq = r.object_seq
       WHERE r.agent_id = ? AND r.source = ? AND r.type = 'knowledge' AND r.deleted = 0
       ORDER BY ${CHUNK_INDEX_SQL} IS NULL, ${CHUNK_INDEX_SQL}, r.created_at, r.id
       LIMIT ? OFFSET ?`,
      agentId,
      source,
      limit,
      offset,
    )
    .map((row) => text(row, 'refs', 'id'));
}

/** How many live knowledge entities of the agent have no document (saved by hand). */
export function looseKnowledgeCount(db: Database, agentId: string): number {
  return countOf(
    db.get(
      `SELECT count(*) AS n FROM refs
       WHERE type = 'knowledge' AND agent_id = ? AND deleted = 0 AND source IS NULL`,
      agentId,
    ),
    'refs',
  );
}

/** One page of the agent's knowledge without a document, newest first. */
export function looseKnowledgePage(db: Database, agentId: string, offset: number, limit: number): string[] {
  return db
    .all(
      `SELECT id FROM refs WHERE type = 'knowledge' AND agent_id = ? AND deleted = 0 AND source IS NULL
       ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      agentId,
      limit,
      offset,
    )
    .map((row) => text(row, 'refs', 'id'));
}

/** The grouped listings bound to one store, as `Memory.groups` offers them. */
export function groupsOf(db: Database) {
  return {
    categoryCounts: (type: CategorizedType, agentId: string) => categoryCounts(db, type, agentId),
    categoryPage: (
      type: CategorizedType,
      agentId: string,
      category: string,
      userId: string | null,
      offset: number,
      limit: number,
    ) => categoryPage(db, type, agentId, category, userId, offset, limit),
    documentCounts: (agentId: string) => documentCounts(db, agentId),
    documentChunkPage: (agentId: string, source: string, offset: number, limit: number) =>
      documentChunkPage(db, agentId, source, offset, limit),
    looseKnowledgeCount: (agentId: string) => looseKnowledgeCount(db, agentId),
    looseKnowledgePage: (agentId: string, offset: number, limit: number) =>
      looseKnowledgePage(db, agentId, offset, limit),
  };
}

export type Groups = ReturnType<typeof groupsOf>;
