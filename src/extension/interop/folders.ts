import * as vscode from 'vscode';

/**
 * The workspace folders an import reads and an export writes: those on this
 * machine's disk (the interop library reads and writes files by path).
 */
export function localFolders(): vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
}

/** Says that nothing can be read or written without a folder on disk. */
export function noFolder(): void {
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Open a folder on this machine first: importing from and exporting to other tools reads and writes its files.',
    ),
  );
}
