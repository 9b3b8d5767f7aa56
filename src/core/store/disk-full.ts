import * as fs from 'node:fs';
import * as path from 'node:path';

import { isMemoryError, MemoryError } from '../errors';

/** SQLite's result code for "database or disk is full". */
const SQLITE_FULL = 13;

/** True for a write that failed because the disk (or the file system's quota) is full. */
export function isDiskFull(error: unknown): boolean {
  if (isMemoryError(error)) return error.code === 'STORE_FULL';
  const { errcode, code } = (error ?? {}) as { errcode?: unknown; code?: unknown };
  // Extended result codes keep the primary code in their low byte.
  return (typeof errcode === 'number' && (errcode & 0xff) === SQLITE_FULL) || code === 'ENOSPC' || code === 'EDQUOT';
}

/** SQLite's primary result code for an I/O error. */
const SQLITE_IOERR = 10;

/**
 * Below this much free space, an I/O error is taken to be the disk being
 * full. SQLite does not always say SQLITE_FULL: failing to grow the WAL index
 * (-shm, mapped in 32 KB pieces) it says "disk I/O error" (SQLITE_IOERR_SHMSIZE),
 * the errno lost on the way. A disk with a megabyte left is full for a store.
 */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * isDiskFull, or an SQLite I/O error on `file`'s disk while that disk has
 * (almost) no room left: what SQLite reports when opening a store on a full disk.
 */
export function isOutOfSpace(error: unknown, file: string | undefined): boolean {
  if (isDiskFull(error)) return true;
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode !== 'number' || (errcode & 0xff) !== SQLITE_IOERR || file === undefined) return false;
  const free = freeBytes(path.dirname(file));
  return free !== undefined && free < NEARLY_FULL_BYTES;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** Free space for this user on the file system holding `dir`, or undefined where it cannot be told. */
function freeBytes(dir: string): number | undefined {
  try {
    const stats = fs.statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return undefined;
  }
}

/**
 * The STORE_FULL error for `file`: what was not done, how much room it needs
 * (`needs`, a sentence), and how much the disk has. Says that nothing was
 * lost, which every caller must make true: a failed transaction rolls back,
 * and a failed snapshot removes what it had written.
 */
export function storeFullError(file: string | undefined, failed: string, needs: string, cause: unknown): MemoryError {
  const free = file === undefined ? undefined : freeBytes(path.dirname(file));
  return new MemoryError(
    'STORE_FULL',
    `The disk holding the store${file === undefined ? '' : ` at ${file}`} is full${free === undefined ? '' : ` (${formatBytes(free)} free)`}: ` +
      [
        `${failed} was not made, and nothing already in the store was lost.`,
        needs,
        'Free space on that disk and try again.',
      ]
        .filter(Boolean)
        .join(' '),
    { cause },
  );
}
