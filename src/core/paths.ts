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
    // verify's damage marker (store/damage-marker.ts), written in place.
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
