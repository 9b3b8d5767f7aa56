import * as fs from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from '../errors';
import { isDiskFull, storeFullError } from './disk-full';
import { ownedTempPath, removeOrphanedTempFiles, removeQuietly } from './owned-files';

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

const creationTemp = (file: string) => {
  const prefix = `${path.basename(file)}.`;
  return (name: string) => name.startsWith(prefix) && /\.creating(?:-wal|-shm|-journal)?$/.test(name);
};

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

/** Tables every Workspace Memory store has had since its first version. */
const OUR_TABLES = ['objects', 'commits', 'refs'];

export type Contents = 'empty' | 'ours' | 'foreign';

/** What a database holds, from the names in its schema (sqlite_* ones left out). */
export function classifyContents(names: readonly string[]): Contents {
  if (names.length === 0) return 'empty';
  return OUR_TABLES.every((table) => names.includes(table)) ? 'ours' : 'foreign';
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
