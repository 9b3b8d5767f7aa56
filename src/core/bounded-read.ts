import * as fs from 'node:fs';
import { constants as fsConstants, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/**
 * Reading a file the project did not write without trusting it to be small,
 * finite or a file at all: `/dev/zero` never ends, a FIFO blocks the open
 * until someone writes, and a file can grow between its stat and its read.
 * So a file is opened without blocking, judged by the fstat of what was
 * opened (no window for the path to change), and read up to one byte past
 * the limit, never further.
 */

/** O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; it changes nothing for a regular file. */
export const READ_FLAGS: number | string =
  fsConstants.O_NONBLOCK === undefined ? 'r' : fsConstants.O_RDONLY | fsConstants.O_NONBLOCK;

export type BoundedRead =
  | { kind: 'read'; bytes: Buffer; stats: Stats }
  /** A folder, device, FIFO or socket: nothing was read. */
  | { kind: 'not-a-file'; stats: Stats }
  /** `size` is the file's size, or the bytes read before stopping (one past the limit) when it grew. */
  | { kind: 'too-large'; size: number; stats: Stats };

/** What a regular file of `stats` allows: a buffer of one byte past what may be read, or the refusal. */
function judge(stats: Stats, maxBytes: number): Buffer | Exclude<BoundedRead, { kind: 'read' }> {
  if (!stats.isFile()) return { kind: 'not-a-file', stats };
  if (stats.size > maxBytes) return { kind: 'too-large', size: stats.size, stats };
  return Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
}

function result(buffer: Buffer, length: number, maxBytes: number, stats: Stats): BoundedRead {
  if (length > maxBytes) return { kind: 'too-large', size: length, stats };
  return { kind: 'read', bytes: buffer.subarray(0, length), stats };
}

/** Reads at most `maxBytes` (+1 to tell a file that grew) of the file `file`. Throws what open and read throw. */
export function readBoundedSync(file: string, maxBytes: number): BoundedRead {
  const fd = fs.openSync(file, READ_FLAGS);
  try {
    const stats = fs.fstatSync(fd);
    const buffer = judge(stats, maxBytes);
    if (!Buffer.isBuffer(buffer)) return buffer;
    let length = 0;
    while (length < buffer.length) {
      const read = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    return result(buffer, length, maxBytes, stats);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The same through an open handle, whose `stats` the caller took (and may
 * have checked further) after opening it.
 */
export async function readBoundedHandle(handle: FileHandle, stats: Stats, maxBytes: number): Promise<BoundedRead> {
  const buffer = judge(stats, maxBytes);
  if (!Buffer.isBuffer(buffer)) return buffer;
  let length = 0;
  while (length < buffer.length) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return result(buffer, length, maxBytes, stats);
}
