import * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';

import { isMemoryError, MemoryError } from '../errors';
import { loadSqlite } from '../sqlite';
import { formatBytes, isOutOfSpace, storeFullError } from './disk-full';
import { missingTableError, missingTableOf } from './missing-table';
import { countOf, type Row, text } from './rows';
import { migrate, SCHEMA_VERSION } from './schema';
import {
  assertStoreFileKind,
  classifyContents,
  createIfMissing,
  damagedHeaderError,
  emptyFileError,
  firstMissingTable,
  foreignFileError,
  headerDamage,
  impossibleLayoutVersion,
  NEW_STORE_NEEDS,
  unwritableReason,
  versionLostError,
} from './store-file';

export type { Row } from './rows';

export interface DatabaseOptions {
  /**
   * `normal` (the default): a commit that returned survives the process
   * crashing or being killed, and the store is never corrupted, but the last
   * commits before a power cut or OS crash may roll back. `full` fsyncs the
   * write-ahead log on every commit so they survive that too, at the cost of
   * one disk flush per write (see the README's benchmark figures).
   */
  synchronous?: 'full' | 'normal';
  /** How long a writer waits for another process's transaction, in ms. */
  busyTimeoutMs?: number;
  readOnly?: boolean;
  /**
   * Make a store of an existing empty file (zero bytes, or a database without
   * tables) instead of refusing it as a store whose data went missing.
   * `workspace-memory init` asks for this. A missing file is always created.
   */
  init?: boolean;
}

/**
 * How many pages the write-ahead log takes before a checkpoint moves them
 * into the store file: every ~32 MB of log rather than every 4 MB. A
 * checkpoint rewrites pages into the database and syncs it, and doing that
 * eight times less often made single saves ~25% and bulk saves ~40% faster
 * (bench/store.mjs). The log is capped and removed on the last close.
 */
const WAL_CHECKPOINT_PAGES = 8000;

/**
 * One SQLite connection with the pragmas the store relies on, a statement
 * cache, and the one transaction primitive every write goes through.
 */
export class Database {
  // Assigned once, in the constructor (by connect(), which may be tried twice).
  private db!: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private inTransaction = false;
  private inRead = false;
  /** Work gathered during the open transaction and written once, just before it commits. */
  private readonly deferred = new Map<string, { state: unknown; flush: (state: unknown) => void }>();
  private closed = false;

  /** The store file that errors name: `path`, unless this connection is building a new store for it. */
  private readonly label: string;
  /** How long a statement waits for another connection's lock; tryTransaction waits not at all. */
  private busyTimeoutMs = 15000;
  /**
   * Opened read-only because the disk was full (see connect): reads work,
   * and a write fails as STORE_FULL rather than as a permissions problem.
   */
  private openedOnFullDisk = false;
  /** What reopening the store normally takes, once the disk has room again (see regainWrites). */
  private reopen: { options: DatabaseOptions; emptyExpected: boolean; nextTryAt: number } | undefined;

  /**
   * Opens the store at `path`, creating it when there is no file (see
   * createIfMissing) and bringing an older layout up to date. Refuses a file
   * that is not a store, and an empty one unless `options.init`.
   * `buildingFor` is createIfMissing's: `path` is a new temporary file that
   * becomes the store at `buildingFor`.
   */
  constructor(
    readonly path: string,
    options: DatabaseOptions = {},
    buildingFor?: string,
  ) {
    this.label = buildingFor ?? path;
    if (buildingFor === undefined) assertStoreFileKind(path);
    const creation =
      options.readOnly || buildingFor !== undefined
        ? 'existed'
        : createIfMissing(path, (temp) => new Database(temp, options, path).close());
    const emptyExpected = buildingFor !== undefined || creation === 'in-place' || options.init === true;
    try {
      this.db = this.connect(options, emptyExpected, false);
    } catch (error) {
      if (!isMemoryError(error, 'STORE_FULL') || options.readOnly || buildingFor !== undefined || !walIsEmpty(path)) {
        throw error;
      }
      // SQLite cannot open a store in WAL mode without room for the index
      // file beside it (-shm, 32 KB), so on a full disk even reading fails.
      // With no write-ahead log to read, the store file alone is the whole
      // store, and it cannot change while the disk stays full (a commit
      // needs the log to grow): it is read as an immutable file, which needs
      // no index. The same file reopened once space is freed writes again.
      try {
        this.openedOnFullDisk = true;
        this.db = this.connect(options, emptyExpected, true);
        this.reopen = { options, emptyExpected, nextTryAt: 0 };
      } catch {
        throw error; // The disk being full is the news, not how the fallback failed.
      }
    }
  }

  /**
   * One connection to `path` with the store's pragmas, its file checked to be
   * a store and its layout brought up to date. `immutable`: read-only, without
   * WAL or locks (see the constructor), for a disk too full to open otherwise.
   */
  private connect(options: DatabaseOptions, emptyExpected: boolean, immutable: boolean): DatabaseSync {
    const { DatabaseSync } = loadSqlite();
    const readOnly = immutable || (options.readOnly ?? false);
    // SQLite passes over most of its header: a damaged write version only opens the file read-only,
    // which would read as a permissions problem, and a restore would not see the damage to repair.
    const damage = headerDamage(this.path);
    if (damage) throw damagedHeaderError(this.label, damage);
    try {
      if (immutable) {
        const url = pathToFileURL(this.path);
        url.searchParams.set('mode', 'ro');
        url.searchParams.set('immutable', '1');
        this.db = new DatabaseSync(url, { readOnly: true });
      } else {
        this.db = new DatabaseSync(this.path, { readOnly });
      }
    } catch (error) {
      throw this.translate(error);
    }
    try {
      this.busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 15000));
      this.db.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
      // Before anything writes (journal_mode rewrites the header): a file
      // that is not ours must be left exactly as it was.
      const contents = this.assertStoreFile(emptyExpected);
      if (!readOnly) {
        this.db.exec('PRAGMA journal_mode = WAL');
        this.db.exec(`PRAGMA synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      }
      this.db.exec('PRAGMA foreign_keys = OFF');
      // 32 MB of page cache: hash-keyed tables are written in random order.
      this.db.exec('PRAGMA cache_size = -32000');
      // 64 MB of memory-mapped pages plus the 32 MB page cache bound what a store adds to its
      // process at about 100 MB, whatever its size; 256 MB mapped made no search faster, and no
      // map at all cost searches 17% more CPU (bench/search-under-load.mjs --rss).
      this.db.exec('PRAGMA mmap_size = 67108864');
      this.db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
      this.db.exec('PRAGMA journal_size_limit = 67108864');
      const version = countOf(this.get('PRAGMA user_version'), 'pragma', 'user_version');
      if (impossibleLayoutVersion(version)) {
        throw damagedHeaderError(this.label, `the layout version (bytes 60-63) reads ${version}`);
      }
      if (version > SCHEMA_VERSION) {
        throw new MemoryError(
          'STORE_INCOMPATIBLE',
          `This store was written by a newer Workspace Memory (schema ${version}; this version reads up to ${SCHEMA_VERSION}). Update the extension or CLI.`,
        );
      }
      // Our tables at version 0: migrating would build them again over the data.
      if (version === 0 && contents === 'ours') throw versionLostError(this.label, SCHEMA_VERSION);
      if (version < SCHEMA_VERSION) {
        if (immutable) {
          throw storeFullError(this.label, 'the upgrade of the store to this version', this.spaceNeeded(), undefined);
        }
        if (readOnly) {
          throw new MemoryError('STORE_INCOMPATIBLE', `The store at ${this.label} is not initialized.`);
        }
        this.transaction(() => migrate(this));
      }
      return this.db;
    } catch (error) {
      this.statements.clear();
      this.db.close();
      throw this.translate(error);
    }
  }

  /**
   * Refuses another program's SQLite file (adding our tables to it would
   * damage it) and, unless `emptyExpected`, an empty one: where a store was,
   * an empty file means its data went missing, and opening it as a new
   * store would hide that.
   */
  private assertStoreFile(emptyExpected: boolean): 'empty' | 'ours' {
    const rows = this.all("SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    const names = rows.map((row) => text(row, 'sqlite_master', 'name'));
    const tables = new Set(
      rows
        .filter((row) => text(row, 'sqlite_master', 'type') === 'table')
        .map((row) => text(row, 'sqlite_master', 'name')),
    );
    // Columns of tables only: a view of the same name is not our table.
    const columnsOf = (table: string): string[] =>
      tables.has(table)
        ? this.all('SELECT name FROM pragma_table_info(?)', table).map((row) => text(row, 'pragma_table_info', 'name'))
        : [];
    const contents = classifyContents(names, columnsOf);
    if (contents === 'foreign') throw foreignFileError(this.label, names);
    if (contents === 'incomplete') throw missingTableError(this.label, firstMissingTable(names) ?? 'objects');
    if (contents === 'empty' && !emptyExpected) throw emptyFileError(this.label);
    return contents;
  }

  /** A SQLite failure as the MemoryError callers get, naming this store. */
  private translate(error: unknown): unknown {
    const code = (error as { errcode?: unknown } | null)?.errcode;
    // 8 = SQLITE_READONLY: a write to a store opened read-only on a full disk.
    if (this.openedOnFullDisk && typeof code === 'number' && (code & 0xff) === 8) {
      return storeFullError(this.label, 'the write', this.spaceNeeded(), error);
    }
    return translateSqliteError(error, this.label, () => this.spaceNeeded());
  }

  /** What STORE_FULL says a write needs: room for the write-ahead log to grow to its checkpoint size. */
  private spaceNeeded(): string {
    if (this.label !== this.path) return NEW_STORE_NEEDS;
    let pageSize = 4096;
    try {
      pageSize = Number(this.db.prepare('PRAGMA page_size').get()?.page_size ?? pageSize);
    } catch {
      // Keep SQLite's default.
    }
    return `The store's write-ahead log takes up to ${formatBytes(WAL_CHECKPOINT_PAGES * pageSize)} between checkpoints (more during a large import).`;
  }

  private statement(sql: string): StatementSync {
    if (this.closed) throw new MemoryError('STORE_CLOSED', 'The store is closed.');
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  run(sql: string, ...params: SQLInputValue[]): { changes: number; lastInsertRowid: number } {
    try {
      const result = this.statement(sql).run(...params);
      return { changes: Number(result.changes), lastInsertRowid: Number(result.lastInsertRowid) };
    } catch (error) {
      throw this.translate(error);
    }
  }

  get(sql: string, ...params: SQLInputValue[]): Row | undefined {
    try {
      return this.statement(sql).get(...params);
    } catch (error) {
      throw this.translate(error);
    }
  }

  all(sql: string, ...params: SQLInputValue[]): Row[] {
    try {
      return this.statement(sql).all(...params);
    } catch (error) {
      throw this.translate(error);
    }
  }

  *iterate(sql: string, ...params: SQLInputValue[]): IterableIterator<Row> {
    // Errors surface while stepping (a damaged page midway), so they are translated here too.
    try {
      yield* this.statement(sql).iterate(...params);
    } catch (error) {
      throw translateSqliteError(error, this.label);
    }
  }

  exec(sql: string): void {
    if (this.closed) throw new MemoryError('STORE_CLOSED', 'The store is closed.');
    try {
      this.db.exec(sql);
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * Runs `work` in one write transaction. BEGIN IMMEDIATE takes the write lock
   * up front, so two processes never both read and then fail to upgrade;
   * the busy timeout makes the second one wait instead of erroring. Nested
   * calls join the outer transaction.
   */
  /**
   * transaction(), except that it gives up at once, returning false, when
   * another connection holds the write lock, instead of waiting for it: for
   * writes that may be put off (read counts), while a bulk write elsewhere
   * holds the lock for a few hundred milliseconds per batch.
   */
  tryTransaction(work: () => void): boolean {
    if (this.inTransaction) {
      work();
      return true;
    }
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      this.transaction(work);
      return true;
    } catch (error) {
      if (error instanceof MemoryError && error.code === 'STORE_BUSY') return false;
      throw error;
    } finally {
      this.db.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  transaction<T>(work: () => T): T {
    if (this.inTransaction) return work();
    if (this.inRead) throw new Error('A write transaction cannot start inside Database.read().');
    this.regainWrites();
    try {
      // Prepared once like any other statement: exec() would parse and plan
      // BEGIN and COMMIT again on every write.
      this.statement('BEGIN IMMEDIATE').run();
    } catch (error) {
      throw this.translate(error);
    }
    this.inTransaction = true;
    try {
      this.assertVersion();
      const result = work();
      for (const { state, flush } of this.deferred.values()) flush(state);
      this.statement('COMMIT').run();
      return result;
    } catch (error) {
      try {
        this.statement('ROLLBACK').run();
      } catch {
        // The transaction is already gone (SQLite rolled it back itself).
      }
      throw this.translate(error);
    } finally {
      this.inTransaction = false;
      this.deferred.clear();
    }
  }

  /**
   * Runs `work`'s reads in one read transaction, so they all see the store
   * as one commit left it, whatever other processes commit meanwhile (WAL
   * keeps that snapshot for the reader). Inside a write transaction, or
   * another read, it just runs.
   */
  read<T>(work: () => T): T {
    if (this.inTransaction || this.inRead) return work();
    this.regainWrites();
    try {
      this.statement('BEGIN').run();
    } catch (error) {
      throw translateSqliteError(error, this.label);
    }
    this.inRead = true;
    let result: T;
    try {
      result = work();
    } catch (error) {
      this.inRead = false;
      try {
        this.statement('ROLLBACK').run();
      } catch {
        // SQLite already ended it.
      }
      throw error;
    }
    this.inRead = false;
    try {
      this.statement('COMMIT').run();
    } catch {
      // A read has nothing to commit; after a statement hit a damaged page SQLite refuses the
      // COMMIT, and the result (a verify report, say) is still right: end the transaction instead.
      try {
        this.statement('ROLLBACK').run();
      } catch {
        // Already ended.
      }
    }
    return result;
  }

  /**
   * A store opened read-only on a full disk (see the constructor) reopens
   * normally once the disk has room again: a long-lived process (an MCP
   * server, a window) would otherwise refuse writes until restarted, and go
   * on reading a file other processes have since written to. Tried between
   * transactions only, at most once a second; while the disk stays full the
   * read-only connection stays.
   */
  private regainWrites(): void {
    const reopen = this.reopen;
    if (!reopen || this.closed || this.inTransaction || this.inRead || Date.now() < reopen.nextTryAt) return;
    reopen.nextTryAt = Date.now() + 1000;
    const readOnly = this.db;
    this.statements.clear();
    try {
      this.openedOnFullDisk = false;
      this.db = this.connect(reopen.options, reopen.emptyExpected, false);
    } catch {
      this.openedOnFullDisk = true;
      this.db = readOnly;
      return;
    }
    this.reopen = undefined;
    readOnly.close();
  }

  /**
   * A newer version may have upgraded the store since this connection
   * opened it (another window, an updated CLI): writing with this version's
   * idea of the layout could damage it, so the write is refused. Checked in
   * every write transaction, where the answer cannot change until it ends.
   */
  private assertVersion(): void {
    const version = countOf(this.get('PRAGMA user_version'), 'pragma', 'user_version');
    if (version > SCHEMA_VERSION) {
      throw new MemoryError(
        'STORE_INCOMPATIBLE',
        `A newer Workspace Memory upgraded this store (schema ${version}; this version writes ${SCHEMA_VERSION}) while it was open here. Update the extension or CLI and reopen it.`,
      );
    }
  }

  /**
   * State that lives for the current transaction only: created on first
   * use, handed to `flush` just before the commit, dropped on rollback. Lets
   * a bulk write update a summary row once instead of once per entity.
   */
  perTransaction<T>(key: string, create: () => T, flush: (state: T) => void): T {
    if (!this.inTransaction) throw new Error('perTransaction needs an open transaction');
    let entry = this.deferred.get(key);
    if (!entry) {
      entry = { state: create(), flush: flush as (state: unknown) => void };
      this.deferred.set(key, entry);
    }
    return entry.state as T;
  }

  /** Counts commits by any connection: changes when another process wrote. */
  dataVersion(): number {
    // A reopened connection counts afresh: any change of the number tells the caller to read again.
    this.regainWrites();
    return countOf(this.get('PRAGMA data_version'), 'pragma', 'data_version');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/**
 * SQLite's failures as MemoryErrors with a code; anything else unchanged.
 * `spaceNeeded` says, for STORE_FULL, how much room the failed work needs.
 */
export function translateSqliteError(error: unknown, file?: string, spaceNeeded?: () => string): unknown {
  if (error instanceof MemoryError) return error;
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  // Extended result codes keep the primary code in their low byte.
  const code = typeof errcode === 'number' ? errcode & 0xff : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const store = file ? `The store at ${file}` : 'The store';
  // 5 = SQLITE_BUSY, 6 = SQLITE_LOCKED
  if (code === 5 || code === 6 || /database is (locked|busy)/i.test(message)) {
    return new MemoryError(
      'STORE_BUSY',
      'Another process held the store for too long; the write was not made. Try again.',
      { cause: error },
    );
  }
  // 13 = SQLITE_FULL; or an I/O error on a disk with no room left, which is
  // how SQLite reports failing to size the WAL index (-shm) of a full disk.
  if (isOutOfSpace(error, file)) {
    return storeFullError(file, 'the write', spaceNeeded?.() ?? '', error);
  }
  // 8 = SQLITE_READONLY, 14 = SQLITE_CANTOPEN: even reading needs to write
  // the write-ahead log and its index beside the store.
  if (code === 8 || code === 14) {
    const folder = file ? unwritableReason(dirname(file)) : undefined;
    const why = folder ? `its folder cannot be written: ${folder}` : message;
    return new MemoryError(
      'STORE_READONLY',
      `${store} cannot be opened for writing (${why}). Workspace Memory needs to write its file and folder, even to read: check their permissions, or copy the store somewhere writable.`,
      { cause: error },
    );
  }
  // 10 = SQLITE_IOERR with room on the disk: the disk or the file system failed
  // (a failing drive, a network share gone away). Never the bare "disk I/O error".
  if (code === 10) {
    return new MemoryError(
      'STORE_CORRUPT',
      `${store} could not be read or written: the file system reported an I/O error (${message}). Nothing was changed by the failed operation. Check the disk or the network share holding the store (and its free space), then try again; if it persists, run \`workspace-memory verify\` and restore a snapshot if it finds damage.`,
      { cause: error },
    );
  }
  // 11 = SQLITE_CORRUPT, 26 = SQLITE_NOTADB
  if (code === 11 || code === 26) {
    return new MemoryError(
      'STORE_CORRUPT',
      `${store} is damaged or is not a Workspace Memory store (${message}). \`workspace-memory snapshot restore <id>\` rebuilds the file from a snapshot; without one, start a new store with \`workspace-memory init\` in another folder and import an export.`,
      { cause: error },
    );
  }
  // 1299 = SQLITE_CONSTRAINT_NOTNULL, 275 = SQLITE_CONSTRAINT_CHECK: the store's statements give every
  // column its layout requires, so one failing says the schema is damaged (a byte flipped in a column's
  // definition). Other constraint failures (a trigger's RAISE, a unique id) keep their own meaning.
  if (errcode === 1299 || errcode === 275) {
    return new MemoryError(
      'STORE_CORRUPT',
      `${store} refused a write its own layout allows (${message}): its schema or data is damaged. Nothing was changed by the failed operation. Run \`workspace-memory verify\`, and restore a snapshot if it finds damage.`,
      { cause: error },
    );
  }
  // A table the store needs is gone (dropped by hand, or a damaged schema): name it and the repair.
  const table = missingTableOf(error);
  if (table) return missingTableError(file ?? 'the store', table, error);
  return error;
}

/** True when the store has no write-ahead log to read: missing, or empty. */
function walIsEmpty(file: string): boolean {
  try {
    return fs.statSync(`${file}-wal`).size === 0;
  } catch {
    return true;
  }
}
