import * as vscode from 'vscode';

/*
 * File changes anywhere in the workspace (a save, a write by another
 * program, a branch switch's thousands), from one watcher shared by the
 * features that look at them: the citation check, the team folder.
 */

let shared: { watcher: vscode.FileSystemWatcher; listeners: Set<(uri: vscode.Uri) => void> } | undefined;

/** Calls `listener` for every file created, changed or deleted in the workspace, until disposed. */
export function onWorkspaceFileChange(listener: (uri: vscode.Uri) => void): vscode.Disposable {
  if (!shared) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const listeners = new Set<(uri: vscode.Uri) => void>();
    const tell = (uri: vscode.Uri) => {
      for (const each of listeners) each(uri);
    };
    watcher.onDidChange(tell);
    watcher.onDidCreate(tell);
    watcher.onDidDelete(tell);
    shared = { watcher, listeners };
  }
  const current = shared;
  current.listeners.add(listener);
  return new vscode.Disposable(() => {
    current.listeners.delete(listener);
    // The last one out closes the watcher: its events, and the events' listeners, go with it.
    if (current.listeners.size === 0 && shared === current) {
      current.watcher.dispose();
      shared = undefined;
    }
  });
}
