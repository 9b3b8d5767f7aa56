import { constants as bufferConstants } from 'node:buffer';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isNoSpace, writeFileAtomicSync } from '../../core/atomic-file';
import { readBoundedSync } from '../../core/bounded-read';
import { MemoryError, type MemoryErrorCode } from '../../core/errors';
import { LIMITS } from '../../core/validation';

/**
 * The files a user names on the command line (--file, import, export --out).
 * They chose the path, so a symlink to read is followed; but a read never
 * goes past its limit (a 500 MB file is refused after its stat, `/dev/zero`
 * is refused, not read forever), and only regular files are read or
 * written: a device, FIFO or socket is refused without blocking, with the
 * advice to use standard input or output instead.
 */

/** What a read may take, and how a bigger file is refused. */
export interface ReadLimit {
  maxBytes: number;
  code: MemoryErrorCode;
  /** Completes "larger than <limit>, …". */
  why: string;
}

/** An import's JSON must fit in one string to be parsed at all: the longest Node can make. */
export const IMPORT_LIMIT: ReadLimit = {
  maxBytes: bufferConstants.MAX_STRING_LENGTH,
  code: 'INVALID_INPUT',
  why: 'the largest text that can be parsed',
};

/** --file gives an entity's content, which is capped at 1 MB. */
export const CONTENT_LIMIT: ReadLimit = {
  maxBytes: LIMITS.maxContentBytes,
  code: 'CONTENT_TOO_LARGE',
  why: 'the most content an entity can hold',
};

/** Reads a file the user named (--file, import), failing with a reason they can act on. */
export function readTextFile(file: string, limit: ReadLimit = IMPORT_LIMIT): string {
  let read: ReturnType<typeof readBoundedSync>;
  try {
    read = readBoundedSync(file, limit.maxBytes);
  } catch (error) {
    throw fileError('read', file, error);
  }
  if (read.kind === 'not-a-file') throw notAFile('read', file, read.stats);
  if (read.kind === 'too-large') {
    throw new MemoryError(
      limit.code,
      `Cannot read ${file}: it is larger than ${sizeOf(limit.maxBytes)}, ${limit.why}.`,
    );
  }
  return read.bytes.toString('utf8');
}

/** Reads the content of an entity from --file: at most 1 MB is read. */
export function readContentFile(file: string): string {
  return readTextFile(file, CONTENT_LIMIT);
}

/**
 * Writes a file the user named (export --out), failing with a reason they
 * can act on. The new text is written beside the file and renamed over it
 * (see writeFileAtomicSync), so a full disk or any other failure leaves a
 * previous export whole, never truncated. A symlink at that path is refused
 * rather than written through: someone else may have planted it to make the
 * export overwrite another file; the user can name the link's target
 * instead. A folder, device, FIFO or socket there is refused too, before
 * anything is written, rather than replaced by a file.
 */
export function writeTextFile(file: string, text: string): void {
  try {
    const stats = existing(file);
    if (stats?.isSymbolicLink()) throw linkRefused(file);
    if (stats && !stats.isFile()) throw notAFile('write', file, stats);
    writeFileAtomicSync(file, text);
  } catch (error) {
    throw error instanceof MemoryError ? error : fileError('write', file, error);
  }
}

/** What is at `file` now (not following a link), or undefined if nothing is. */
function existing(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined; // Nothing there yet (or the write will say why not).
  }
}

function linkRefused(file: string): MemoryError {
  let target: string;
  try {
    target = fs.realpathSync(file);
  } catch {
    target = path.resolve(path.dirname(file), fs.readlinkSync(file));
  }
  return new MemoryError(
    'INVALID_INPUT',
    `Cannot write ${file}: it is a symbolic link (to ${target}); name the file itself, or remove the link.`,
  );
}

function notAFile(verb: 'read' | 'write', file: string, stats: fs.Stats): MemoryError {
  if (stats.isDirectory())
    return new MemoryError('INVALID_INPUT', `Cannot ${verb} ${file}: it is a folder, not a file.`);
  const instead = verb === 'read' ? 'pipe it to standard input instead' : 'leave out --out to write to standard output';
  return new MemoryError(
    'INVALID_INPUT',
    `Cannot ${verb} ${file}: it is not a regular file (a device, pipe or socket); ${instead}.`,
  );
}

export function sizeOf(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${Number(mb.toFixed(2))} MB` : `${bytes} bytes`;
}

function fileError(verb: 'read' | 'write', file: string, error: unknown): MemoryError {
  if (isNoSpace(error)) {
    // Not the user's input: the same command works once there is room, and the old file is still whole.
    const free = freeSpace(path.dirname(path.resolve(file)));
    return new MemoryError(
      'STORE_FULL',
      `Cannot ${verb} ${file}: the disk holding it is full${free === undefined ? '' : ` (${sizeOf(free)} free)`}; ` +
        `nothing was changed there. Free some space on that disk, or name a file on another one, and try again.`,
      { cause: error },
    );
  }
  return new MemoryError('INVALID_INPUT', `Cannot ${verb} ${file}: ${problem(verb, file, error)}.`, { cause: error });
}

/** Free space for this user on the file system holding `folder`, or undefined where it cannot be told. */
function freeSpace(folder: string): number | undefined {
  try {
    const stats = fs.statfsSync(folder);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return undefined;
  }
}

/** Node's own messages ("ENOENT: no such file or directory, open ...") say it in its terms, not the user's. */
function problem(verb: 'read' | 'write', file: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      // Writing creates the file, so what is missing is its folder.
      return verb === 'write' ? `the folder ${path.dirname(path.resolve(file))} does not exist` : 'no such file';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EACCES':
    case 'EPERM':
      // The file is replaced by a new one written beside it, so it is the folder that must be writable.
      return verb === 'write'
        ? `permission denied (the folder ${path.dirname(path.resolve(file))} must be writable)`
        : 'permission denied';
    case 'EROFS':
      return 'it is on a read-only file system';
    case 'ELOOP':
      return 'it is a symbolic link (or a loop of them); name the file itself';
    case 'ENXIO':
      return 'it is a pipe or device nobody reads; leave out --out to write to standard output';
    default:
      return (error as Error).message;
  }
}
