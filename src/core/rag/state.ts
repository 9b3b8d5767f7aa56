import type { SQLOutputValue } from 'node:sqlite';

import type { Database } from '../store/database';
import { CHUNK_INDEX_SQL } from '../store/place';
import { countOf, num, text } from '../store/rows';

/** What a sync last saw of a file: if size and time still match, the file is not read again. */
export interface FileStamp {
  path: string;
  sha256: string;
  bytes: number;
  mtimeMs: number;
}

/**
 * Which documents a query covers: every one of the agent's, or those named
 * by `roots` and those under them (a root is a document or a folder of
 * documents; '' is everything). A targeted sync looks at a few documents of
 * thousands, so it must not read them all.
 */
export type DocumentScope = readonly string[] | undefined;

/** SQL condition on `column` and its parameters for a scope. */
function scopeClause(column: string, scope: DocumentScope): { sql: string; params: string[] } {
  if (scope === undefined || scope.includes('')) return { sql: '', params: [] };
  if (scope.length === 0) return { sql: ' AND 0', params: [] };
  // `folder/` < every path under it < `folder0` ('0' follows '/'), so a range on the primary key finds them.
  const conditions = scope.map(() => `${column} = ? OR (${column} > ? AND ${column} < ?)`);
  return {
    sql: ` AND (${conditions.join(' OR ')})`,
    params: scope.flatMap((root) => [root, `${root}/`, `${root}0`]),
  };
}

export function fileStamps(db: Database, agentId: string, scope?: DocumentScope): Map<string, FileStamp> {
  const stamps = new Map<string, FileStamp>();
  const where = scopeClause('path', scope);
  for (const row of db.all(
    `SELECT path, sha256, bytes, mtime_ms FROM rag_files WHERE agent_id = ?${where.sql}`,
    agentId,
    ...where.params,
  )) {
    const path = text(row, 'rag_files', 'path');
    stamps.set(path, {
      path,
      sha256: text(row, 'rag_files', 'sha256'),
      bytes: num(row, 'rag_files', 'bytes'),
      mtimeMs: num(row, 'rag_files', 'mtime_ms'),
    });
  }
  return stamps;
}

export function saveStamps(
  db: Database,
  agentId: string,
  stamps: readonly FileStamp[],
  removed: readonly string[],
  time: string,
): void {
  if (stamps.length === 0 && removed.length === 0) return;
  db.transaction(() => {
    for (const stamp of stamps) {
      db.run(
        'INSERT OR REPLACE INTO rag_files (agent_id, path, sha256, bytes, mtime_ms, synced_at) VALUES (?, ?, ?, ?, ?, ?)',
        agentId,
        stamp.path,
        stamp.sha256,
        stamp.bytes,
        stamp.mtimeMs,
        time,
      );
    }
    for (const path of removed) db.run('DELETE FROM rag_files WHERE agent_id = ? AND path = ?', agentId, path);
  });
}

/**
 * What makes the ref `r` (joined to its object `o`) one of document sync's
 * own chunks: live knowledge without a user that records its file's hash.
 * Knowledge saved by hand (for a user, or without a hash) is never one, even
 * with the same source. Objects are canonical JSON with flat keys, where
 * `"sourceHash":"` can only be that key (a quote inside a string value is
 * escaped), so a substring test stands in for parsing every chunk. A
 * damaged object (invalid JSON) is not one either: json_extract on it would
 * fail the whole sync, while left out, its document is simply synced again.
 */
const SYNC_CHUNK = `r.type = 'knowledge' AND r.deleted = 0 AND r.user_id IS NULL AND instr(o.data, '"sourceHash":"') > 0 AND json_valid(o.data)`;

/**
 * Sync's chunks of one document with their places (chunk index), in order
 * (the oldest id first at a place), found through the indexed source column
 * (without statistics SQLite would rather walk all the agent's knowledge).
 */
function chunkPlaces(db: Database, agentId: string, source: string): { id: string; place: string }[] {
  return db
    .all(
      `SELECT r.id, ${CHUNK_INDEX_SQL} AS place FROM refs r INDEXED BY refs_source
       JOIN objects o ON o.seq = r.object_seq
       WHERE r.agent_id = ? AND r.source = ? AND ${SYNC_CHUNK}
       ORDER BY place, r.id`,
      agentId,
      source,
    )
    .map((row) => ({ id: text(row, 'refs', 'id'), place: placeKey(row.place) }));
}

/**
 * A chunk's place as a key: CHUNK_INDEX_SQL gives its chunkIndex as stored (a
 * number, as sync writes it), or NULL where there is none; chunks without one
 * share a place, as they always did.
 */
function placeKey(value: SQLOutputValue | undefined): string {
  return typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint' ? String(value) : 'null';
}

/** The live chunks of one document, in chunk order. */
export function chunksOf(db: Database, agentId: string, source: string): string[] {
  return chunkPlaces(db, agentId, source).map((chunk) => chunk.id);
}

/**
 * The live chunk at `index` of a document, if any: where a chunk saved for
 * that place lands (see AgentScopedCollection.existingIdFor), so two syncs
 * of one folder running at once, each deciding outside its transaction that
 * a file is new, leave one set of chunks and not two.
 */
export function chunkAt(db: Database, agentId: string, source: string, index: number): string | undefined {
  const row = db.get(
    `SELECT r.id FROM refs r INDEXED BY refs_source JOIN objects o ON o.seq = r.object_seq
     WHERE r.agent_id = ? AND r.source = ? AND ${SYNC_CHUNK} AND ${CHUNK_INDEX_SQL} = ?
     ORDER BY r.id LIMIT 1`,
    agentId,
    source,
    index,
  );
  return row ? text(row, 'refs', 'id') : undefined;
}

/**
 * Sync's chunks of a document beyond the first at each place (its index): two
 * syncs of one folder that raced (one following a rename while the other
 * added the file, say) each wrote a set. All but the oldest id at each index,
 * so two processes cleaning up at once delete the same ones.
 */
export function surplusChunks(db: Database, agentId: string, source: string, expected: number): string[] {
  // Counting the document's live user-less knowledge reads no JSON: most times it settles the question.
  const live = db.get(
    `SELECT count(*) AS n FROM refs r INDEXED BY refs_source
     WHERE r.agent_id = ? AND r.source = ? AND r.type = 'knowledge' AND r.deleted = 0 AND r.user_id IS NULL`,
    agentId,
    source,
  );
  if (countOf(live, 'refs') <= expected) return [];
  const taken = new Set<string>();
  const surplus: string[] = [];
  for (const { id, place } of chunkPlaces(db, agentId, source)) {
    if (taken.has(place)) surplus.push(id);
    else taken.add(place);
  }
  return surplus;
}

/**
 * Live knowledge per document sync knows, by path: its chunks, plus any
 * knowledge saved by hand with that source (rare; telling them apart would
 * parse every chunk and make status three times slower).
 */
export function chunkCounts(db: Database, agentId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of db.all(
    // CROSS JOIN keeps rag_files outside, one index lookup per document:
    // without statistics SQLite would rather walk all the agent's refs.
    `SELECT f.path, count(*) AS n FROM rag_files f
     CROSS JOIN refs r INDEXED BY refs_source ON r.agent_id = f.agent_id AND r.source = f.path
       AND r.type = 'knowledge' AND r.deleted = 0
     WHERE f.agent_id = ? GROUP BY f.path`,
    agentId,
  )) {
    counts.set(text(row, 'rag_files', 'path'), num(row, 'refs', 'n'));
  }
  return counts;
}

/**
 * The documents sync knows (in `scope`) that still have a live chunk of its
 * own. A sync only needs to know that, and stopping at the first chunk is
 * several times cheaper than counting them all.
 */
export function liveDocuments(db: Database, agentId: string, scope?: DocumentScope): Set<string> {
  const where = scopeClause('f.path', scope);
  const live = new Set<string>();
  for (const row of db.all(
    `SELECT f.path FROM rag_files f
     WHERE f.agent_id = ?${where.sql} AND EXISTS (
       SELECT 1 FROM refs r INDEXED BY refs_source JOIN objects o ON o.seq = r.object_seq
       WHERE r.agent_id = f.agent_id AND r.source = f.path AND ${SYNC_CHUNK})`,
    agentId,
    ...where.params,
  )) {
    live.add(text(row, 'rag_files', 'path'));
  }
  return live;
}
