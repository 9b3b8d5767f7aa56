import * as vscode from 'vscode';
import { throttled } from '../throttled';
import { parseEntityUri } from '../documents/uris';
import type { Services } from '../services';
import { CollectionsTree } from './collections-tree';
import { HistoryTree } from './history-tree';

export interface Views {
  collections: CollectionsTree;
  history: HistoryTree;
  /** What the Collections view says above its rows (why documents are missing in Restricted Mode). */
  collectionsMessage(): string | undefined;
}

/** Bursts of writes (a doc sync, an import) refresh the tree at most this often, not per entity. */
const REFRESH_DELAY_MS = 250;

export function registerViews(context: vscode.ExtensionContext, services: Services): Views {
  const collections = new CollectionsTree(services);
  const history = new HistoryTree(services);
  const collectionsView = vscode.window.createTreeView('workspaceMemory.collections', {
    treeDataProvider: collections,
    showCollapseAll: true,
  });
  const historyView = vscode.window.createTreeView('workspaceMemory.history', { treeDataProvider: history });

  history.view = historyView;
  // In Restricted Mode the view says why the workspace's documents are missing, above whatever it lists.
  const explainTrust = () => {
    collectionsView.message = vscode.workspace.isTrusted
      ? undefined
      : vscode.l10n.t('Restricted Mode: this workspace’s documents are not ingested until you trust it.');
  };
  explainTrust();
  const refresh = throttled(REFRESH_DELAY_MS, () => collections.refresh());
  context.subscriptions.push(
    collectionsView,
    historyView,
    vscode.workspace.onDidGrantWorkspaceTrust(explainTrust),
    collectionsView.onDidChangeSelection(({ selection }) => {
      const node = selection[0];
      if (node?.kind === 'entity') history.show(node.entity);
    }),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      const location = editor && parseEntityUri(editor.document.uri);
      if (location) history.show(location);
    }),
    services.onDidChangeStore((change) => {
      history.storeChanged(change.entityIds);
      refresh.request();
    }),
    refresh,
  );
  return { collections, history, collectionsMessage: () => collectionsView.message };
}
