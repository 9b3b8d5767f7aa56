import * as fs from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from '../errors';

/** Small helpers the document loader's parts share: errors and reasons, sizes, paths and order. */

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new MemoryError('CANCELLED', 'Loading the documents was cancelled.', { cause: signal.reason });
  }
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function ioReason(error: unknown): string {
  return `unreadable: ${ioMessage(error)}`;
}

/** Node's message, which names the code ('EACCES: permission denied, open ...'), or the code and message. */
export function ioMessage(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}

export function tooLarge(limit: number, size: number): string {
  return `larger than ${formatBytes(limit)} (${formatBytes(size)})`;
}

export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 * 1024 * 1024, 'GB'],
    [1024 * 1024, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * An entry of a folder by its name, as readdir gives it (no separators, no
 * `..`): path.join would normalise the whole path again, for every file of the walk.
 */
export function childPath(folder: string, name: string): string {
  return folder.endsWith(path.sep) ? folder + name : folder + path.sep + name;
}

/** '' for a path at the root, 'a/b' for 'a/b/c.md'. */
export function parentOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash < 0 ? '' : relative.slice(0, slash);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function byRelativePath(a: { relativePath: string }, b: { relativePath: string }): number {
  return compare(a.relativePath, b.relativePath);
}

export function byPath(a: { path: string; reason: string }, b: { path: string; reason: string }): number {
  return compare(a.path, b.path) || compare(a.reason, b.reason);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The names in `folder` that are not valid UTF-8, spelled as readdir gives
 * them: with U+FFFD for each bad sequence. Such a name cannot be opened by
 * that spelling (the path would hold the bytes of U+FFFD, not the name's),
 * nor stored as a document's path, so the walk reports them instead of
 * losing them on an ENOENT. Called only for a folder where some name holds
 * U+FFFD, as it reads the folder a second time. A valid name spelled the
 * same way (one that really holds U+FFFD) is left out: that spelling opens.
 */
export function undecodableNames(folder: string): Set<string> {
  let raw: Buffer[];
  try {
    raw = fs.readdirSync(folder, { encoding: 'buffer' });
  } catch {
    return new Set(); // Gone since it was listed: its entries will say so.
  }
  const bad = new Set<string>();
  const good = new Set<string>();
  for (const name of raw) {
    try {
      good.add(strictUtf8.decode(name));
    } catch {
      bad.add(name.toString('utf8'));
    }
  }
  for (const name of good) bad.delete(name);
  return bad;
}
