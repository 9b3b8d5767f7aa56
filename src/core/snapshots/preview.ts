/**
 * What a restore would change, shown before it is made (the CLI asks with it,
 * the extension summarises it): the entities the snapshot would bring back,
 * remove or change, counted by SQL over the live store and the attached
 * snapshot, without reading any entity.
 */
import { isMemoryError } from '../errors';
import type { Database } from '../store/database';
import { countOf, num, text } from '../store/rows';
import type { EntityType } from '../types';
import { liveDamage, snapshotFault } from './faults';
import type { SnapshotInfo } from './manifests';

/** One kind of change a restore would make: how many entities, per type, and the first few ids. */
export interface RestoreChange {
  total: number;
  /** Only the types with at least one entity. */
  byType: Partial<Record<EntityType, number>>;
  /** At most {@link RESTORE_PREVIEW_IDS} of them, by id: enough to show, never the whole store. */
  ids: { id: string; type: EntityType }[];
}

/**
 * What restoring a snapshot would do to the live entities, compared by
 * content (an entity edited and edited back counts as unchanged, though the
 * restore still rewinds its history).
 */
export interface RestorePreview {
  snapshot: SnapshotInfo;
  /** Live in the snapshot, deleted or absent now: the restore brings them back. */
  restored: RestoreChange;
  /** Live now, deleted in or absent from the snapshot: the restore removes them. */
  removed: RestoreChange;
  /** Live in both with different content: the restore puts back the snapshot's version. */
  changed: RestoreChange;
  /** Live in both with the same content. */
  unchanged: number;
  /**
   * Set when the live store is too damaged to compare with (SQLite's first
   * complaint): the restore rebuilds it from the snapshot, so `restored`
   * counts every entity the snapshot holds and the other kinds are empty.
   */
  liveDamage?: string;
}

/** How many ids a restore preview lists per kind of change. */
export const RESTORE_PREVIEW_IDS = 20;

/**
 * The entities each kind of change covers, as SQL over the live refs (`main`)
 * and the attached snapshot's (`snap`): ids and types only, no entity is
 * read. Content is compared by object hash; both sides join by primary key.
 */
const RESTORE_CHANGES = {
  restored: `SELECT s.id, s.type FROM snap.refs s LEFT JOIN main.refs m ON m.id = s.id
    WHERE s.deleted = 0 AND (m.id IS NULL OR m.deleted <> 0)`,
  removed: `SELECT m.id, m.type FROM main.refs m LEFT JOIN snap.refs s ON s.id = m.id
    WHERE m.deleted = 0 AND (s.id IS NULL OR s.deleted <> 0)`,
  changed: `SELECT m.id, m.type FROM main.refs m JOIN snap.refs s ON s.id = m.id
    JOIN main.objects mo ON mo.seq = m.object_seq JOIN snap.objects so ON so.seq = s.object_seq
    WHERE m.deleted = 0 AND s.deleted = 0 AND mo.hash <> so.hash`,
} as const;

/**
 * The preview of restoring `snapshot`, which is attached to `db` as `snap`
 * (see Snapshots.compare).
 */
export function previewRestore(db: Database, snapshot: SnapshotInfo): RestorePreview {
  const { id } = snapshot;
  // Counted in SQL, then the first ids listed: reading every differing
  // row into JavaScript instead took ten times as long when most of a
  // 100,000-entity store differs.
  const change = (sql: string): RestoreChange => {
    const byType: Partial<Record<EntityType, number>> = {};
    let total = 0;
    for (const row of db.all(`SELECT type, count(*) AS n FROM (${sql}) GROUP BY type ORDER BY type`)) {
      const n = num(row, 'refs', 'n');
      byType[text(row, 'refs', 'type') as EntityType] = n;
      total += n;
    }
    const ids = db
      .all(`SELECT id, type FROM (${sql}) ORDER BY id LIMIT ?`, RESTORE_PREVIEW_IDS)
      .map((row) => ({ id: text(row, 'refs', 'id'), type: text(row, 'refs', 'type') as EntityType }));
    return { total, byType, ids };
  };
  try {
    const restored = change(RESTORE_CHANGES.restored);
    const removed = change(RESTORE_CHANGES.removed);
    const changed = change(RESTORE_CHANGES.changed);
    const live = countOf(db.get('SELECT count(*) AS n FROM main.refs WHERE deleted = 0'), 'refs');
    return { snapshot, restored, removed, changed, unchanged: live - removed.total - changed.total };
  } catch (error) {
    // The comparison reads both files: when the live one is what fails, the
    // preview says so, and what the snapshot holds, for the restore that mends it.
    const damage = isMemoryError(error, 'STORE_CORRUPT') ? liveDamage(db) : undefined;
    if (damage === undefined) throw snapshotFault(error, `Snapshot ${id} cannot be read`);
    try {
      const restored = change('SELECT id, type FROM snap.refs WHERE deleted = 0');
      const none: RestoreChange = { total: 0, byType: {}, ids: [] };
      return { snapshot, restored, removed: none, changed: none, unchanged: 0, liveDamage: damage };
    } catch (snapError) {
      throw snapshotFault(snapError, `Snapshot ${id} cannot be read`);
    }
  }
}
