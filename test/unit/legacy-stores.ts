import type { DatabaseSync } from 'node:sqlite';

import { commitHash } from '../../src/core/store/commits';
import type { CommitOp } from '../../src/core/types';

/**
 * Hashes every commit of a store file again, parents first (so each parent's
 * new hash is known), after a test rewrote it the way an older version wrote
 * it: commits without the meta column (before version 4) hash without it.
 */
export function rehashCommits(db: DatabaseSync): void {
  const hasMeta = db.prepare("SELECT 1 FROM pragma_table_info('commits') WHERE name = 'meta'").all().length;
  const hashes = new Map<number, string>();
  const rows = db
    .prepare(
      `SELECT c.seq, c.parent_seq, c.entity_id, c.time, c.author, c.message, c.op, ${hasMeta ? 'c.meta' : 'NULL AS meta'},
         o.hash AS object
       FROM commits c LEFT JOIN objects o ON o.seq = c.object_seq ORDER BY c.seq`,
    )
    .all();
  for (const row of rows) {
    const hash = commitHash({
      entityId: String(row.entity_id),
      parent: row.parent_seq === null ? null : hashes.get(row.parent_seq as number)!,
      object: (row.object as string | null) ?? null,
      time: String(row.time),
      author: String(row.author),
      message: String(row.message),
      op: row.op as CommitOp,
      meta: (row.meta as string | null) ?? null,
    });
    hashes.set(row.seq as number, hash);
    db.prepare('UPDATE commits SET hash = ? WHERE seq = ?').run(hash, row.seq as number);
  }
}
