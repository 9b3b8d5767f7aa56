import * as vscode from 'vscode';

import { COMMANDS } from '../commands/ids';
import { SECTION } from '../config';
import type { Services } from '../services';
import { DocSyncController } from './controller';
import { DocSyncModel } from './state';
import type { DocSyncState } from './status';

export type { DocSyncState, DocSyncStatus } from './status';

/**
 * Settings whose change means syncing differently: into another store or
 * agent, or other files; or that reopen the store (a new user is the author
 * of its commits), which cuts a running sync short.
 */
const AFFECTING = [
  `${SECTION}.docSync.enabled`,
  `${SECTION}.docSync.include`,
  `${SECTION}.docSync.exclude`,
  `${SECTION}.agentId`,
  `${SECTION}.storePath`,
  `${SECTION}.userId`,
  'files.exclude',
];

/**
 * Keeps the workspace's documents ingested as knowledge (of the agent in the
 * `agentId` setting): a full sync in the background after start-up, then a
 * file watcher's batched changes, and the Sync Documents command. Nothing is
 * read in Restricted Mode until the workspace is trusted.
 */
export function registerDocSync(context: vscode.ExtensionContext, services: Services): DocSyncState {
  const model = new DocSyncModel();
  const controller = new DocSyncController(services, model);
  context.subscriptions.push(
    model,
    controller,
    vscode.commands.registerCommand(COMMANDS.syncDocs, () => controller.syncNow()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => controller.restart()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => controller.restart()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (AFFECTING.some((section) => event.affectsConfiguration(section))) controller.restart();
    }),
    // A snapshot restore or an import replaces the knowledge too: bring it back in step with the disk.
    services.onDidChangeStore((change) => {
      if (change.origin === 'local' && change.replaced) controller.restart();
    }),
  );
  controller.restart();
  return model;
}
