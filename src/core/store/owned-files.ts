import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { writeFileAtomicSync } from '../atomic-file';

/**
 * Temporary files that one process writes and then renames or links into
 * place (a snapshot being copied, a new store being built). A process killed
 * half-way leaves one behind, and nothing else would ever remove it; but the
 * same name may be a file another process is writing right now. So each one
 * is named after its writer, `<base>.<pid>@<host>-<random>.<kind>`, and a later process
 * removes it only once that writer is gone.
 */

/** How long a file without a writer we can check (another machine's, or an older version's) may sit untouched. */
export const ORPHAN_AFTER_MS = 15 * 60 * 1000;
/**
 * A writer we can see alive never keeps its file this long without touching
 * it: by then the pid belongs to another process, or the writer is stuck.
 */
const LIVE_WRITER_MAX_MS = 24 * 60 * 60 * 1000;

// Node has no hostname hash without node:crypto, which opening a store
// deliberately does not load; FNV-1a is enough to tell machines apart.
let hostTagCache: string | undefined;
function hostTag(): string {
  if (hostTagCache === undefined) {
    let hash = 0x811c9dc5;
    for (const char of os.hostname()) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
    hostTagCache = (hash >>> 0).toString(16).padStart(8, '0');
  }
  return hostTagCache;
}

// SQLite's sidecars of a temporary database share its name plus a suffix.
const SIDECAR = /-(?:wal|shm|journal)$/;
const OWNER = /\.(\d+)@([0-9a-f]{8})-[0-9a-z]+\.[a-z]+(?:-wal|-shm|-journal)?$/;

/**
 * A new name for a temporary `kind` file of `base`, written by this process.
 * The random part keeps two threads of one process (two Memory instances)
 * from sharing one.
 */
export function ownedTempPath(base: string, kind: string): string {
  return `${base}.${process.pid}@${hostTag()}-${Math.random().toString(36).slice(2, 8).padEnd(6, '0')}.${kind}`;
}

export interface TempFile {
  path: string;
  bytes: number;
  /** Left by a writer that is gone: safe to remove. */
  orphaned: boolean;
}

function running(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function orphaned(name: string, modifiedMs: number, now: number): boolean {
  const owner = OWNER.exec(name);
  const idle = now - modifiedMs;
  if (owner && owner[2] === hostTag()) return !running(Number(owner[1])) || idle > LIVE_WRITER_MAX_MS;
  return idle > ORPHAN_AFTER_MS;
}

/** The temporary files in `dir` that `matches` selects, with their size and whether their writer is gone. */
export function findTempFiles(dir: string, matches: (name: string) => boolean, now = Date.now()): TempFile[] {
  let names: string[];
  try {
    // A temporary database's sidecars (a VACUUM INTO target's `-journal`, say) are
    // left by the same kill and belong to the same writer: they count and go with it.
    names = fs.readdirSync(dir).filter((name) => matches(name) || matches(name.replace(SIDECAR, '')));
  } catch {
    return [];
  }
  const found: TempFile[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const stat = fs.statSync(file);
      if (stat.isFile()) found.push({ path: file, bytes: stat.size, orphaned: orphaned(name, stat.mtimeMs, now) });
    } catch {
      // Renamed into place or removed since the listing: not a leftover.
    }
  }
  return found;
}

/**
 * Removes a file if it is there; true unless it could not be removed (a
 * read-only folder, a file in use on Windows). For clean-up on the way to
 * reporting another error, which matters more.
 */
export function removeQuietly(file: string): boolean {
  try {
    fs.rmSync(file, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the files `findTempFiles` reports orphaned; returns how many went.
 * Best effort: one that cannot be removed now is tried again next time.
 */
export function removeOrphanedTempFiles(dir: string, matches: (name: string) => boolean): number {
  return findTempFiles(dir, matches).filter((file) => file.orphaned && removeQuietly(file.path)).length;
}

/**
 * Flags for a file the store writes in its folder: created here and now, or
 * not at all. O_EXCL fails on anything already at the name, a symbolic link
 * included (even a dangling one), so nothing planted there is written through;
 * O_NOFOLLOW says the same where O_EXCL alone might not be honoured.
 */
const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Creates `file` empty, failing (EEXIST) when anything is at that name. For a
 * temporary name that SQLite then writes into (VACUUM INTO accepts an empty
 * file, and a new database starts from one): SQLite itself opens with
 * O_CREAT and would follow a link placed there.
 */
export function createExclusiveSync(file: string): void {
  fs.closeSync(fs.openSync(file, CREATE_NEW, 0o644));
}

/**
 * Puts `data` at `file` without ever writing through what is there: it is
 * written to a new temporary name of this process (`ownedTempPath`, so a kill
 * half-way leaves a file the next clean-up recognises), flushed, and renamed
 * over `file`. A symbolic link at `file`, even one leading to the store itself
 * or a snapshot, is replaced, never followed; a reader sees the old content
 * or the new, whole. Throws the system's error (ENOSPC, EACCES, ...) after
 * removing the temporary file.
 */
export function replaceFileSync(file: string, data: string): void {
  writeFileAtomicSync(file, data, ownedTempPath(file, REPLACING));
}

/** The kind `replaceFileSync` names its temporary files with. */
export const REPLACING = 'replacing';
