import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { FolderPlan } from './settings';

/**
 * Watches one folder for changes to its documents: one watcher per include
 * glob (so events already match the globs), plus one for creations and
 * deletions of anything, because moving, deleting or restoring a folder may
 * report the folder alone, not the documents inside it.
 */
export function watchFolder(plan: FolderPlan, onChange: (relative: string) => void): vscode.Disposable {
  const disposables: vscode.Disposable[] = [];
  const report = (uri: vscode.Uri, fromDocumentGlob: boolean) => {
    const relative = path.relative(plan.root, uri.fsPath);
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return;
    const posix = relative.split(path.sep).join('/');
    if (!neverSynced(posix, !fromDocumentGlob)) onChange(posix);
  };
  // Outside the globs only folders matter. A deleted path can no longer be
  // looked at, so each is passed on (syncing a path that held no documents
  // costs nothing); a created one is passed on if it is a folder (`docs.old`
  // moved back in, say), which takes a stat off the host's thread.
  const created = (uri: vscode.Uri) => {
    if (path.extname(uri.fsPath) === '') return report(uri, false);
    void fs.stat(uri.fsPath).then(
      (stats) => stats.isDirectory() && report(uri, false),
      () => undefined,
    );
  };
  for (const glob of plan.include) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(plan.folder, glob));
    disposables.push(
      watcher,
      watcher.onDidCreate((uri) => report(uri, true)),
      watcher.onDidChange((uri) => report(uri, true)),
      watcher.onDidDelete((uri) => report(uri, true)),
    );
  }
  const folders = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(plan.folder, '**'), false, true);
  disposables.push(
    folders,
    folders.onDidCreate(created),
    folders.onDidDelete((uri) => report(uri, false)),
  );
  return vscode.Disposable.from(...disposables);
}

/**
 * Paths the loader skips whatever the settings say (inside node_modules or a
 * hidden folder such as .git): dropped here so that an npm install or a
 * commit does not wake doc sync thousands of times for nothing. The last
 * name counts only if it may be a folder itself (a hidden file is loaded).
 */
function neverSynced(relative: string, lastMayBeFolder: boolean): boolean {
  const names = relative.split('/');
  const folders = lastMayBeFolder ? names : names.slice(0, -1);
  return folders.some((name) => name === 'node_modules' || name.startsWith('.'));
}
