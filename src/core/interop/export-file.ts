import * as fs from 'node:fs';
import * as path from 'node:path';

import { writeFileAtomicSync } from '../atomic-file';
import { readBoundedSync } from '../bounded-read';
import { MemoryError } from '../errors';
import { formatBytes, ioMessage } from '../rag/loader-util';
import { MAX_SOURCE_BYTES } from './workspace';

/**
 * Reading and writing a file an export rewrites in part: the text is the
 * file's bytes exactly (strict UTF-8, a BOM kept), so what the export does
 * not replace is written back byte for byte; and it is written atomically,
 * only if nobody changed the file since it was read.
 */

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Folders an export never writes in: git's own files, and this store's. */
const NOT_WRITTEN_IN = new Set(['.git', '.workspace-memory']);

/** What files a target writes: Markdown for a block, JSON lines for a graph. */
export const MARKDOWN_FILE = { pattern: /\.(md|mdc|markdown)$/i, kind: 'a Markdown file (.md, .mdc, .markdown)' };
export const GRAPH_FILE = { pattern: /\.jsonl?$/i, kind: 'a JSON Lines file (.jsonl, .json)' };

/**
 * Refuses (INVALID_INPUT) a file an export must not write, by the name given
 * and the file it leads to: one of another kind (a block of Markdown in
 * package.json or .git/config would break it), or one in .git or the store.
 */
export function assertExportable(
  names: readonly string[],
  target: string,
  accepted: { pattern: RegExp; kind: string },
): void {
  for (const name of names) {
    const folder = name.split('/').find((part) => NOT_WRITTEN_IN.has(part));
    if (folder !== undefined) {
      throw new MemoryError('INVALID_INPUT', `${name} is in ${folder}/: an export never writes there.`);
    }
    if (!accepted.pattern.test(name)) {
      throw new MemoryError(
        'INVALID_INPUT',
        `${name} is not ${accepted.kind}: ${target} writes only such a file, so that no other kind is damaged.`,
      );
    }
  }
}

/** The file's text, '' when it does not exist yet. INVALID_INPUT for one that is too big or not UTF-8. */
export function readForRewrite(file: string, shown: string): string {
  let read;
  try {
    read = readBoundedSync(file, MAX_SOURCE_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new MemoryError('INVALID_INPUT', `Cannot read ${shown}: ${ioMessage(error)}.`, { cause: error });
  }
  if (read.kind === 'not-a-file') throw new MemoryError('INVALID_INPUT', `${shown} is not a file.`);
  if (read.kind === 'too-large') {
    throw new MemoryError('INVALID_INPUT', `${shown} is ${formatBytes(read.size)}: too big to be rewritten in part.`);
  }
  try {
    return STRICT_UTF8.decode(read.bytes);
  } catch {
    throw new MemoryError(
      'EXPORT_CONFLICT',
      `${shown} is not UTF-8 text: it was not written, so that none of it is lost.`,
    );
  }
}

/**
 * Writes `next` over `file` if it still holds `original` (a person saving it
 * meanwhile would otherwise lose their edit), creating its folder if needed.
 */
export function replaceFile(file: string, shown: string, original: string, next: string): void {
  if (readForRewrite(file, shown) !== original) {
    throw new MemoryError(
      'EXPORT_CONFLICT',
      `${shown} changed while the export ran: it was not written. Export again.`,
    );
  }
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomicSync(file, next);
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', `Cannot write ${shown}: ${ioMessage(error)}.`, { cause: error });
  }
}
