import * as vscode from 'vscode';
import { sqliteAvailable } from './core/sqlite';
import { registerEntityCommands } from './extension/commands/entity-commands';
import { registerHistoryCommands } from './extension/commands/history-commands';
import { registerSearchCommands } from './extension/commands/search-commands';
import { registerStoreCommands } from './extension/commands/store-commands';
import { registerMemoryFileSystem } from './extension/documents/memory-fs';
import { type Services, StoreService } from './extension/services';
import { registerStatusBar } from './extension/status/status-bar';
import { registerTools } from './extension/tools';
import { registerMcpServer } from './extension/mcp';
import { type Views, registerViews } from './extension/views';

/** What `activate` returns: the extension's services and views, for the integration tests and other extensions. */
export interface WorkspaceMemoryApi {
  services: Services;
  views: Views;
}

let service: StoreService | undefined;
// TEMPORARY until doc sync lands (helper).
const PENDING_DOC_SYNC = { status: { state: 'starting' as const }, onDidChange: () => ({ dispose() {} }) };

/**
 * The composition root. Each feature registers itself here through its own
 * `register…(context, services)` function; every registration lands in
 * `context.subscriptions`. Nothing here opens the store: that happens in its
 * worker on first use, so activation stays cheap.
 */
export function activate(context: vscode.ExtensionContext): WorkspaceMemoryApi | undefined {
  if (!sqliteAvailable()) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'Workspace Memory needs a VS Code whose extension host has Node.js 22.13 or newer (for node:sqlite); this one runs Node.js {0}. Update VS Code to use Workspace Memory.',
        process.versions.node,
      ),
    );
    return undefined;
  }
  const log = vscode.window.createOutputChannel(vscode.l10n.t('Workspace Memory'), { log: true });
  service = new StoreService(context, log);
  context.subscriptions.push(log);

  registerMemoryFileSystem(context, service);
  const views = registerViews(context, service);
  registerEntityCommands(context, service, views);
  registerHistoryCommands(context, service, views);
  registerSearchCommands(context, service);
  registerStoreCommands(context, service);
  registerTools(context, service);
  registerMcpServer(context, service);
  registerStatusBar(context, service, PENDING_DOC_SYNC);
  return { services: service, views };
}

/** Closes the store (checkpointing its write-ahead log) before the host goes away. */
export async function deactivate(): Promise<void> {
  await service?.dispose();
  service = undefined;
}
