import * as fs from 'node:fs';
import * as path from 'node:path';

import { readBoundedSync } from './bounded-read';
import { nodeCrypto } from './crypto';
import { isMemoryError, MemoryError } from './errors';
import type { Database } from './store/database';
import { formatBytes, isDiskFull, storeFullError } from './store/disk-full';
import type { EntityStore } from './store/entity-store';
import { findTempFiles, ownedTempPath, removeOrphanedTempFiles, removeQuietly } from './store/owned-files';
import { countOf, num, text } from './store/rows';
import { SCHEMA_VERSION, STATE_TABLES } from './store/schema';
import type { EntityType } from './types';
import { assertId } from './validation';
import { verifyState } from './verify';

export interface SnapshotInfo {
  id: string;
  label: string;
  createdAt: string;
  /** Live entities at the time of the snapshot. */
  entities: number;
  bytes: number;
}

const MAX_LABEL_LENGTH = 200;
// Control characters (C0, DEL, C1) and Unicode line separators: a label is
// shown on one line of a listing, and an escape sequence in it could restyle
// the user's terminal.
const LABEL_FORBIDDEN = /[\p{Cc}\u2028\u2029]/u;

function assertLabel(label: unknown): asserts label is string {
  if (typeof label !== 'string') throw new MemoryError('INVALID_INPUT', 'A snapshot label must be a string.');
  if (label.length > MAX_LABEL_LENGTH) {
    throw new MemoryError(
      'INVALID_INPUT',
      `A snapshot label can have at most ${MAX_LABEL_LENGTH} characters (got ${label.length}).`,
    );
  }
  const forbidden = LABEL_FORBIDDEN.exec(label);
  if (forbidden) {
    const code = forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new MemoryError(
      'INVALID_INPUT',
      `A snapshot label must be one line of text without control characters; ` +
        `U+${code} (a line break, tab, escape or the like) at character ${forbidden.index + 1} is not allowed.`,
    );
  }
}

/**
 * A failure while opening or reading a snapshot, as SNAPSHOT_INVALID. The
 * database layer names the live store in what it reports (a damaged or
 * unreadable file), but here the file at fault is the snapshot; the live
 * store's own conditions (busy, closed, full) pass unchanged.
 */
function snapshotFault(error: unknown, what: string): unknown {
  if (isMemoryError(error) && !isMemoryError(error, 'STORE_CORRUPT') && !isMemoryError(error, 'STORE_READONLY')) {
    return error;
  }
  const sqlite = isMemoryError(error) ? error.cause : error;
  const reason = sqlite instanceof Error ? sqlite.message : String(sqlite);
  return new MemoryError('SNAPSHOT_INVALID', `${what}: ${reason}. The live store was not changed.`, { cause: error });
}

/** A snapshot being copied (or left by a copy that was killed): `snap-….db.<pid>@<host>.partial`, or `snap-….db.partial` from older versions. */
const isPartial = (name: string): boolean => name.startsWith('snap-') && name.endsWith('.partial');

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

/** The snapshot copies in progress or left behind, which `stats` reports while they exist. */
export interface PartialSnapshots {
  files: number;
  bytes: number;
}

/**
 * Point-in-time copies of the store, each a standalone SQLite file made by
 * VACUUM INTO (a consistent copy even while other processes write) with a
 * JSON manifest beside it. The copy is written under a temporary name that
 * says which process writes it, and the manifest last, so a snapshot
 * interrupted half-way is never listed; a failed one removes what it wrote,
 * and what a killed one left is removed on the next open or snapshot.
 */
/** A snapshot's manifest is a few hundred bytes; anything much bigger is not one. */
const MANIFEST_MAX_BYTES = 64 * 1024;

export class Snapshots {
  constructor(
    private readonly db: Database,
    private readonly store: EntityStore,
    readonly dir: string,
  ) {}

  create(label: string): SnapshotInfo {
    assertLabel(label);
    const id = `snap-${Date.now().toString(36)}-${nodeCrypto().randomBytes(3).toString('hex')}`;
    const file = this.file(id);
    const partial = ownedTempPath(file, 'partial');
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      this.removeOrphanedPartials();
      const createdAt = this.store.timestamp();
      this.db.exec(`VACUUM INTO '${partial.replace(/'/g, "''")}'`);
      fs.renameSync(partial, file);
      const entities = countOf(this.db.get('SELECT count(*) AS n FROM refs WHERE deleted = 0'), 'refs');
      const info: SnapshotInfo = { id, label, createdAt, entities, bytes: fs.statSync(file).size };
      fs.writeFileSync(this.manifest(id), JSON.stringify(info, null, 2));
      this.db.transaction(() => this.store.audit('snapshot', null, [], { snapshot: id, label }));
      return info;
    } catch (error) {
      // All or nothing: a snapshot that failed must not be listed, nor leave its copy taking space.
      for (const leftover of [partial, file, this.manifest(id)]) removeQuietly(leftover);
      if (isDiskFull(error)) {
        throw storeFullError(
          this.db.path,
          'the snapshot',
          `A snapshot needs about ${formatBytes(this.storeBytes())}, the size of the store.`,
          error,
        );
      }
      throw error;
    }
  }

  /** Removes snapshot copies whose writer is gone (killed, or failed without cleaning up); best effort. */
  removeOrphanedPartials(): void {
    removeOrphanedTempFiles(this.dir, isPartial);
  }

  /** Snapshot copies on disk that are not (yet) snapshots: being written now, or left behind. */
  partials(): PartialSnapshots {
    const found = findTempFiles(this.dir, isPartial);
    return { files: found.length, bytes: found.reduce((sum, file) => sum + file.bytes, 0) };
  }

  /** What a copy of the store takes: its pages in use (free pages are not copied). */
  private storeBytes(): number {
    const row = this.db.get(
      'SELECT (page_count - freelist_count) * page_size AS bytes FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()',
    );
    return countOf(row, 'pragma_page_count', 'bytes');
  }

  list(): SnapshotInfo[] {
    if (!fs.existsSync(this.dir)) return [];
    const infos: SnapshotInfo[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        // Bounded and regular files only: a FIFO or a huge file named *.json must not hang the list.
        const read = readBoundedSync(path.join(this.dir, name), MANIFEST_MAX_BYTES);
        if (read.kind !== 'read') continue;
        const info = JSON.parse(read.bytes.toString('utf8')) as SnapshotInfo;
        if (fs.existsSync(this.file(info.id))) infos.push(info);
      } catch {
        // A manifest that cannot be read is not a usable snapshot; skip it.
      }
    }
    return infos.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  /**
   * What restoring snapshot `id` would change, without changing anything:
   * counts per kind and type and the first ids, by SQL over both stores'
   * refs (fast on a big store). The snapshot's layout is checked, not its
   * hashes: the restore itself verifies it.
   */
  compare(id: string): RestorePreview {
    return this.withAttached(id, (snapshot) => {
      // Counted in SQL, then the first ids listed: reading every differing
      // row into JavaScript instead took ten times as long when most of a
      // 100,000-entity store differs.
      const change = (sql: string): RestoreChange => {
        const byType: Partial<Record<EntityType, number>> = {};
        let total = 0;
        for (const row of this.db.all(`SELECT type, count(*) AS n FROM (${sql}) GROUP BY type ORDER BY type`)) {
          const n = num(row, 'refs', 'n');
          byType[text(row, 'refs', 'type') as EntityType] = n;
          total += n;
        }
        const ids = this.db
          .all(`SELECT id, type FROM (${sql}) ORDER BY id LIMIT ?`, RESTORE_PREVIEW_IDS)
          .map((row) => ({ id: text(row, 'refs', 'id'), type: text(row, 'refs', 'type') as EntityType }));
        return { total, byType, ids };
      };
      try {
        const restored = change(RESTORE_CHANGES.restored);
        const removed = change(RESTORE_CHANGES.removed);
        const changed = change(RESTORE_CHANGES.changed);
        const live = countOf(this.db.get('SELECT count(*) AS n FROM main.refs WHERE deleted = 0'), 'refs');
        return { snapshot, restored, removed, changed, unchanged: live - removed.total - changed.total };
      } catch (error) {
        throw snapshotFault(error, `Snapshot ${id} cannot be read`);
      }
    });
  }

  /**
   * Replaces the live state with the snapshot's in one transaction. The
   * snapshot is verified first; any failure leaves the live store untouched.
   * The audit log is not rolled back: it records the restore.
   */
  restore(id: string): SnapshotInfo {
    return this.withAttached(id, (info) => {
      try {
        const report = verifyState(this.db, 'snap');
        if (!report.valid) {
          throw new MemoryError(
            'SNAPSHOT_INVALID',
            `Snapshot ${id} failed verification: ${report.errors[0]?.message ?? ''}`,
          );
        }
      } catch (error) {
        throw snapshotFault(error, `Snapshot ${id} cannot be read`);
      }
      try {
        this.db.transaction(() => {
          for (const table of STATE_TABLES) {
            this.db.exec(`DELETE FROM main.${table}`);
            this.db.exec(`INSERT INTO main.${table} SELECT * FROM snap.${table}`);
          }
          // The full-text index is contentless (it cannot be copied row by row): rebuild it.
          this.store.reindex();
          // Vectors came back with the snapshot: caches of other processes are stale.
          this.db.run('UPDATE vector_generation SET generation = generation + 1 WHERE id = 1');
          this.store.audit('restore', null, [], { snapshot: id });
        });
      } catch (error) {
        if (error instanceof MemoryError) throw error;
        throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} could not be restored: ${String(error)}`, {
          cause: error,
        });
      }
      return info;
    });
  }

  /**
   * Runs `work` with snapshot `id` attached as `snap`, once its layout is
   * known to be one this version reads; always detaches.
   */
  private withAttached<T>(id: string, work: (info: SnapshotInfo) => T): T {
    assertId(id, 'snapshot id');
    const info = this.list().find((snapshot) => snapshot.id === id);
    if (!info) throw new MemoryError('SNAPSHOT_NOT_FOUND', `No snapshot with id ${id}.`);
    try {
      this.db.exec(`ATTACH DATABASE '${this.file(id).replace(/'/g, "''")}' AS snap`);
    } catch (error) {
      throw snapshotFault(error, `Snapshot ${id} cannot be opened`);
    }
    try {
      try {
        const version = countOf(this.db.get('PRAGMA snap.user_version'), 'snapshot', 'user_version');
        if (version < 1 || version > SCHEMA_VERSION) {
          throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} has an unsupported layout (schema ${version}).`);
        }
      } catch (error) {
        throw snapshotFault(error, `Snapshot ${id} cannot be read`);
      }
      return work(info);
    } finally {
      this.db.exec('DETACH DATABASE snap');
    }
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.db`);
  }

  private manifest(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }
}
