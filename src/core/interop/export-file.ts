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
