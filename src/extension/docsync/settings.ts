import * as vscode from 'vscode';

import { SECTION, wholeSetting } from '../config';
import { extensionsOf, ignorePatterns } from './globs';

const DEFAULT_INCLUDE = ['**/*.{md,mdx,markdown,txt,rst,adoc}'];
const DEFAULT_DEBOUNCE_MS = 500;

/** One workspace folder as doc sync will treat it. */
export interface FolderPlan {
  folder: vscode.WorkspaceFolder;
  /** Absolute path on disk. */
  root: string;
  /** The include globs, for the watchers. */
  include: string[];
  /** The options every rag call on this folder takes. */
  options: { extensions: string[]; extraIgnore: string[]; sourcePrefix?: string };
  /** Include globs the loader cannot honour on a full sync (no extension to go by). */
  unmapped: string[];
}

export interface WorkspacePlan {
  /** Folders to sync: on disk, with doc sync enabled. */
  active: FolderPlan[];
  /** Folders on disk whose doc sync is turned off. */
  disabled: vscode.WorkspaceFolder[];
  /** Folders of other schemes (remote, virtual): the loader reads the local disk only. */
  unsupported: vscode.WorkspaceFolder[];
  /**
   * With 2+ folders on disk, every such folder's source prefix, enabled or
   * not: documents under none of them belong to no folder any more.
   * Undefined with one folder, whose documents carry no prefix.
   */
  prefixes: string[] | undefined;
}

/** The workspace's folders, each with its (resource-scoped) doc sync settings. */
export function planWorkspace(folders: readonly vscode.WorkspaceFolder[]): WorkspacePlan {
  const onDisk = folders.filter((folder) => folder.uri.scheme === 'file');
  const prefixes = onDisk.length > 1 ? prefixesOf(onDisk) : undefined;
  const plan: WorkspacePlan = {
    active: [],
    disabled: [],
    unsupported: folders.filter((folder) => folder.uri.scheme !== 'file'),
    prefixes,
  };
  onDisk.forEach((folder, index) => {
    const config = vscode.workspace.getConfiguration(`${SECTION}.docSync`, folder.uri);
    if (!config.get<boolean>('enabled', true)) {
      plan.disabled.push(folder);
      return;
    }
    const include = stringList(config.get('include'), DEFAULT_INCLUDE);
    const { extensions, unmapped } = extensionsOf(include);
    const filesExclude = vscode.workspace.getConfiguration('files', folder.uri).get<Record<string, unknown>>('exclude');
    const extraIgnore = ignorePatterns(stringList(config.get('exclude'), []), filesExclude ?? {});
    const sourcePrefix = prefixes?.[index];
    plan.active.push({
      folder,
      root: folder.uri.fsPath,
      include,
      options: sourcePrefix ? { extensions, extraIgnore, sourcePrefix } : { extensions, extraIgnore },
      unmapped,
    });
  });
  return plan;
}

/** How long the watcher waits for more changes before syncing them. */
export function debounceMs(): number {
  return wholeSetting('docSync.debounceMs', DEFAULT_DEBOUNCE_MS, 50, 60_000);
}

/** Folder names, made unique (two folders may share a name) and usable as a path segment. */
function prefixesOf(folders: readonly vscode.WorkspaceFolder[]): string[] {
  const used = new Set<string>();
  return folders.map((folder) => {
    const base = folder.name.replace(/[/\\]/g, '-').trim() || 'folder';
    let name = base;
    for (let n = 2; used.has(name) || name === '.' || name === '..'; n++) name = `${base}-${n}`;
    used.add(name);
    return name;
  });
}

function stringList(value: unknown, fallback: string[]): string[] {
  if (!Array.isArray(value)) return fallback;
  return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '');
}
