import type { Database } from '../store/database';

/** What a sync last saw of a file: if size and time still match, the file is not read again. */
export interface FileStamp {
  path: string;
  sha256: string;
  bytes: number;
  mtimeMs: number;
}

export function fileStamps(db: Database, agentId: string): Map<string, FileStamp> {
  const stamps = new Map<string, FileStamp>();
  for (const row of db.iterate('SELECT path, sha256, bytes, mtime_ms FROM rag_files WHERE agent_id = ?', agentId)) {
    stamps.set(String(row.path), {
      path: String(row.path),
      sha256: String(row.sha256),
      bytes: Number(row.bytes),
      mtimeMs: Number(row.mtime_ms),
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
 * The live chunks of one document, in chunk order, found through the
 * indexed source column. Only chunks made by document sync (they carry a
 * `sourceHash`) count: knowledge saved by hand with the same source is left alone.
 */
export function chunksOf(db: Database, agentId: string, source: string): string[] {
  return db
    .all(
      // Without statistics SQLite would rather walk all the agent's knowledge.
      `SELECT r.id FROM refs r INDEXED BY refs_source JOIN objects o ON o.seq = r.object_seq
       WHERE r.agent_id = ? AND r.source = ? AND r.type = 'knowledge' AND r.deleted = 0
         AND json_extract(o.data, '$.sourceHash') IS NOT NULL
       ORDER BY json_extract(o.data, '$.chunkIndex'), r.id`,
      agentId,
      source,
    )
    .map((row) => String(row.id));
}

/** Chunk counts of the documents sync knows, by path. */
export function chunkCounts(db: Database, agentId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of db.iterate(
    `SELECT r.source, count(*) AS n FROM rag_files f
     JOIN refs r INDEXED BY refs_source ON r.agent_id = f.agent_id AND r.source = f.path
       AND r.type = 'knowledge' AND r.deleted = 0
     WHERE f.agent_id = ? GROUP BY r.source`,
    agentId,
  )) {
    counts.set(String(row.source), Number(row.n));
  }
  return counts;
}
