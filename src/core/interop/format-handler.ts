import * as path from 'node:path';

import { MemoryError } from '../errors';
import type { SourceCollector } from './collector';
import type { Workspace } from './workspace';

/** What each format's reader offers the import and detection. */
export interface FormatHandler {
  /** The tool, for people: "Claude Code". */
  label: string;
  /** Where a folder import looks, for the message when nothing is found there. */
  looksFor: string;
  /** Whether detection looks for it in a workspace (a folder the user must point at cannot be found). */
  detectable: boolean;
  /** The files of this format in a folder (workspace-relative, '' for the workspace folder), sorted. */
  locate(ws: Workspace, folder: string): Promise<string[]>;
  /**
   * Reads one file into `into`. A file that is not of this format is refused
   * with IMPORT_INVALID saying what the format's files are; one that is, but
   * has problems, gives them to `into` instead.
   */
  collect(ws: Workspace, file: string, into: SourceCollector): void;
}

/** `folder/name`, for workspace-relative paths. */
export function join(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

export const baseName = (file: string): string => path.posix.basename(file);

/** Whether a workspace-relative path is `folder` or inside it. */
export function isUnder(folder: string, file: string): boolean {
  return folder === '' || file === folder || file.startsWith(`${folder}/`);
}

/**
 * A format's files in `folder`: those its tool keeps in fixed places (found
 * by `places` from a base folder: the one given, and the workspace's, so
 * that `.github` itself finds `.github/instructions`), plus `walked` (found
 * anywhere), all kept only when they are in `folder`.
 */
export function filesIn(
  ws: Workspace,
  folder: string,
  places: (base: string) => string[],
  walked: readonly string[] = [],
): string[] {
  const bases = folder === '' ? [''] : [folder, ''];
  const found = [...bases.flatMap(places), ...walked].filter((file) => isUnder(folder, file));
  return [...new Set(found)].sort();
}

/** The file at `relative` when there is one (links followed inside the workspace only). */
export function fileAt(ws: Workspace, relative: string): string[] {
  return ws.kindOf(relative) === 'file' ? [relative] : [];
}

/** The refusal for a file of another kind than the format's. */
export function notThisFormat(file: string, handler: Pick<FormatHandler, 'label' | 'looksFor'>): MemoryError {
  return new MemoryError(
    'IMPORT_INVALID',
    `${file} is not a ${handler.label} file: the format reads ${handler.looksFor}.`,
  );
}

/** The folder holding a tool folder: `packages/api` for `packages/api/.cursor/rules/x.mdc`. */
export function ownerOf(file: string, toolFolder: string): string | undefined {
  const parts = file.split('/');
  const at = parts.lastIndexOf(toolFolder);
  return at === -1 ? undefined : parts.slice(0, at).join('/');
}

/**
 * A located file's real path, workspace-relative: items are named by it, so
 * a CLAUDE.md that is a link to AGENTS.md gives AGENTS.md's items, once.
 * Formats still judge a file by the name it was found under.
 */
export function realOf(ws: Workspace, file: string): string {
  return ws.realRelative(file) ?? file;
}

export const isMarkdown = (file: string): boolean => /\.(md|markdown)$/i.test(file);
