import * as vscode from 'vscode';
import { sqliteAvailable } from './core/sqlite';

/**
 * The composition root. Each feature registers itself here through its own
 * `register…(context, deps)` function.
 */
export function activate(_context: vscode.ExtensionContext): void {
  if (!sqliteAvailable()) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'Workspace Memory needs a VS Code whose extension host has Node.js 22.13 or newer (for node:sqlite); this one runs Node.js {0}. Update VS Code to use Workspace Memory.',
        process.versions.node,
      ),
    );
    return;
  }
}

export function deactivate(): void {}
