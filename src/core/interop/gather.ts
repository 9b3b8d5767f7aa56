import { MemoryError } from '../errors';
import { SourceCollector } from './collector';
import { realOf } from './format-handler';
import { FORMAT_HANDLERS } from './registry';
import type { ImportFormat, ImportProgress } from './types';
import type { EntryKind, Workspace } from './workspace';

/**
 * Reads what a path holds in one format: a file given by name must be of
 * the format (IMPORT_INVALID otherwise: a wrong file is a mistake to point
 * out, not an empty import); in a folder, each of the format's files is
 * read, and one that cannot be is a problem of the import, not its end.
 */
export async function gather(
  ws: Workspace,
  format: ImportFormat,
  target: { path: string; kind: EntryKind },
  onProgress?: (progress: ImportProgress) => void,
): Promise<SourceCollector> {
  const handler = FORMAT_HANDLERS[format];
  const into = new SourceCollector();
  if (target.kind === 'file') {
    onProgress?.({ phase: 'reading', done: 0, total: 1 });
    handler.collect(ws, target.path, into);
    onProgress?.({ phase: 'reading', done: 1, total: 1 });
    return into;
  }
  const files = await handler.locate(ws, target.path);
  if (files.length === 0) {
    throw new MemoryError(
      'NOT_FOUND',
      `Nothing to import in ${target.path === '' ? 'the workspace' : target.path}: ${handler.label} keeps ${handler.looksFor}, and there are none there.`,
    );
  }
  for (const [index, file] of files.entries()) {
    await ws.pause();
    onProgress?.({ phase: 'reading', done: index, total: files.length });
    // Read already: imported by a CLAUDE.md read before it, or the target of a link read under another name.
    if (into.files.includes(realOf(ws, file))) continue;
    try {
      handler.collect(ws, file, into);
    } catch (error) {
      if (!(error instanceof MemoryError) || error.code === 'CANCELLED') throw error;
      into.problem(file, error.message);
    }
  }
  onProgress?.({ phase: 'reading', done: files.length, total: files.length });
  return into;
}
