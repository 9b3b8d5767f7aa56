import * as fs from 'node:fs';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { WorkspaceFolder } from '../../core/anchors/workspace-paths';

/**
 * The workspace's folders on disk as citations name them: by the folder's
 * name, made unique (two folders may share one) and without a "/", which
 * separates the name from the path in a citation.
 */
export function citationFolders(folders: readonly vscode.WorkspaceFolder[]): WorkspaceFolder[] {
  const taken = new Set<string>();
  return (
    folders
      // A folder missing on disk cites nothing, and must not keep the store from opening.
      .filter(
        (folder) =>
          folder.uri.scheme === 'file' && fs.statSync(folder.uri.fsPath, { throwIfNoEntry: false })?.isDirectory(),
      )
      .map((folder) => {
        const base = folder.name.replace(/\//g, '-') || 'folder';
        let name = base;
        for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
        taken.add(name);
        return { name, path: folder.uri.fsPath };
      })
  );
}

/**
 * How a citation names a file of the workspace: relative to its folder with
 * `/` separators, led by the folder's name when the workspace has several.
 * Undefined for a file outside every folder (or not on disk).
 */
export function citedPathOf(uri: vscode.Uri): string | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder || uri.scheme !== 'file') return undefined;
  const all = vscode.workspace.workspaceFolders ?? [];
  const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
  if (!relative || relative.startsWith('..')) return undefined;
  if (all.length < 2) return relative;
  const named = citationFolders(all).find((candidate) => candidate.path === folder.uri.fsPath);
  return named ? `${named.name}/${relative}` : undefined;
}

/**
 * The workspace files someone is working on, as citations name them: the
 * active editor's, and the files a chat request references (`#file`).
 * Recall ranks memories citing them higher.
 */
export function workingFiles(references: readonly { value: unknown }[] = []): string[] {
  const uris = [
    vscode.window.activeTextEditor?.document.uri,
    ...references.map(({ value }) =>
      value instanceof vscode.Uri ? value : value instanceof vscode.Location ? value.uri : undefined,
    ),
  ];
  return [...new Set(uris.flatMap((uri) => (uri ? (citedPathOf(uri) ?? []) : [])))];
}
