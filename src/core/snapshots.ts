import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

import { readBoundedSync } from './bounded-read';
import { nodeCrypto } from './crypto';
import { isMemoryError, MemoryError } from './errors';
import { assertSnapshotFileConfined } from './paths';
import { FtsIndex } from './search/fts-index';
import { loadSqlite } from './sqlite';
import { recordVerifyOutcome } from './store/damage-marker';
import { Database, type Row, translateSqliteError } from './store/database';
import { formatBytes, isDiskFull, storeFullError } from './store/disk-full';
import { EntityStore } from './store/entity-store';
import { missingTableOf, translateMissingTable } from './store/missing-table';
import {
  createExclusiveSync,
  findTempFiles,
  ownedTempPath,
  removeOrphanedTempFiles,
  removeQuietly,
  replaceFileSync,
} from './store/owned-files';
import { countOf, num, text } from './store/rows';
import { copyFromSnapshot, createMissingTables, SCHEMA_VERSION, STATE_TABLES } from './store/schema';
import { STORE_FILE } from './store/store-file';
import type { EntityType } from './types';
import { assertId } from './validation';
import { verifyState } from './verify';
import { reasonOf } from './verify/tables';

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

/** What to do when a store cannot be mended in place: its entities survive in an export or a snapshot. */
const NEW_STORE_ADVICE =
  'Start a new store with `workspace-memory init` in another folder and import an export of this one (or restore a snapshot there), then move it into place.';

/**
 * Damage SQLite finds in the live file's pages (PRAGMA quick_check: every
 * page and record, not the indexes' agreement), as its first complaint;
 * undefined when there is none. A check that cannot run is damage too.
 */
function liveDamage(db: Database): string | undefined {
  try {
    const problems = db
      .all('PRAGMA main.quick_check')
      .map((row) => text(row, 'quick_check', 'quick_check'))
      .filter((line) => line !== 'ok');
    if (problems.length === 0) return undefined;
    return problems.length === 1 ? `1 problem: ${problems[0]}` : `${problems.length} problems, first: ${problems[0]}`;
  } catch (error) {
    if (isMemoryError(error) && !isMemoryError(error, 'STORE_CORRUPT')) throw error;
    return reasonOf(error);
  }
}

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

/** A snapshot being copied (or left by a copy that was killed): `snap-….db.<pid>@<host>.partial`, or `snap-….db.partial` from older versions. */
const isPartial = (name: string): boolean => /^snap-.*\.(?:partial|replacing)$/.test(name);

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
/** A manifest without its copy this old is left from a kill, not a snapshot being made. */
const ORPHANED_MANIFEST_MS = 15 * 60_000;

/** A snapshot's manifest is a few hundred bytes; anything much bigger is not one. */
const MANIFEST_MAX_BYTES = 64 * 1024;

/** The snapshots in `dir`, newest first: those with a readable manifest and their copy. */
function listSnapshots(dir: string): SnapshotInfo[] {
  if (!fs.existsSync(dir)) return [];
  const infos: SnapshotInfo[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      // A manifest that is a link (or leads out of the folder) is not one of ours: skipped.
      assertSnapshotFileConfined(dir, path.join(dir, name));
      // Bounded and regular files only: a FIFO or a huge file named *.json must not hang the list.
      const read = readBoundedSync(path.join(dir, name), MANIFEST_MAX_BYTES);
      if (read.kind !== 'read') continue;
      const info = JSON.parse(read.bytes.toString('utf8')) as SnapshotInfo;
      if (fs.existsSync(path.join(dir, `${info.id}.db`))) infos.push(info);
    } catch {
      // A manifest that cannot be read is not a usable snapshot; skip it.
    }
  }
  return infos.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** What rebuildOver needs: the files, and the live store's audit log and vector generation as far as they read. */
interface RebuildPlan {
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
 */
async function rebuildOver(plan: RebuildPlan): Promise<void> {
  const { backup, DatabaseSync } = loadSqlite();
  // A store that cannot even be opened is replaced whole rather than written over: the new file
  // is built completely first (a kill or a full disk before that leaves the original as it was),
  // the damaged original and its log are moved aside (kept, never emptied), and the new file is
  // renamed into place; whatever the damaged header says does not matter. Nothing can be working
  // on the old file: it cannot be opened.
  const swap = plan.unopenable === true;
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
      return;
    }
    const source = new DatabaseSync(plan.temp, { readOnly: true });
    // The backup does not wait for another writer as a connection's
    // statements do: it is retried for as long as they would wait.
    const deadline = Date.now() + plan.waitMs;
    try {
      for (;;) {
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
    const store = new EntityStore(fresh, plan.now, 'restore', new FtsIndex(fresh), { kind: 'user' });
    try {
      fresh.transaction(() => {
        for (const table of STATE_TABLES) copyFromSnapshot(fresh, table);
        // A log read in part is kept; one that could not be read at all leaves the snapshot's.
        if (audit.length > 0 || lostAudit === undefined) {
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
        store.audit('restore', null, [], {
          snapshot: plan.id,
          repaired: plan.damage,
          ...(lostAudit ? { auditLost: lostAudit } : {}),
        });
        // Only connections open on the live file need a newer cookie to see the new schema.
        if (forOpenConnections) passSchemaCookie(fresh, plan);
      });
    } catch (error) {
      if (error instanceof MemoryError && error.code !== 'STORE_CORRUPT') throw error;
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
    throw new MemoryError(
      'STORE_CORRUPT',
      `The header of the store at ${plan.storePath} is damaged (schema cookie ${live}): it cannot be rebuilt in place. ${NEW_STORE_ADVICE}`,
    );
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
 * kept. `dir` is the store's folder, as given to Memory.open.
 */
export async function restoreUnopenableStore(dir: string, id: string): Promise<SnapshotInfo> {
  assertId(id, 'snapshot id');
  const storePath = path.join(dir, STORE_FILE);
  const snapshotsDir = path.join(dir, 'snapshots');
  const info = listSnapshots(snapshotsDir).find((snapshot) => snapshot.id === id);
  if (!info) throw new MemoryError('SNAPSHOT_NOT_FOUND', `No snapshot with id ${id}.`);
  if (!fs.existsSync(storePath)) {
    throw new MemoryError('INVALID_INPUT', `There is no store at ${storePath} to restore over.`);
  }
  // The old file, read directly for what it still holds (its audit log,
  // counters) and closed before the rebuild: a connection left open would
  // keep its log files beside it, and the store would look in use.
  const old = readUnopenable(storePath);
  await rebuildOver({
    storePath,
    snapshotFile: path.join(snapshotsDir, `${id}.db`),
    temp: ownedTempPath(path.join(snapshotsDir, `${id}.repair.db`), 'partial'),
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
  return info;
}

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
        // The comparison reads both files: when the live one is what fails, the
        // preview says so, and what the snapshot holds, for the restore that mends it.
        const damage = isMemoryError(error, 'STORE_CORRUPT') ? liveDamage(this.db) : undefined;
        if (damage === undefined) throw snapshotFault(error, `Snapshot ${id} cannot be read`);
        try {
          const restored = change('SELECT id, type FROM snap.refs WHERE deleted = 0');
          const none: RestoreChange = { total: 0, byType: {}, ids: [] };
          return { snapshot, restored, removed: none, changed: none, unchanged: 0, liveDamage: damage };
        } catch (snapError) {
          throw snapshotFault(snapError, `Snapshot ${id} cannot be read`);
        }
      }
    });
  }

  /**
   * Replaces the live state with the snapshot's; the snapshot is verified
   * first, and any failure leaves the live store as it was. The audit log is
   * not rolled back: it records the restore.
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
  async restore(id: string): Promise<SnapshotInfo> {
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
      if (damage !== undefined) return { info, damage };
      try {
        this.copyIn(id);
        return { info, damage: undefined };
      } catch (error) {
        // Damage quick_check missed, found by the copy: repair instead.
        if (!isMemoryError(error, 'STORE_CORRUPT') || missingTableOf(error.cause) !== undefined) throw error;
        return { info, damage: reasonOf(error) };
      }
    });
    if (outcome.damage !== undefined) await this.rebuildFromSnapshot(id, outcome.damage);
    // The live state is now the snapshot's, which verify found whole: the
    // mark an earlier verify left (which refuses writes) no longer applies.
    recordVerifyOutcome(this.db.path, [], new Date());
    return outcome.info;
  }

  /** The in-place restore: the snapshot's state tables into the live file, in one transaction. */
  private copyIn(id: string): void {
    try {
      this.db.transaction(() => {
        // A table another tool dropped is put back first: the copy needs it.
        createMissingTables(this.db);
        for (const table of STATE_TABLES) {
          this.db.exec(`DELETE FROM main.${table}`);
          copyFromSnapshot(this.db, table);
        }
        this.finishRestore(id, {});
      });
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      // The snapshot was verified, its tables all there: a table missing now is the live store's.
      const live = translateMissingTable(error, this.db.path);
      if (live instanceof MemoryError) throw live;
      throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} could not be restored: ${String(error)}`, {
        cause: error,
      });
    }
  }

  /** What every restore does last, in its transaction: the derived state made anew, and the record. */
  private finishRestore(id: string, detail: Record<string, unknown>): void {
    // The full-text index is contentless (it cannot be copied row by row): rebuild it.
    this.store.reindex();
    // Vectors came back with the snapshot: caches of other processes are stale.
    this.db.run('UPDATE vector_generation SET generation = generation + 1 WHERE id = 1');
    this.store.audit('restore', null, [], { snapshot: id, ...detail });
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
