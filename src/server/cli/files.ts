import { constants as bufferConstants } from 'node:buffer';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
 * can act on. A symlink at that path is refused rather than written through:
 * someone else may have planted it to make the export overwrite another
 * file; the user can name the link's target instead.
 */
export function writeTextFile(file: string, text: string): void {
  let fd: number;
  try {
    refuseLink(file);
    fd = fs.openSync(file, WRITE_FLAGS, 0o666);
  } catch (error) {
    throw fileError('write', file, error);
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw notAFile('write', file, stats);
    // Truncated only now that it is known to be a regular file.
    fs.ftruncateSync(fd, 0);
    fs.writeFileSync(fd, text);
  } catch (error) {
    throw error instanceof MemoryError ? error : fileError('write', file, error);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Create if missing; no O_TRUNC (the file is truncated once it is known to
 * be a regular one); O_NOFOLLOW closes the window between refuseLink's look
 * and the open; O_NONBLOCK so that a FIFO without a reader fails (ENXIO)
 * instead of waiting forever.
 */
const WRITE_FLAGS =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

function refuseLink(file: string): void {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(file);
  } catch {
    return; // Nothing there yet (or the open will say why not).
  }
  if (!stats.isSymbolicLink()) return;
  let target: string;
  try {
    target = fs.realpathSync(file);
  } catch {
    target = path.resolve(path.dirname(file), fs.readlinkSync(file));
  }
  throw new MemoryError(
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
  return new MemoryError('INVALID_INPUT', `Cannot ${verb} ${file}: ${problem(verb, file, error)}.`, { cause: error });
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
      return 'permission denied';
    case 'ELOOP':
      return 'it is a symbolic link (or a loop of them); name the file itself';
    case 'ENXIO':
      return 'it is a pipe or device nobody reads; leave out --out to write to standard output';
    default:
      return (error as Error).message;
  }
}
