import * as fs from 'node:fs';
import * as path from 'node:path';

import { isInside } from '../paths';
import type { SourceCollector } from './collector';
import type { ImportFormat } from './types';
import { Workspace } from './workspace';

/**
 * The formats whose files a tool keeps in the user's home rather than in the
 * repository: the VS Code memory tool's notes, Claude Code's auto memory
 * (~/.claude/projects/<project>/memory). The user points at them, so one
 * given outside the workspace is read there, confined to the folder chosen
 * (every other format's path must be inside the workspace).
 */
const MEMORY_FOLDER_FORMATS: ReadonlySet<ImportFormat> = new Set(['copilot-memory', 'claude-memory']);

/** Where an import reads: the workspace, or the memory folder the user chose, and the path in it. */
export interface ImportRoot {
  ws: Workspace;
  /** The path to locate in `ws`. */
  path: string;
  /** The chosen folder's real path when it is outside the workspace: what the files are named by. */
  outside?: string;
}

export function importRoot(
  format: ImportFormat,
  workspace: Workspace,
  given: string,
  signal?: AbortSignal,
): ImportRoot {
  if (!MEMORY_FOLDER_FORMATS.has(format) || typeof given !== 'string' || given === '')
    return { ws: workspace, path: given };
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(workspace.root, given));
  } catch {
    // Nothing there: the workspace's own lookup says so, with its message.
    return { ws: workspace, path: given };
  }
  if (isInside(workspace.root, real)) return { ws: workspace, path: given };
  const folder = fs.statSync(real).isDirectory() ? real : path.dirname(real);
  const ws = Workspace.open(folder, signal);
  return { ws, path: folder === real ? '' : path.basename(real), outside: ws.root };
}

/**
 * Names what was read in a memory folder outside the workspace by its full
 * path: its items' ids and provenance say which folder they came from, so
 * two projects' MEMORY.md never take each other's place.
 */
export function nameByFolder(sources: SourceCollector, folder: string): void {
  const full = (file: string) => path.posix.join(folder.replace(/\\/g, '/'), file);
  for (const item of sources.items) {
    item.path = full(item.path);
    item.group = full(item.group);
  }
  for (const skip of sources.skipped) skip.path = full(skip.path);
  for (const problem of sources.problems) problem.path = full(problem.path);
  sources.files.splice(0, sources.files.length, ...sources.files.map(full));
  const complete = [...sources.complete].map(full);
  sources.complete.clear();
  for (const file of complete) sources.complete.add(file);
}
