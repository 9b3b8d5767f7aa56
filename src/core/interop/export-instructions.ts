import * as path from 'node:path';

import { MemoryError } from '../errors';
import { assertExportable, MARKDOWN_FILE, readForRewrite, replaceFile } from './export-file';
import type { FormatHandler } from './format-handler';
import { claude } from './formats-claude';
import { copilot } from './formats-copilot';
import { findBlock, renderBlock } from './generated-block';
import { type ExportSelection, type ExportSource, idsFromFile, selectEntries } from './select';
import { Workspace } from './workspace';

/**
 * Gives memories and skills back to other agents in the files they read:
 * AGENTS.md, CLAUDE.md or Copilot's instructions, as a generated block (see
 * generated-block.ts) that an export writes, and a later one replaces; the
 * rest of the file is never touched. A block edited by hand, or markers that
 * do not make one block, are refused (INVALID_INPUT) and nothing is written.
 */

export const EXPORT_TARGETS = {
  'agents-md': { file: 'AGENTS.md', reader: copilot },
  'claude-md': { file: 'CLAUDE.md', reader: claude },
  'copilot-instructions': { file: '.github/copilot-instructions.md', reader: copilot },
} as const satisfies Record<string, { file: string; reader: FormatHandler }>;
export type ExportTarget = keyof typeof EXPORT_TARGETS;

export interface InstructionsExportOptions {
  target: ExportTarget;
  workspaceRoot: string;
  /** Another file of the target's kind than its usual one (workspace-relative): a nested `packages/api/AGENTS.md`. */
  file?: string;
  select: ExportSelection;
  /** The block's heading. Default "Workspace memory". */
  title?: string;
  /** Say what would be written, and write nothing. */
  dryRun?: boolean;
}

export interface InstructionsExportReport {
  /** Workspace-relative: the file written (a link's target, when the name was a link). */
  file: string;
  /** `unchanged`: the block already says this, and the file was left alone. */
  action: 'created' | 'updated' | 'unchanged';
  dryRun: boolean;
  ids: string[];
  /** The block as written (or, in a dry run, as it would be), markers included: what a preview shows. */
  content: string;
}

export async function exportToInstructions(
  source: ExportSource,
  options: InstructionsExportOptions,
): Promise<InstructionsExportReport> {
  const target = EXPORT_TARGETS[options?.target];
  if (!target) {
    throw new MemoryError(
      'INVALID_INPUT',
      `Unknown export target "${String(options?.target)}"; the targets are ${Object.keys(EXPORT_TARGETS).join(', ')}.`,
    );
  }
  const ws = Workspace.open(options.workspaceRoot);
  const named = path.posix.normalize((options.file ?? target.file).replace(/\\/g, '/'));
  const file = ws.writable(named);
  assertExportable([named, file.relative], options.target, MARKDOWN_FILE);
  const text = readForRewrite(file.absolute, file.relative);
  const lines = text.split('\n');
  const found = findBlock(lines);
  if (found.kind === 'broken') {
    throw new MemoryError(
      'EXPORT_CONFLICT',
      `${file.relative} ${found.message}: it was not written. Put the markers right (one begin, one end) or remove them, then export again.`,
    );
  }
  if (found.kind === 'block' && found.edited) {
    throw new MemoryError(
      'EXPORT_CONFLICT',
      `The Workspace Memory block in ${file.relative} (lines ${found.begin + 1}-${found.end + 1}) was edited by hand since it was written: it was not replaced, so the edit is not lost. Move the edit out of the block (or into the memories), delete the block, and export again.`,
    );
  }
  // What came from this very file (imported from it before) is in it already.
  const exclude = file.exists ? idsFromFile(ws, target.reader, named, options.select) : new Set<string>();
  const entries = await selectEntries(source, options.select, exclude);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = renderBlock(entries, options.title ?? 'Workspace memory', eol);
  let next: string;
  if (found.kind === 'block') {
    const start = offsetOfLine(lines, found.begin);
    const end = Math.min(offsetOfLine(lines, found.end + 1), text.length);
    next = text.slice(0, start) + block + text.slice(end);
  } else {
    // The file as it was, then a blank line and the block: every byte of it stays where it is.
    next = text === '' ? block : `${text}${text.endsWith('\n') ? '' : eol}${eol}${block}`;
  }
  const action = next === text ? 'unchanged' : found.kind === 'block' ? 'updated' : 'created';
  const dryRun = options.dryRun === true;
  if (action !== 'unchanged' && !dryRun) replaceFile(file.absolute, file.relative, text, next);
  return { file: file.relative, action, dryRun, ids: entries.map((entry) => entry.id), content: block };
}

/** The offset where line `index` of `lines` (a text split at '\n') starts; past the last line, one past the end. */
function offsetOfLine(lines: readonly string[], index: number): number {
  let offset = 0;
  for (let line = 0; line < index; line++) offset += lines[line]!.length + 1;
  return offset;
}
