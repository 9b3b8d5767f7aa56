import * as fs from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from '../errors';
import { isDiskFull, storeFullError } from './disk-full';
import { createExclusiveSync, ownedTempPath, removeOrphanedTempFiles, removeQuietly, REPLACING } from './owned-files';

/**
 * The store file's life before SQLite opens it: the folder it goes in, how a
 * new one comes into being, and telling our file from one that is not.
 */

const CREATING = 'creating';

/** The store's file in its folder. */
export const STORE_FILE = 'memory.db';

/** What STORE_FULL says a new store needs: its empty schema, its log and index files, measured. */
export const NEW_STORE_NEEDS = 'A new store needs about 300 KB.';

/**
 * Creates the store's folder (and its parents). Node reports a read-only
 * file system under a missing folder as ENOENT; this finds the folder that
 * cannot be written and says so.
 */
export function prepareStoreFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    return;
  } catch (error) {
    let existing = dir;
    while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
    if (fs.existsSync(existing) && !fs.statSync(existing).isDirectory()) {
      const message = `Cannot create the store folder ${dir}: ${existing} is a file, not a folder.`;
      throw new MemoryError('INVALID_INPUT', message, { cause: error });
    }
    const unwritable = unwritableReason(existing);
    if (unwritable) {
      throw new MemoryError(
        'STORE_READONLY',
        `Cannot create the store folder ${dir}: ${existing} cannot be written (${unwritable}). Choose a folder you can write to.`,
        { cause: error },
      );
    }
    if (isDiskFull(error)) {
      throw storeFullError(path.join(dir, STORE_FILE), 'the store', NEW_STORE_NEEDS, error);
    }
    throw new MemoryError('INVALID_INPUT', `Cannot create the store folder ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Why `dir` cannot be written to, or undefined when it can (or it is
 * unclear). A read-only file system stops even root, which file modes do not.
 */
export function unwritableReason(dir: string): string | undefined {
  try {
    if (!fs.statSync(dir).isDirectory()) return 'it is not a folder';
    fs.accessSync(dir, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return 'it is on a read-only file system';
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    return undefined;
  }
}

export type Creation =
  /** This call made the file, complete. */
  | 'created'
  /** It was there already (or another process made it meanwhile). */
  | 'existed'
  /** Not made: the file system has no hard links; the caller creates it in place, as SQLite does. */
  | 'in-place';

/**
 * The temporary files of `file`'s folder that a killed process may leave:
 * a store being built (and its sidecars), and a file being replaced beside
 * the store (verify's damage marker, `memory.db.damaged.<owner>.replacing`).
 */
const creationTemp = (file: string) => {
  const prefix = `${path.basename(file)}.`;
  const kinds = new RegExp(`\\.(?:${CREATING}(?:-wal|-shm|-journal)?|${REPLACING})$`);
  return (name: string) => name.startsWith(prefix) && kinds.test(name);
};

/**
 * Refuses a store path that holds something other than a regular file: a
 * folder named memory.db would otherwise reach SQLite, whose "unable to open"
 * reads as a permissions problem and sends the user the wrong way. A link is
 * judged by what it leads to (assertStoreConfined has kept it in the folder).
 */
export function assertStoreFileKind(file: string): void {
  let stats: fs.Stats;
  try {
    stats = fs.statSync(file);
  } catch {
    return; // Missing (it is created) or unreadable (SQLite says why).
  }
  if (stats.isFile()) return;
  const what = stats.isDirectory() ? 'a folder' : 'not a regular file (a device, pipe or socket)';
  throw new MemoryError(
    'INVALID_INPUT',
    `${file} is ${what}, not a store file. Move it away (a new store is then created there), or keep the store in another folder.`,
  );
}

/**
 * Makes `file` a new, complete store unless it exists. `build` makes one at a
 * temporary path, and a hard link puts it in place only if nothing is there
 * yet: so a store file never exists empty or half made. Another process
 * opening the folder meanwhile sees either no file or a whole store (an empty
 * file is refused as data gone missing), and of two processes creating the
 * store at once, the second to link opens the first one's.
 */
export function createIfMissing(file: string, build: (temp: string) => void): Creation {
  const dir = path.dirname(file);
  removeOrphanedTempFiles(dir, creationTemp(file));
  if (fs.existsSync(file)) return 'existed';
  const temp = ownedTempPath(file, CREATING);
  try {
    // Made here, empty, before SQLite opens it: SQLite would follow a link
    // planted at the name and build the store wherever it led.
    try {
      createExclusiveSync(temp);
    } catch (error) {
      if (isDiskFull(error)) throw storeFullError(file, 'the store', NEW_STORE_NEEDS, error);
      // What SQLite would have said creating it (SQLITE_CANTOPEN): the folder cannot take a file.
      const why = unwritableReason(dir) ?? (error as Error).message;
      throw new MemoryError(
        'STORE_READONLY',
        `The store at ${file} cannot be opened for writing (its folder cannot be written: ${why}). Workspace Memory needs to write its file and folder, even to read: check their permissions, or copy the store somewhere writable.`,
        { cause: error },
      );
    }
    build(temp);
    // Closing the last connection moves the write-ahead log into the file;
    // if a log were left, the file alone would not be the whole store.
    if (fileSize(`${temp}-wal`) > 0) return 'in-place';
    try {
      fs.linkSync(temp, file);
      return 'created';
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'existed';
      if (isDiskFull(error)) throw storeFullError(file, 'the store', NEW_STORE_NEEDS, error);
      // No hard links here (some network and FAT file systems).
      return 'in-place';
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) removeQuietly(`${temp}${suffix}`);
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Tables every Workspace Memory store has had since its first version, with
 * columns each has always had and that every version reads. Names alone are
 * not enough: `objects`, `commits` and `refs` are common words, and another
 * program's tables of those names taken for ours would have our migrations
 * fail half-way on them, or change them.
 */
const OUR_TABLES: Readonly<Record<string, readonly string[]>> = {
  objects: ['seq', 'hash', 'data'],
  commits: ['seq', 'hash', 'entity_id', 'parent_seq', 'object_seq', 'time', 'author', 'message', 'op'],
  refs: ['id', 'type', 'agent_id', 'head_seq', 'object_seq', 'deleted', 'created_at', 'updated_at'],
};

export type Contents = 'empty' | 'ours' | 'foreign' | 'incomplete';

/**
 * What a database holds, from its schema: `names` (sqlite_* ones left out)
 * and `columnsOf`, the columns of a table (none for a view or a missing table).
 */
export function classifyContents(names: readonly string[], columnsOf: (table: string) => readonly string[]): Contents {
  if (names.length === 0) return 'empty';
  let ours = 0;
  let missing = false;
  for (const [table, required] of Object.entries(OUR_TABLES)) {
    if (!names.includes(table)) {
      missing = true;
      continue;
    }
    const columns = columnsOf(table);
    if (!required.every((column) => columns.includes(column))) return 'foreign';
    ours++;
  }
  if (!missing) return 'ours';
  // Two of our three history tables, with our columns, and not the third: a store that lost a
  // table (dropped, or a damaged schema). One alone is too little to tell it from another
  // program's file that happens to have a table of that name, which must be left alone.
  return ours >= 2 ? 'incomplete' : 'foreign';
}

/** The first of our history tables a store that lost some of them is missing. */
export function firstMissingTable(names: readonly string[]): string | undefined {
  return Object.keys(OUR_TABLES).find((table) => !names.includes(table));
}

/**
 * A file with our tables whose layout version (user_version) reads 0: the
 * header field was reset (a tool, a damaged header), and migrating from 0
 * would try to create the tables again over the data.
 */
export function versionLostError(file: string, latest: number): MemoryError {
  return new MemoryError(
    'STORE_CORRUPT',
    `The store at ${file} holds Workspace Memory's tables but its layout version was reset to 0, so it cannot be ` +
      `opened safely. Restore the file from a backup or restore a snapshot; if you know it was last written by this ` +
      `version, set the version back with \`sqlite3 ${file} "PRAGMA user_version = ${latest}"\` and run ` +
      '`workspace-memory verify`.',
  );
}

export function foreignFileError(file: string, names: readonly string[]): MemoryError {
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? `, and ${names.length - 5} more` : '');
  return new MemoryError(
    'STORE_INCOMPATIBLE',
    `${file} is not a Workspace Memory store: it is another program's SQLite database (it holds ${shown}). ` +
      'It was left untouched. Move it away, or keep the store in another folder.',
  );
}

export function emptyFileError(file: string): MemoryError {
  const bytes = fileSize(file);
  return new MemoryError(
    'STORE_CORRUPT',
    `The store at ${file} is empty (${bytes} bytes, no data): what it held is gone, or it was never a store. ` +
      'Restore the file from a backup; or start a new, empty store in its place with `workspace-memory init` ' +
      '(Memory.open with `init: true`), then restore a snapshot if there is one.',
  );
}

/** The first bytes of every SQLite 3 file. */
const SQLITE_MAGIC = 'SQLite format 3\0';

/** Fields of SQLite's 100-byte file header, with the values a store can have (sqlite.org/fileformat.html). */
const HEADER_FIELDS: readonly { at: number; bytes: number; name: string; valid: (value: number) => boolean }[] = [
  {
    at: 16,
    bytes: 2,
    name: 'the page size',
    valid: (size) => size === 1 || (size >= 512 && (size & (size - 1)) === 0),
  },
  // 1: a rollback journal, 2: a write-ahead log. Anything greater makes SQLite open the file
  // read-only (the write version) or not at all (the read version), as if from a later format.
  { at: 18, bytes: 1, name: 'the write version', valid: (version) => version === 1 || version === 2 },
  { at: 19, bytes: 1, name: 'the read version', valid: (version) => version === 1 || version === 2 },
  { at: 21, bytes: 1, name: 'the maximum payload fraction', valid: (fraction) => fraction === 64 },
  { at: 22, bytes: 1, name: 'the minimum payload fraction', valid: (fraction) => fraction === 32 },
  { at: 23, bytes: 1, name: 'the leaf payload fraction', valid: (fraction) => fraction === 32 },
  // 0 in these two: a file whose header was written before it held any table. In WAL mode the file's
  // own page 1 keeps that until the first checkpoint copies the newer one in from the log.
  { at: 44, bytes: 4, name: 'the schema format', valid: (format) => format <= 4 },
  { at: 56, bytes: 4, name: 'the text encoding', valid: (encoding) => encoding <= 3 },
];

/** The bytes SQLite reserves for expansion, which must be zero. */
const RESERVED = { from: 72, to: 92 };

/**
 * What is wrong with the header of the SQLite file `file` ("the write version
 * (byte 18) reads 253"), or undefined when every field has a value a store can
 * have, or the file has no full header to read (SQLite says what is wrong
 * with that). SQLite's own checks pass over most of these fields: a damaged
 * write version only makes it open the file read-only, which reads as a
 * permissions problem.
 */
export function headerDamage(file: string): string | undefined {
  const header = Buffer.alloc(100);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      if (fs.readSync(fd, header, 0, 100, 0) < 100) return undefined;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (header.toString('latin1', 0, 16) !== SQLITE_MAGIC) return 'it does not start with "SQLite format 3"';
  for (const field of HEADER_FIELDS) {
    const value = header.readUIntBE(field.at, field.bytes);
    if (!field.valid(value)) return `${field.name} (byte ${field.at}) reads ${value}`;
  }
  const reserved = header.subarray(RESERVED.from, RESERVED.to).findIndex((byte) => byte !== 0);
  return reserved === -1 ? undefined : `the reserved byte ${RESERVED.from + reserved} is not zero`;
}

/**
 * Layouts grow by one a release: a layout version (user_version, header
 * bytes 60-63) below zero, or of 256 or more (what a damaged byte among its
 * first three gives), was written by no release, newer or older.
 */
export function impossibleLayoutVersion(version: number): boolean {
  return version < 0 || version >= 256;
}

/** The error for a store whose header is damaged (headerDamage, or an impossible layout version). */
export function damagedHeaderError(file: string, damage: string): MemoryError {
  return new MemoryError(
    'STORE_CORRUPT',
    `The header of the store at ${file} is damaged: ${damage}. Restore a snapshot (\`workspace-memory snapshot restore <id>\` rebuilds the file) or the file from a backup.`,
  );
}
