import * as fs from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from './errors';

/**
 * Whether paths the project uses on a user's behalf stay in the folder they
 * belong to. A symbolic link is only a name: what counts is where it leads,
 * so these compare real paths (every link resolved), never the names given.
 */

/** True when `candidate` is `folder` itself or anything below it. Both must be absolute and resolved alike. */
export function isInside(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** The reason given for a path that resolves outside the folder being synced. */
export function outsideReason(target: string): string {
  return `symlink leads outside the synced folder (${target})`;
}

/**
 * Where a symlink leads, resolved as far as it exists: a dangling link to
 * `/elsewhere/new.db` still leads to /elsewhere, and whatever opens it
 * (SQLite creates a missing database file) would create the file there.
 */
function linkTarget(link: string): string {
  try {
    return fs.realpathSync(link);
  } catch {
    return path.resolve(path.dirname(link), fs.readlinkSync(link));
  }
}

/**
 * Refuses a store whose files are links leading out of the store folder:
 * the database, its `-wal`, `-shm` and `-journal` files, verify's damage
 * marker and the snapshots folder. A store folder in a cloned repository (or a shared team folder)
 * could otherwise make the store read or overwrite any file the user can
 * write. The folder itself may be a link: the user chose it. Links that stay
 * inside it are fine.
 */
export function assertStoreConfined(dir: string, databaseFile: string): void {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', `Cannot open the store folder ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const names = [
    databaseFile,
    `${databaseFile}-wal`,
    `${databaseFile}-shm`,
    `${databaseFile}-journal`,
    // verify's damage marker (store/damage-marker.ts): replaced, never written
    // through, but read, and a link out would make another file its say.
    `${databaseFile}.damaged`,
    'snapshots',
  ];
  for (const name of names) {
    const file = path.join(dir, name);
    let stats: fs.Stats;
    try {
      stats = fs.lstatSync(file);
    } catch {
      continue; // Not there yet: it will be created inside the folder.
    }
    if (!stats.isSymbolicLink()) continue;
    const target = linkTarget(file);
    if (!isInside(real, target)) {
      throw new MemoryError(
        'INVALID_INPUT',
        `${file} is a symbolic link leading outside the store folder (to ${target}); remove the link or move the store.`,
      );
    }
  }
}

/**
 * Refuses a snapshot file (`file`: its `.db` or `.json`, in the snapshots
 * folder `snapshotsDir`) that is anything but a regular file of that folder:
 * a symbolic link (wherever it leads: a link to another store would have a
 * restore import that store, one to the live store would restore it onto
 * itself), or a file whose real path is outside the folder. The `.db`'s
 * `-journal` and `-wal` may not be links either: SQLite reads a hot journal
 * and a log into the snapshot it attaches. Snapshots are only ever written by
 * the store, as regular files (VACUUM INTO, then a rename), so nothing
 * legitimate is refused. A missing file passes: the caller reports it.
 */
export function assertSnapshotFileConfined(snapshotsDir: string, file: string): void {
  const refuse = (why: string) =>
    new MemoryError(
      'SNAPSHOT_INVALID',
      `${file} ${why}: a snapshot is a regular file the store wrote in ${snapshotsDir}. It was not read; remove it, or restore another snapshot.`,
    );
  let real: string;
  try {
    real = fs.realpathSync(snapshotsDir);
  } catch {
    return; // No snapshots folder: there is no snapshot to read.
  }
  const candidates = file.endsWith('.db') ? [file, `${file}-journal`, `${file}-wal`] : [file];
  for (const candidate of candidates) {
    let stats: fs.Stats;
    try {
      stats = fs.lstatSync(candidate);
    } catch {
      continue;
    }
    if (stats.isSymbolicLink()) {
      throw refuse(
        candidate === file
          ? `is a symbolic link (to ${linkTarget(candidate)})`
          : `has a linked ${candidate.slice(file.length + 1)} file`,
      );
    }
    if (candidate === file && !stats.isFile()) throw refuse('is not a regular file');
  }
  let target: string;
  try {
    target = fs.realpathSync(file);
  } catch {
    return;
  }
  if (!isInside(real, path.dirname(target))) throw refuse(`leads outside the snapshots folder (to ${target})`);
}

/**
 * Refuses a file the user asked to write (an export) that is one of the
 * store's own: over the database, its log, a snapshot or a manifest, it
 * would destroy what it exports (and writes other processes are making).
 * Other files in the store's folder are the user's to write.
 * Both sides are compared as real paths, so a link to the folder is caught.
 */
export function assertOutsideStore(storeDir: string, file: string): void {
  const real = (target: string): string => {
    try {
      return fs.realpathSync(target);
    } catch {
      // Not there yet: its folder decides.
      return path.join(real(path.dirname(target)), path.basename(target));
    }
  };
  let store: string;
  try {
    store = fs.realpathSync(storeDir);
  } catch {
    return; // No store folder, nothing in it to overwrite.
  }
  const target = real(path.resolve(file));
  // The store's own files: the database and everything named after it (its log, index, journal,
  // damage marker, temporary files), and anything in the snapshots folder.
  const own =
    isInside(path.join(store, 'snapshots'), target) ||
    (path.dirname(target) === store && path.basename(target).startsWith('memory.db'));
  if (own) {
    throw new MemoryError(
      'INVALID_INPUT',
      `Cannot write ${file}: it is one of the store's own files (in ${store}), which the export would overwrite. Write the export somewhere else.`,
    );
  }
}

/** What a store folder's .gitignore says: everything in it stays out of the repository. */
const STORE_GITIGNORE = "# Workspace Memory's store is each person's own; team memory is the team folder's files.\n*\n";

/**
 * Writes the store folder's .gitignore, so `git add -A` never commits the
 * store (nor the HTTP server's token beside it). One already there is the
 * user's, left as it is.
 */
export function keepStoreOutOfGit(storeDir: string): void {
  try {
    fs.writeFileSync(path.join(storeDir, '.gitignore'), STORE_GITIGNORE, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new MemoryError('INVALID_INPUT', `Cannot write ${storeDir}: ${(error as Error).message}`, { cause: error });
  }
}
