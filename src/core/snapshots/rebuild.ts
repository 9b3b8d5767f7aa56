/**
 * The repair path of a restore. When the live file itself is damaged,
 * copying a snapshot into it cannot mend it (its damaged pages stay, or stop
 * the copy): a new store is built aside from the snapshot and put over the
 * live file. Snapshots.restore takes this path when it finds damage;
 * restoreUnopenableStore takes it for a store that cannot even be opened.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

import { isMemoryError, MemoryError } from '../errors';
import { assertSnapshotFileConfined } from '../paths';
import { FtsIndex } from '../search/fts-index';
import { TurnIndex, withTurnIndex } from '../sessions/turn-index';
import { loadSqlite } from '../sqlite';
import { recordVerifyOutcome } from '../store/damage-marker';
import { Database, type Row, translateSqliteError } from '../store/database';
import { EntityStore } from '../store/entity-store';
import { ownedTempPath, removeOrphanedTempFiles, removeQuietly } from '../store/owned-files';
import { countOf } from '../store/rows';
import { copyFromSnapshot, missingTables, STATE_TABLES } from '../store/schema';
import { STORE_FILE } from '../store/store-file';
import { assertId } from '../validation';
import { verifyState } from '../verify';
import { reasonOf } from '../verify/tables';
import { NEW_STORE_ADVICE, snapshotFault } from './faults';
import { listSnapshots, type RestoredSnapshot } from './manifests';

/**
 * A failed write over the live file: another process writing it at that
 * moment (SQLite's backup does not wait) is STORE_BUSY; anything else is
 * the live store's failure, never the snapshot's.
 */
function busyOrCorrupt(error: unknown, file: string): unknown {
  if (isBusy(error)) {
    return new MemoryError(
      'STORE_BUSY',
      `The damaged store at ${file} could not be replaced: another process (a VS Code window, an MCP server, a CLI) was writing to it. Nothing was changed; retry, or close them first.`,
      { cause: error },
    );
  }
  return translateSqliteError(error, file);
}

/**
 * Whether a failed backup found the live file locked by another writer.
 * Node reports SQLITE_BUSY from a backup step as an error with code 0 ("not
 * an error": it reads the destination connection's last error, which the
 * step does not set), measured on Node 24; a real busy code counts too.
 */
function isBusy(error: unknown): boolean {
  if ((error as { errcode?: unknown } | null)?.errcode === 0) return true;
  return isMemoryError(translateSqliteError(error), 'STORE_BUSY');
}

/** What rebuildOver needs: the files, and the live store's audit log and vector generation as far as they read. */
export interface RebuildPlan {
  storePath: string;
  snapshotFile: string;
  /** Where the new store is built: in the snapshots folder, named as a partial snapshot, so a killed repair's is removed. */
  temp: string;
  id: string;
  /** Why the live store is being rebuilt, for the audit entry. */
  damage: string;
  now: () => Date;
  /** How long to wait for another writer to finish before giving up with STORE_BUSY. */
  waitMs: number;
  liveAudit: () => Iterable<Row>;
  liveGeneration: () => number;
  /** The live file's schema cookie (see passSchemaCookie), when it can be read. */
  liveSchemaCookie: () => number;
  /**
   * The live store's data version (see Database.dataVersion), where a
   * connection is open on it: another process's commit changes it, and a
   * commit made after the live audit log was read would be written over.
   */
  liveVersion?: () => number;
  /**
   * The store cannot be opened: verify the snapshot first (the live store's
   * own restore has already), and, when nothing has the file open, replace it
   * whole by a rename instead of writing over it.
   */
  unopenable?: boolean;
}

/**
 * Mends a damaged store from a snapshot: a new store is built aside (the
 * snapshot's state, the live audit log as far as it can be read, the search
 * index, the restore's own audit entry), then SQLite's backup writes it over
 * the live file page by page, as one write transaction on that file. Every
 * page is rewritten, so no damaged one is left; other connections see the new
 * content as they see any commit (no file is renamed under them), and a
 * process killed part-way leaves the old file, whose log never got the commit.
 * Returns where the damaged file was moved, when it was replaced whole.
 */
export async function rebuildOver(plan: RebuildPlan): Promise<string | undefined> {
  const { backup, DatabaseSync } = loadSqlite();
  // A store that cannot even be opened is replaced whole rather than written over: the new file
  // is built completely first (a kill or a full disk before that leaves the original as it was),
  // the damaged original and its log are moved aside (kept, never emptied), and the new file is
  // renamed into place; whatever the damaged header says does not matter. Nothing can be working
  // on the old file: it cannot be opened.
  const swap = plan.unopenable === true;
  // Taken before the live audit log is read: what commits after it must not be written over.
  const version = plan.liveVersion?.();
  try {
    buildAside(plan, !swap);
    if (swap) {
      // The new file must hold everything itself: its own log, if closing left one, goes into it first.
      if ((fs.statSync(`${plan.temp}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
        const settle = new DatabaseSync(plan.temp);
        try {
          settle.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        } finally {
          settle.close();
        }
      }
      const aside = `${plan.storePath}.unreadable-${plan.now().toISOString().replace(/[:.]/g, '-')}`;
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        if (fs.existsSync(`${plan.storePath}${suffix}`))
          fs.renameSync(`${plan.storePath}${suffix}`, `${aside}${suffix}`);
      }
      fs.renameSync(plan.temp, plan.storePath);
      return aside;
    }
    const source = new DatabaseSync(plan.temp, { readOnly: true });
    // The backup does not wait for another writer as a connection's
    // statements do: it is retried for as long as they would wait.
    const deadline = Date.now() + plan.waitMs;
    try {
      for (;;) {
        if (plan.liveVersion && plan.liveVersion() !== version) {
          throw new MemoryError(
            'STORE_BUSY',
            `Another process wrote to the store while snapshot ${plan.id} was restored over its damage: nothing was replaced, so nothing it wrote is lost. Restore again.`,
          );
        }
        try {
          // All pages in one step: the live file is locked once, for the whole copy.
          await backup(source, plan.storePath, { rate: 1_000_000_000 });
          break;
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw busyOrCorrupt(error, plan.storePath);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    } finally {
      source.close();
    }
    return undefined;
  } finally {
    for (const leftover of ['', '-wal', '-shm', '-journal']) removeQuietly(`${plan.temp}${leftover}`);
  }
}

/**
 * Builds the new store at `plan.temp`: the current layout, the snapshot's
 * state tables, the live audit log (it records what happened after the
 * snapshot too) as far as it reads, a vector generation past both stores' so
 * no process keeps a cached copy, the search index, and the restore's entry.
 */
function buildAside(plan: RebuildPlan, forOpenConnections: boolean): void {
  const fresh = new Database(plan.temp, { busyTimeoutMs: 0 });
  try {
    try {
      // A snapshot file that is a link, or leads out of the snapshots folder, is refused, not restored.
      assertSnapshotFileConfined(path.dirname(plan.snapshotFile), plan.snapshotFile);
      fresh.exec(`ATTACH DATABASE '${plan.snapshotFile.replace(/'/g, "''")}' AS snap`);
      if (plan.unopenable) {
        const report = verifyState(fresh, 'snap');
        if (!report.valid) {
          throw new MemoryError(
            'SNAPSHOT_INVALID',
            `Snapshot ${plan.id} failed verification: ${report.errors[0]?.message ?? ''}`,
          );
        }
      }
    } catch (error) {
      throw snapshotFault(error, `Snapshot ${plan.id} cannot be read`);
    }
    const audit: Row[] = [];
    let lostAudit: string | undefined;
    try {
      for (const row of plan.liveAudit()) audit.push(row);
    } catch (error) {
      lostAudit = `only the first ${audit.length} entries could be read: ${reasonOf(error)}`;
    }
    let generation = 0;
    try {
      generation = plan.liveGeneration();
    } catch {
      // Unreadable: the snapshot's, bumped, still differs from what any process cached from it.
    }
    // It only rebuilds the index and records the restore in the audit log: no commit is made.
    const indexer = withTurnIndex(new FtsIndex(fresh), new TurnIndex(fresh));
    const store = new EntityStore(fresh, plan.now, 'restore', indexer, { kind: 'user' });
    try {
      fresh.transaction(() => {
        for (const table of STATE_TABLES) copyFromSnapshot(fresh, table);
        // A log read in part is kept; one that could not be read at all leaves the snapshot's.
        if (audit.length === 0 && lostAudit !== undefined) {
          if (missingTables(fresh, ['audit'], 'snap').length === 0) copyFromSnapshot(fresh, 'audit');
        } else {
          fresh.exec('DELETE FROM main.audit');
          for (const row of audit) {
            fresh.run(
              'INSERT INTO main.audit (seq, time, op, entity_id, entity_type, detail) VALUES (?, ?, ?, ?, ?, ?)',
              row.seq ?? null,
              row.time ?? null,
              row.op ?? null,
              row.entity_id ?? null,
              row.entity_type ?? null,
              row.detail ?? null,
            );
          }
        }
        fresh.run('UPDATE main.vector_generation SET generation = max(generation, ?) + 1 WHERE id = 1', generation);
        store.reindex();
        store.log.record('restore', null, [], {
          snapshot: plan.id,
          repaired: plan.damage,
          ...(lostAudit ? { auditLost: lostAudit } : {}),
        });
        // Only connections open on the live file need a newer cookie to see the new schema.
        if (forOpenConnections) passSchemaCookie(fresh, plan);
      });
    } catch (error) {
      // A damaged live store is said as such; any other damage met here is the snapshot's.
      if (error instanceof MemoryError && (error.code !== 'STORE_CORRUPT' || ABOUT_LIVE_STORE.has(error))) throw error;
      throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${plan.id} could not be restored: ${reasonOf(error)}`, {
        cause: error,
      });
    } finally {
      fresh.exec('DETACH DATABASE snap');
    }
  } finally {
    fresh.close();
  }
}

/** STORE_CORRUPT errors about the live store, not the snapshot: a restore reports them as they are. */
const ABOUT_LIVE_STORE = new WeakSet<MemoryError>();

/**
 * Makes the new store's schema cookie (the header's count of schema changes)
 * greater than the live file's. A connection re-reads the schema only when
 * the cookie it knows changes; a new store built by the same steps often has
 * the same count, and every connection open on the live file would go on
 * using the schema it parsed before, damaged or not, against the new pages.
 * Each change is a table made and dropped: the cookie cannot be set directly
 * (SQLite's defensive mode, on in Node, ignores PRAGMA schema_version = N).
 */
function passSchemaCookie(fresh: Database, plan: RebuildPlan): void {
  let live = readHeaderCookie(plan.storePath);
  try {
    live = Math.max(live, plan.liveSchemaCookie());
  } catch {
    // The header's value stands.
  }
  const cookie = (): number => countOf(fresh.get('PRAGMA main.schema_version'), 'pragma', 'schema_version');
  const needed = Math.ceil((live + 1 - cookie()) / 2);
  if (needed > 100_000) {
    const error = new MemoryError(
      'STORE_CORRUPT',
      `The header of the store at ${plan.storePath} is damaged (schema cookie ${live}): it cannot be rebuilt in place. ${NEW_STORE_ADVICE}`,
    );
    ABOUT_LIVE_STORE.add(error);
    throw error;
  }
  for (let i = 0; i < needed; i++) fresh.exec('CREATE TABLE restore_cookie (x); DROP TABLE restore_cookie;');
}

/** The schema cookie in a SQLite file's header (bytes 40-43); 0 when it cannot be read. */
function readHeaderCookie(file: string): number {
  try {
    const header = Buffer.alloc(44);
    const fd = fs.openSync(file, 'r');
    try {
      return fs.readSync(fd, header, 0, 44, 0) === 44 ? header.readUInt32BE(40) : 0;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/**
 * Where a repair builds the new store: in the snapshots folder, named as a
 * partial snapshot of its writer (`<id>.repair.db.<pid>@<host>-….partial`).
 */
export function repairTempPath(snapshotsDir: string, id: string): string {
  return ownedTempPath(path.join(snapshotsDir, `${id}.repair.db`), 'partial');
}

/** A new store a repair was building (its sidecars go with it: see findTempFiles). */
const isRepairTemp = (name: string): boolean => /^snap-[\w-]+\.repair\.db\..+\.partial$/.test(name);

/** What could be read of a store that cannot be opened as one. */
interface UnopenableContents {
  damage: string;
  audit: Row[];
  auditError?: string;
  generation: number;
  cookie: number;
}

function readUnopenable(storePath: string): UnopenableContents {
  const found: UnopenableContents = { damage: 'the store could not be opened', audit: [], generation: 0, cookie: 0 };
  let old: DatabaseSync;
  try {
    old = new (loadSqlite().DatabaseSync)(storePath, { readOnly: true });
  } catch (error) {
    found.damage = reasonOf(error);
    found.auditError = found.damage;
    return found;
  }
  const attempt = (read: () => void, failed: (reason: string) => void = () => undefined): void => {
    try {
      read();
    } catch (error) {
      failed(reasonOf(error));
    }
  };
  try {
    attempt(
      () => {
        const lines = old
          .prepare('PRAGMA quick_check')
          .all()
          .map((row) => String(row.quick_check));
        found.damage = lines.find((line) => line !== 'ok') ?? found.damage;
      },
      (reason) => (found.damage = reason),
    );
    attempt(
      () => {
        for (const row of old.prepare('SELECT seq, time, op, entity_id, entity_type, detail FROM audit').iterate()) {
          found.audit.push(row);
        }
      },
      (reason) => (found.auditError = reason),
    );
    attempt(
      () => (found.generation = Number(old.prepare('SELECT generation FROM vector_generation').get()?.generation)),
    );
    attempt(() => (found.cookie = Number(old.prepare('PRAGMA schema_version').get()?.schema_version)));
  } finally {
    old.close();
  }
  if (!Number.isSafeInteger(found.generation)) found.generation = 0;
  if (!Number.isSafeInteger(found.cookie)) found.cookie = 0;
  return found;
}

/**
 * Restores snapshot `id` over a store that cannot even be opened (its schema
 * is damaged, or the file was cut short), which `Memory.restore` cannot
 * reach: the store is rebuilt from the snapshot, verified first, and written
 * over the file as rebuildOver does. What of the old audit log can be read is
 * kept. `dir` is the store's folder, as given to Memory.open. No snapshot of
 * the store as it was can be taken (it cannot be read): the damaged file is
 * kept instead, moved aside (`keptAside`).
 */
export async function restoreUnopenableStore(dir: string, id: string): Promise<RestoredSnapshot> {
  assertId(id, 'snapshot id');
  const storePath = path.join(dir, STORE_FILE);
  const snapshotsDir = path.join(dir, 'snapshots');
  const info = listSnapshots(snapshotsDir).find((snapshot) => snapshot.id === id);
  if (!info) throw new MemoryError('SNAPSHOT_NOT_FOUND', `No snapshot with id ${id}.`);
  if (!fs.existsSync(storePath)) {
    throw new MemoryError('INVALID_INPUT', `There is no store at ${storePath} to restore over.`);
  }
  // What killed repairs left is removed when the store next opens; while it cannot, each retry
  // would add a copy the size of the store. A repair still running (its writer is alive) is kept.
  removeOrphanedTempFiles(snapshotsDir, isRepairTemp);
  // The old file, read directly for what it still holds (its audit log,
  // counters) and closed before the rebuild: a connection left open would
  // keep its log files beside it, and the store would look in use.
  const old = readUnopenable(storePath);
  const keptAside = await rebuildOver({
    storePath,
    snapshotFile: path.join(snapshotsDir, `${id}.db`),
    temp: repairTempPath(snapshotsDir, id),
    id,
    damage: old.damage,
    now: () => new Date(),
    waitMs: 15_000,
    unopenable: true,
    liveAudit: () => {
      if (old.auditError !== undefined) {
        // What was read is kept; the reason says why the rest is not.
        return (function* () {
          yield* old.audit;
          throw new Error(old.auditError);
        })();
      }
      return old.audit;
    },
    liveGeneration: () => old.generation,
    liveSchemaCookie: () => old.cookie,
  });
  recordVerifyOutcome(storePath, [], new Date());
  return { ...info, ...(keptAside && { keptAside }) };
}
