import * as vscode from 'vscode';

import { sqliteAvailable } from './core/sqlite';
import { registerCitationLenses } from './extension/anchors/lens';
import { registerStaleReview } from './extension/anchors/review-stale';
import { registerChatParticipant } from './extension/chat/participant';
import { registerEntityCommands } from './extension/commands/entity-commands';
import { registerHistoryCommands } from './extension/commands/history-commands';
import { registerReviewCommands } from './extension/commands/review-commands';
import { registerSearchCommands } from './extension/commands/search-commands';
import { registerSecretCommands } from './extension/commands/secret-commands';
import { registerStoreCommands } from './extension/commands/store-commands';
import { registerDocSync } from './extension/docsync';
import type { DocSyncState } from './extension/docsync/status';
import { registerMemoryFileSystem } from './extension/documents/memory-fs';
import { registerReports } from './extension/documents/reports';
import { Features, requireFeature } from './extension/features';
import { registerInterop } from './extension/interop';
import { mcpServerDefinition, registerMcpServer } from './extension/mcp';
import { type Services, StoreService } from './extension/services';
import { registerStatusBar } from './extension/status/status-bar';
import type { StoreClient } from './extension/store/client';
import { registerTeam } from './extension/team';
import { registerTools } from './extension/tools';
import { registerUnavailable } from './extension/unavailable';
import { registerViews, type Views } from './extension/views';

/** What `activate` returns: the extension's services and views, for the integration tests and other extensions. */
export interface WorkspaceMemoryApi {
  services: Services;
  /** Undefined when the views failed to register (see failedFeatures). */
  views: Views | undefined;
  /** Undefined when document sync failed to register (see failedFeatures). */
  docSync: DocSyncState | undefined;
  /** The features that failed to register: each was logged and shown, and the others work. */
  failedFeatures: readonly string[];
  /** The store worker's client, for the integration tests and benchmarks (start-up timings, crashes). */
  storeClient: () => Promise<StoreClient>;
  /** The MCP server VS Code is offered for this workspace (command, arguments, environment). */
  mcpServer: () => vscode.McpStdioServerDefinition;
  startup: Startup;
}

/** How start-up went, for the log and the benchmarks. */
export interface Startup {
  /** Milliseconds `activate` itself took (registrations only). */
  activateMs: number;
  /** Resolves with the milliseconds from activation to a store that answers (opened in its worker, first query answered). */
  ready: Promise<number>;
  /** The extension host's resident memory when activation began, in bytes. */
  rssAtActivation: number;
}

let service: StoreService | undefined;

/**
 * The composition root. Each feature registers itself here through its own
 * `register…(context, services)` function; every registration lands in
 * `context.subscriptions`. The store opens in its own worker thread, started
 * first so that it boots while the features register; activation itself
 * only registers.
 */
export function activate(context: vscode.ExtensionContext): WorkspaceMemoryApi | undefined {
  const started = performance.now();
  const rssAtActivation = process.memoryUsage.rss();
  if (!sqliteAvailable()) {
    const reason = vscode.l10n.t(
      'Workspace Memory needs a VS Code whose extension host has Node.js 22.13 or newer (for node:sqlite); this one runs Node.js {0}. Update VS Code to use Workspace Memory.',
      process.versions.node,
    );
    void vscode.window.showErrorMessage(reason);
    registerUnavailable(context, reason);
    return undefined;
  }
  const log = vscode.window.createOutputChannel(vscode.l10n.t('Workspace Memory'), { log: true });
  service = new StoreService(context, log);
  context.subscriptions.push(log);
  // The store's thread boots on its own core while the features below register,
  // so the first search does not wait for it.
  let activateMs = 0;
  const ready = service
    .memory()
    .then((memory) => memory.dataVersion())
    .then(() => {
      const readyMs = performance.now() - started;
      log.info(`Activated in ${activateMs.toFixed(1)} ms; store ready after ${readyMs.toFixed(1)} ms`);
      return readyMs;
    });
  // An opening failure has been shown already (an error is shown once); anything else is shown here.
  ready.catch((error: unknown) => service?.reportError(vscode.l10n.t('Opening the memory store'), error));

  // Each feature registers on its own: one that fails is logged and shown,
  // and the rest (chat, tools, commands, views) still work.
  const store = service;
  const features = new Features((feature, error) => {
    log.error(
      `The ${feature} failed to register: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    store.reportError(vscode.l10n.t('Starting the {0}', feature), error);
  });
  features.register('memory documents', () => registerMemoryFileSystem(context, store));
  features.register('reports', () => registerReports(context));
  const views = features.register('views', () => registerViews(context, store));
  features.register('entity commands', () => registerEntityCommands(context, store, requireFeature(views, 'views')));
  features.register('stale memory review', () => registerStaleReview(context, store, requireFeature(views, 'views')));
  features.register('team memory', () => registerTeam(context, store, requireFeature(views, 'views')));
  features.register('citation lenses', () => registerCitationLenses(context, requireFeature(views, 'views')));
  features.register('history commands', () => registerHistoryCommands(context, store, requireFeature(views, 'views')));
  features.register('review commands', () => registerReviewCommands(context, store));
  features.register('secret commands', () => registerSecretCommands(context, store));
  features.register('search commands', () => registerSearchCommands(context, store));
  features.register('store commands', () => registerStoreCommands(context, store));
  features.register('import and export commands', () => registerInterop(context, store));
  features.register('language model tools', () => registerTools(context, store));
  features.register('MCP server definition', () => registerMcpServer(context, store));
  features.register('chat participant', () => registerChatParticipant(context, store));
  const docSync = features.register('document sync', () => registerDocSync(context, store));
  features.register('status bar', () => registerStatusBar(context, store, requireFeature(docSync, 'document sync')));
  activateMs = performance.now() - started;
  return {
    services: store,
    views,
    docSync,
    failedFeatures: features.failed,
    storeClient: () => store.client(),
    mcpServer: () => mcpServerDefinition(context, store),
    startup: { activateMs, ready, rssAtActivation },
  };
}

/** Closes the store (checkpointing its write-ahead log) before the host goes away. */
export async function deactivate(): Promise<void> {
  await service?.dispose();
  service = undefined;
}
