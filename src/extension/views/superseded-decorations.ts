import * as vscode from 'vscode';

import { SCHEME } from '../documents/uris';

/**
 * VS Code's stable API cannot strike a tree row's label through
 * (TreeItemLabel's `strikethrough` is a proposed API), but a file
 * decoration's colour reaches the label of every row whose resourceUri it
 * decorates: rows of retired memories get a marked URI, dimmed here. The
 * mark keeps the entity's documents, opened from anywhere, undecorated.
 */
const MARK = 'superseded';

/** `uri`, marked for a dimmed label. */
export function dimmed(uri: vscode.Uri): vscode.Uri {
  return uri.with({ query: MARK });
}

export function registerSupersededDecorations(): vscode.Disposable {
  const decoration = new vscode.FileDecoration(undefined, undefined, new vscode.ThemeColor('disabledForeground'));
  return vscode.window.registerFileDecorationProvider({
    provideFileDecoration: (uri) => (uri.scheme === SCHEME && uri.query === MARK ? decoration : undefined),
  });
}
