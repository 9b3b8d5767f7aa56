/**
 * The snapshots of an open store: making one, listing them, previewing a
 * restore and restoring. Its parts are in snapshots/: the manifests on disk,
 * the preview's comparison, the rebuild that mends a damaged store, and
 * which file a failure is blamed on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { nodeCrypto } from './crypto';
import { isMemoryError, MemoryError } from './errors';
import { assertSnapshotFileConfined } from './paths';
import { liveDamage, NEW_STORE_ADVICE, snapshotFault } from './snapshots/faults';
import {
  assertLabel,
  beforeRestoreLabel,
  listSnapshots,
  type RestoredSnapshot,
  type SnapshotInfo,
} from './snapshots/manifests';
import { previewRestore, type RestorePreview } from './snapshots/preview';
import { rebuildOver } from './snapshots/rebuild';
import { recordVerifyOutcome } from './store/damage-marker';
import type { Database } from './store/database';
import { formatBytes, isDiskFull, storeFullError } from './store/disk-full';
import type { EntityStore } from './store/entity-store';
import { missingTableOf, translateMissingTable } from './store/missing-table';
import {
  createExclusiveSync,
  findTempFiles,
  ownedTempPath,
  removeOrphanedTempFiles,
  removeQuietly,
  replaceFileSync,
} from './store/owned-files';
import { countOf } from './store/rows';
import { copyFromSnapshot, createMissingTables, SCHEMA_VERSION, STATE_TABLES } from './store/schema';
import { assertId } from './validation';
import { verifyState } from './verify';
import { reasonOf } from './verify/tables';

/** A snapshot being copied (or left by a copy that was killed): `snap-….db.<pid>@<host>.partial`, or `snap-….db.partial` from older versions. */
const isPartial = (name: string): boolean => /^snap-.*\.(?:partial|replacing)$/.test(name);

/** The snapshot copies in progress or left behind, which `stats` reports while they exist. */
export interface PartialSnapshots {
  files: number;
  bytes: number;
}

/** Another process committed between keeping the store as it was and the restore's transaction. */
class WrittenMeanwhile extends Error {}

function writtenMeanwhile(id: string, cause?: unknown): MemoryError {
  return new MemoryError(
    'STORE_BUSY',
    `Snapshot ${id} was not restored: another process (a VS Code window, an MCP server, a CLI) was writing to the store while it was being kept as it was. Nothing was changed; retry, or close them first.`,
    { cause },
  );
}

/** How often a restore keeps the store and tries again while other processes keep writing. */
const KEEP_ATTEMPTS = 3;

/** A manifest without its copy this old is left from a kill, not a snapshot being made. */
const ORPHANED_MANIFEST_MS = 15 * 60_000;

/**
 * Point-in-time copies of the store, each a standalone SQLite file made by
 * VACUUM INTO (a consistent copy even while other processes write) with a
 * JSON manifest beside it. The copy is written under a temporary name that
 * says which process writes it, and the manifest last, so a snapshot
 * interrupted half-way is never listed; a failed one removes what it wrote,
 * and what a killed one left is removed on the next open or snapshot.
 */
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
      // Created here first, only where nothing is (a planted link included): VACUUM INTO then fills it.
      createExclusiveSync(partial);
      this.db.exec(`VACUUM INTO '${partial.replace(/'/g, "''")}'`);
      const entities = countOf(this.db.get('SELECT count(*) AS n FROM refs WHERE deleted = 0'), 'refs');
      const info: SnapshotInfo = { id, label, createdAt, entities, bytes: fs.statSync(partial).size };
      // The manifest first, the copy last: a kill in between leaves a small manifest without its
      // copy (never listed, and removed by the next clean-up), never a full-size copy no manifest
      // names, which nothing would list, count or remove.
      replaceFileSync(this.manifest(id), JSON.stringify(info, null, 2));
      fs.renameSync(partial, file);
      this.db.transaction(() => this.store.log.record('snapshot', null, [], { snapshot: id, label }));
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
    // A manifest whose copy never arrived (a kill between the two), left for a while: a snapshot
    // being made now writes its copy right after its manifest.
    const now = Date.now();
    for (const name of fs.existsSync(this.dir) ? fs.readdirSync(this.dir) : []) {
      if (!/^snap-[\w-]+\.json$/.test(name)) continue;
      const manifest = path.join(this.dir, name);
      if (fs.existsSync(manifest.replace(/\.json$/, '.db'))) continue;
      const age = now - (fs.statSync(manifest, { throwIfNoEntry: false })?.mtimeMs ?? now);
      if (age > ORPHANED_MANIFEST_MS) removeQuietly(manifest);
    }
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
    return listSnapshots(this.dir);
  }

  /**
   * What restoring snapshot `id` would change, without changing anything:
   * counts per kind and type and the first ids, by SQL over both stores'
   * refs (fast on a big store). The snapshot's layout is checked, not its
   * hashes: the restore itself verifies it.
   */
  compare(id: string): RestorePreview {
    return this.withAttached(id, (snapshot) => previewRestore(this.db, snapshot));
  }

  /**
   * Replaces the live state with the snapshot's; the snapshot is verified
   * first, and any failure leaves the live store as it was. The store as it
   * was is first kept as a snapshot of its own (`before` in the result), so a
   * restore can be undone by restoring that one. The audit log is not rolled
   * back: it records the restore.
   *
   * Normally the snapshot's tables are copied into the live file in one
   * transaction, not swapped in as a file: other processes (the extension's
   * worker, CLIs, MCP servers) may have the store open, and a file renamed
   * under their connections would leave them on the old one. When the live
   * file itself is damaged, copying into it cannot mend it (its damaged pages
   * stay, or stop the copy): the store is then rebuilt aside from the
   * snapshot and written over the live file through SQLite (see
   * rebuildFromSnapshot), which other connections see like any commit.
   */
  async restore(id: string): Promise<RestoredSnapshot> {
    const outcome = this.withAttached(id, (info) => {
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
      // The whole file is checked, pages included: damage in a table the
      // copy only deletes from (or in none it touches) would otherwise stay.
      const damage = liveDamage(this.db);
      if (damage !== undefined) return { info, damage, before: this.keepDamaged(info) };
      return { info, ...this.keepThenCopyIn(info) };
    });
    if (outcome.damage !== undefined) await this.rebuildFromSnapshot(id, outcome.damage);
    // The live state is now the snapshot's, which verify found whole: the
    // mark an earlier verify left (which refuses writes) no longer applies.
    recordVerifyOutcome(this.db.path, [], new Date());
    return { ...outcome.info, ...(outcome.before && { before: outcome.before }) };
  }

  /**
   * Keeps the live store as a snapshot, then copies snapshot `info` in. VACUUM
   * INTO cannot run inside the copy's transaction: when another process
   * commits between the two, the kept copy would miss that commit, so it is
   * thrown away and both are done again. Returns the kept snapshot, and the
   * damage the copy found, if any (the caller then rebuilds instead).
   */
  private keepThenCopyIn(info: SnapshotInfo): { before: SnapshotInfo; damage?: string } {
    for (let attempt = 1; ; attempt++) {
      const version = this.db.dataVersion();
      const before = this.keep(info);
      try {
        this.copyIn(info.id, before.id, () => this.db.dataVersion() === version);
        return { before };
      } catch (error) {
        // Damage quick_check missed, found by the copy: repair instead, the kept copy kept.
        if (isMemoryError(error, 'STORE_CORRUPT') && missingTableOf(error.cause) === undefined) {
          return { before, damage: reasonOf(error) };
        }
        this.remove(before.id);
        if (!(error instanceof WrittenMeanwhile)) throw error;
        if (attempt === KEEP_ATTEMPTS) throw writtenMeanwhile(info.id);
      }
    }
  }

  /**
   * A damaged store is kept as a snapshot when SQLite can still copy it; when
   * its damage stops the copy, the restore goes on without (mending it
   * matters more), and the result says so by having no `before`.
   */
  private keepDamaged(info: SnapshotInfo): SnapshotInfo | undefined {
    try {
      return this.keep(info);
    } catch (error) {
      if (isMemoryError(error, 'STORE_CORRUPT')) return undefined;
      throw error;
    }
  }

  /** The store as it is, kept as a snapshot before restoring snapshot `info`. */
  private keep(info: SnapshotInfo): SnapshotInfo {
    try {
      return this.create(beforeRestoreLabel(info));
    } catch (error) {
      if (isMemoryError(error, 'STORE_BUSY')) throw writtenMeanwhile(info.id, error);
      throw error;
    }
  }

  /** The in-place restore: the snapshot's state tables into the live file, in one transaction, if `unchanged` still holds in it. */
  private copyIn(id: string, before: string, unchanged: () => boolean): void {
    try {
      this.db.transaction(() => {
        if (!unchanged()) throw new WrittenMeanwhile();
        // A table another tool dropped is put back first: the copy needs it.
        createMissingTables(this.db);
        for (const table of STATE_TABLES) {
          this.db.exec(`DELETE FROM main.${table}`);
          copyFromSnapshot(this.db, table);
        }
        this.finishRestore(id, { before });
      });
    } catch (error) {
      if (error instanceof MemoryError || error instanceof WrittenMeanwhile) throw error;
      // The snapshot was verified, its tables all there: a table missing now is the live store's.
      const live = translateMissingTable(error, this.db.path);
      if (live instanceof MemoryError) throw live;
      throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} could not be restored: ${String(error)}`, {
        cause: error,
      });
    }
  }

  /** Removes a snapshot this restore took and no longer needs (it failed): best effort. */
  private remove(id: string): void {
    for (const file of [this.file(id), this.manifest(id)]) removeQuietly(file);
  }

  /** What every restore does last, in its transaction: the derived state made anew, and the record. */
  private finishRestore(id: string, detail: Record<string, unknown>): void {
    // The full-text index is contentless (it cannot be copied row by row): rebuild it.
    this.store.reindex();
    // Vectors came back with the snapshot: caches of other processes are stale.
    this.db.run('UPDATE vector_generation SET generation = generation + 1 WHERE id = 1');
    this.store.log.record('restore', null, [], { snapshot: id, ...detail });
  }

  /** Mends the damaged live store from snapshot `id` (see rebuildOver), with what of it can still be read. */
  private async rebuildFromSnapshot(id: string, damage: string): Promise<void> {
    const live = this.db;
    await rebuildOver({
      storePath: live.path,
      snapshotFile: this.file(id),
      temp: ownedTempPath(path.join(this.dir, `${id}.repair.db`), 'partial'),
      id,
      damage,
      now: () => new Date(this.store.timestamp()),
      waitMs: countOf(live.get('PRAGMA busy_timeout'), 'pragma', 'timeout'),
      liveAudit: () => live.iterate('SELECT seq, time, op, entity_id, entity_type, detail FROM main.audit'),
      liveGeneration: () =>
        countOf(
          live.get('SELECT generation FROM main.vector_generation WHERE id = 1'),
          'vector_generation',
          'generation',
        ),
      liveSchemaCookie: () => countOf(live.get('PRAGMA main.schema_version'), 'pragma', 'schema_version'),
      liveVersion: () => live.dataVersion(),
    });
    // A statement that runs makes this connection notice the new schema
    // cookie and drop the schema it parsed from the damaged file. The check
    // below would not: it fails while being prepared, before any cookie is
    // compared, when an old full-text table's definition was damaged.
    live.get('SELECT count(*) AS n FROM main.sqlite_master');
    const left = liveDamage(live);
    if (left !== undefined) {
      throw new MemoryError(
        'STORE_CORRUPT',
        `The store at ${live.path} is still damaged after restoring snapshot ${id} (${left}). ${NEW_STORE_ADVICE}`,
      );
    }
  }

  /**
   * Runs `work` with snapshot `id` attached as `snap`, once its layout is
   * known to be one this version reads; always detaches.
   */
  private withAttached<T>(id: string, work: (info: SnapshotInfo) => T): T {
    assertId(id, 'snapshot id');
    const info = this.list().find((snapshot) => snapshot.id === id);
    if (!info) throw new MemoryError('SNAPSHOT_NOT_FOUND', `No snapshot with id ${id}.`);
    assertSnapshotFileConfined(this.dir, this.file(id));
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
