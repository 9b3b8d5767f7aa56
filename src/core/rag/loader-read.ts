import { promises as fsp, readlinkSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

import { READ_FLAGS, readBoundedHandle } from '../bounded-read';
import { nodeCrypto } from '../crypto';
import { MemoryError } from '../errors';
import { isInside, outsideReason } from '../paths';
import { secretTextReason } from '../secrets/files';
import type { SecretPolicy } from '../secrets/types';
import type { LoadedFile, SkippedFile } from './loader-types';
import { checkAborted, errorCode, ioReason, tooLarge } from './loader-util';

/**
 * Reading one listed document: through one open handle, only if what was
 * opened is a regular file whose real path is inside the synced folder
 * (whatever was done to the path since it was listed), never past the size
 * cap, and only if it is text.
 */

/** How much of a file is looked at to tell binary from text. */
const SNIFF_BYTES = 8192;

/** A file to read, as listed, and the folder it was listed from. */
export interface ReadRequest {
  file: { path: string; relativePath: string };
  /** The synced folder: a file whose real path is not inside its real path is refused. */
  root: string;
  maxFileBytes: number;
  /** What a text holding secrets does to the file (see secrets/files.ts). */
  secrets: SecretPolicy;
  signal: AbortSignal | undefined;
}

/**
 * Never throws for the file's sake: one that vanished, grew past the size
 * cap, became unreadable, is not a regular file, leads out of the root, is
 * binary or holds secrets the policy keeps out comes back as a SkippedFile.
 * Only an abort throws (CANCELLED).
 */
export async function readListedFile({
  file,
  root,
  maxFileBytes,
  secrets,
  signal,
}: ReadRequest): Promise<LoadedFile | SkippedFile> {
  checkAborted(signal);
  let handle: FileHandle | undefined;
  try {
    handle = await fsp.open(file.path, READ_FLAGS);
    const stats = await handle.stat();
    if (!stats.isFile()) return { path: file.path, reason: 'not a regular file' };
    const escape = await escapeFrom(root, file.path, handle, stats);
    if (escape) return { path: file.path, reason: escape };
    const read = await readBoundedHandle(handle, stats, maxFileBytes);
    checkAborted(signal);
    if (read.kind === 'not-a-file') return { path: file.path, reason: 'not a regular file' };
    if (read.kind === 'too-large') return { path: file.path, reason: tooLarge(maxFileBytes, read.size) };
    const text = decode(read.bytes);
    if (text === undefined) return { path: file.path, reason: 'binary file' };
    const secret = secretTextReason(text, secrets);
    if (secret) return { path: file.path, reason: secret };
    return {
      path: file.path,
      relativePath: file.relativePath,
      text,
      sha256: nodeCrypto().createHash('sha256').update(read.bytes).digest('hex'),
      bytes: read.bytes.length,
      mtimeMs: stats.mtimeMs,
    };
  } catch (error) {
    if (error instanceof MemoryError) throw error;
    const code = errorCode(error);
    if (code === 'ENOENT') return { path: file.path, reason: 'vanished: no longer exists' };
    if (code === 'EISDIR') return { path: file.path, reason: 'not a regular file' };
    return { path: file.path, reason: ioReason(error) };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Why the file opened as `handle` may not be read from `root`, or undefined
 * if it may. What counts is where the opened file really is: a link (or a
 * folder on the way) swapped after the listing, or between the open and this
 * check, cannot pass off a file from elsewhere.
 */
async function escapeFrom(root: string, file: string, handle: FileHandle, opened: Stats): Promise<string | undefined> {
  const real = await openedPath(handle, file, opened);
  if (real === undefined) return 'changed while being read: it was replaced or relinked';
  if (isInside(await realRoot(root), real)) return undefined;
  // The root may have moved since its real path was remembered: look again before refusing.
  return isInside(await realRoot(root, true), real) ? undefined : outsideReason(real);
}

/** Whether /proc/self/fd names open files (Linux); found out on first use. */
let procFds: boolean | undefined = process.platform === 'linux' ? undefined : false;

/**
 * The real path of the opened file: on Linux, as the kernel names the open
 * descriptor (one call, no window); elsewhere the path resolved after the
 * open, which must still be the very file that was opened (same device and
 * inode), or undefined if it is not.
 */
async function openedPath(handle: FileHandle, file: string, opened: Stats): Promise<string | undefined> {
  if (procFds !== false) {
    try {
      // Synchronous: the kernel answers from memory, and a thread pool round trip per file costs more.
      const named = readlinkSync(`/proc/self/fd/${handle.fd}`);
      procFds = true;
      // A file deleted since it was opened is named "<path> (deleted)": it was still where the name says.
      return named.endsWith(' (deleted)') ? named.slice(0, -' (deleted)'.length) : named;
    } catch (error) {
      if (procFds === true) throw error;
      procFds = false;
    }
  }
  return resolvedIfSame(file, opened);
}

/** `file` resolved, if that is still the file `opened` describes (same device and inode); else undefined. */
export async function resolvedIfSame(file: string, opened: Stats): Promise<string | undefined> {
  const real = await fsp.realpath(file);
  const now = await fsp.stat(real);
  return now.dev === opened.dev && now.ino === opened.ino ? real : undefined;
}

/** Real paths of the roots files were read from lately: one per sync folder, not one lookup per file. */
const realRoots = new Map<string, string>();
const MAX_REMEMBERED_ROOTS = 64;

async function realRoot(root: string, fresh = false): Promise<string> {
  const known = fresh ? undefined : realRoots.get(root);
  if (known !== undefined) return known;
  const real = await fsp.realpath(root);
  if (realRoots.size >= MAX_REMEMBERED_ROOTS) realRoots.clear();
  realRoots.set(root, real);
  return real;
}

/**
 * The file's text, or undefined when it looks binary: a NUL byte, or mostly
 * control characters, in the first 8 KB. A UTF-16 file is only recognised by
 * its BOM (without one its NULs make it binary). Invalid UTF-8 is decoded
 * with U+FFFD replacements rather than refused: a Latin-1 README is still
 * worth indexing.
 */
export function decode(bytes: Buffer): string | undefined {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = decodeUtf16(bytes.subarray(2), 'utf-16le');
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = decodeUtf16(bytes.subarray(2), 'utf-16be');
  else {
    if (looksBinary(bytes)) return undefined;
    text = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\0')) return undefined;
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function decodeUtf16(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be'): string {
  if (encoding === 'utf-16le') return new TextDecoder('utf-16le').decode(bytes);
  // Swap to little endian rather than rely on ICU having utf-16be.
  const swapped = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  swapped.swap16();
  return new TextDecoder('utf-16le').decode(swapped);
}

function looksBinary(bytes: Buffer): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!;
    if (byte === 0) return true;
    // Tab, LF, VT, FF, CR and ESC (ANSI colours) are at home in text.
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 11 && byte !== 12 && byte !== 13 && byte !== 27) control++;
  }
  return end > 0 && control / end > 0.1;
}
