import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Writes `data` to `file` so that a reader (or the user, after a failure)
 * only ever sees the old file whole or the new one whole. The text goes to a
 * temporary file next to `file`, is flushed to the disk, and only then is
 * renamed over it: a full disk, a quota, an I/O error or a kill half-way
 * leaves the previous file as it was, where writing in place would leave it
 * truncated. On failure the temporary file is removed and the error thrown
 * is the system's own (its `code`: ENOSPC, EACCES, …), for the caller to put
 * in its terms.
 *
 * `file` itself is replaced, not written through: a symlink there is
 * replaced by the new file, so callers that mean to follow one (or refuse
 * it) decide that before calling. A file being replaced keeps its
 * permission bits; a new one gets the usual 0o666 less the umask. `temp`
 * names the temporary file when the caller has a convention for it (the
 * store's own files, which its clean-up recognises after a kill).
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, temp = temporaryName(file)): void {
  const mode = modeOf(file);
  let fd: number | undefined;
  try {
    // O_EXCL | O_NOFOLLOW: never write through anything someone else put at the temporary name.
    fd = fs.openSync(temp, TEMP_FLAGS, 0o666);
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    fs.writeFileSync(fd, data);
    // Flushed before the rename: otherwise a crash could leave the new name on an empty file.
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw error;
  }
  syncFolder(path.dirname(file));
}

const TEMP_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * A hidden name in the same folder (a rename cannot cross file systems),
 * unique to this write. The file's own name is shortened in it so that a
 * name near the 255-byte limit still leaves room for the suffix.
 */
function temporaryName(file: string): string {
  const base = path.basename(file).slice(0, 64);
  return path.join(path.dirname(file), `.${base}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** The permission bits of the regular file being replaced, if there is one. */
function modeOf(file: string): number | undefined {
  try {
    const stats = fs.lstatSync(file);
    return stats.isFile() ? stats.mode & 0o7777 : undefined;
  } catch {
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already failing: the first error is the one worth reporting.
  }
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Never created, or already gone.
  }
}

/**
 * Makes the rename itself durable. Best effort: some systems (Windows, some
 * network file systems) cannot open or sync a folder, and the file is
 * already complete under its name either way.
 */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(folder, 'r');
    fs.fsyncSync(fd);
  } catch {
    // See above.
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

/** True for an error that says the disk, or this user's share of it, is full. */
export function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
}
