import * as vscode from 'vscode';

import { COMMANDS } from '../commands/ids';
import type { Services } from '../services';
import { reporting } from '../ui';
import { type ExportCommandOptions, exportToTools } from './export-command';
import { type ImportCommandOptions, importFromTools } from './import-command';

/**
 * Import from and export to other agent tools' files (issue #15): two
 * commands, each also taking its answers as an argument so that
 * keybindings, other extensions and tests can run it without prompts.
 * Deliberately not language model tools: an import or export writes
 * without the review agents' writes get.
 */
export function registerInterop(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.importFromTools,
      reporting(services, vscode.l10n.t('Import from other tools'), (options?: ImportCommandOptions) =>
        importFromTools(services, options ?? {}),
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.exportToTools,
      reporting(services, vscode.l10n.t('Export to agent instructions'), (options?: ExportCommandOptions) =>
        exportToTools(services, options ?? {}),
      ),
    ),
  );
}
