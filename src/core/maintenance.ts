import * as fs from 'node:fs';

import { COLLECTION_OF, type CollectionName } from './portable';
import type { PartialSnapshots } from './snapshots';
import type { Database } from './store/database';
import { countOf, num, text } from './store/rows';
import type { EntityType } from './types';
import { ENTITY_TYPES } from './types';

export interface CleanupOptions {
  /** Delete memories, skills and knowledge not updated for this many days. */
  maxAgeDays?: number;
  /** Report what would be removed without removing it. */
  dryRun?: boolean;
  /** Keep only the newest N audit log entries. */
  maxAuditLines?: number;
}

export interface CleanupCandidate {
  id: string;
  type: EntityType;
  updatedAt: string;
}

export interface CleanupReport {
  dryRun: boolean;
  removed: number;
  preserved: number;
  auditRemoved: number;
  details: CleanupCandidate[];
}

/** Sessions and profiles are never aged out: they are the record, not derived facts. */
export const AGEABLE_TYPES: readonly EntityType[] = ['memory', 'skill', 'knowledge'];

export function staleEntities(db: Database, cutoff: string): CleanupCandidate[] {
  return db
    .all(
      `SELECT id, type, updated_at FROM refs WHERE deleted = 0 AND updated_at < ?
       AND type IN (${AGEABLE_TYPES.map(() => '?').join(', ')}) ORDER BY updated_at`,
      cutoff,
      ...AGEABLE_TYPES,
    )
    .map((row) => ({
      id: text(row, 'refs', 'id'),
      type: text(row, 'refs', 'type') as EntityType,
      updatedAt: text(row, 'refs', 'updated_at'),
    }));
}

export function countAgeable(db: Database): number {
  return countOf(
    db.get(
      `SELECT count(*) AS n FROM refs WHERE deleted = 0 AND type IN (${AGEABLE_TYPES.map(() => '?').join(', ')})`,
      ...AGEABLE_TYPES,
    ),
    'refs',
  );
}

// Audit entries beyond the newest `?` (sequence numbers only grow, so the newest have the highest).
const AUDIT_OVERFLOW = 'FROM audit WHERE seq <= (SELECT max(seq) FROM audit) - ?';

/** Drops all but the newest `keep` audit entries; returns how many were dropped. */
export function rotateAudit(db: Database, keep: number): number {
  return db.transaction(() => db.run(`DELETE ${AUDIT_OVERFLOW}`, keep).changes);
}

/**
 * How many entries rotateAudit(keep) would drop once `pending` more are
 * logged: a dry run counts the entries its real run would write before trimming.
 */
export function auditOverflow(db: Database, keep: number, pending = 0): number {
  const logged = countOf(db.get(`SELECT count(*) AS n ${AUDIT_OVERFLOW}`, keep - pending), 'audit');
  return logged + Math.max(0, pending - keep);
}

export interface StoreStats {
  memories: number;
  skills: number;
  knowledge: number;
  sessions: number;
  profiles: number;
  /** Entities deleted (their history is kept). */
  deleted: number;
  objects: number;
  commits: number;
  auditEntries: number;
  snapshots: number;
  /** Snapshot copies being written, or left by one that was killed (removed on the next open or snapshot). */
  partialSnapshots: number;
  /** Their size in bytes; not part of bytesOnDisk. */
  partialSnapshotBytes: number;
  /** The database and its write-ahead log, in bytes. */
  bytesOnDisk: number;
  path: string;
}

export function collectStats(db: Database, snapshots: number, partials: PartialSnapshots): StoreStats {
  const live = Object.fromEntries(Object.values(COLLECTION_OF).map((name) => [name, 0])) as Record<
    CollectionName,
    number
  >;
  let deleted = 0;
  for (const row of db.all('SELECT type, deleted, count(*) AS n FROM refs GROUP BY type, deleted')) {
    const type = text(row, 'refs', 'type') as EntityType;
    const n = num(row, 'refs', 'n');
    if (num(row, 'refs', 'deleted') === 1) deleted += n;
    else if (ENTITY_TYPES.includes(type)) live[COLLECTION_OF[type]] = n;
  }
  const count = (table: string) => countOf(db.get(`SELECT count(*) AS n FROM ${table}`), table);
  const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
  return {
    ...live,
    deleted,
    objects: count('objects'),
    commits: count('commits'),
    auditEntries: count('audit'),
    snapshots,
    partialSnapshots: partials.files,
    partialSnapshotBytes: partials.bytes,
    bytesOnDisk: size(db.path) + size(`${db.path}-wal`),
    path: db.path,
  };
}
