import * as vscode from 'vscode';

import { citedPathOf } from '../anchors/folders';
import { StaleMemories } from '../anchors/stale';
import { COMMANDS } from '../commands/ids';
import { SECTION } from '../config';
import { parseEntityUri } from '../documents/uris';
import type { Services } from '../services';
import { throttled } from '../throttled';
import { pendingCount } from '../trust/pending';
import { ChatModelAvailability } from './chat-model';
import { collectionsMessage } from './collections-message';
import { type CollectionNode, CollectionsTree } from './collections-tree';
import { HistoryTree } from './history-tree';
import { registerSnapshotsView, type SnapshotsTree } from './snapshots-tree';
import { registerSupersededDecorations } from './superseded-decorations';

export interface Views {
  collections: CollectionsTree;
  /** The Collections tree view itself (to reveal a row). */
  collectionsView: vscode.TreeView<CollectionNode>;
  history: HistoryTree;
  snapshots: SnapshotsTree;
  /** Whether a chat language model is available (undefined until VS Code has answered). */
  chatModel: ChatModelAvailability;
  /** What the Collections view says above its rows (Restricted Mode, no chat model). */
  collectionsMessage(): string | undefined;
  /** The memories and skills whose cited code changed (the Stale group). */
  stale: StaleMemories;
}

/** Bursts of writes (a doc sync, an import) refresh the tree at most this often, not per entity. */
const REFRESH_DELAY_MS = 250;

/** The walkthrough's id as VS Code knows it: `publisher.name#id` (see contributes.walkthroughs). */
export const WALKTHROUGH = 'workspace-memory.workspace-memory#workspaceMemory.gettingStarted';

export function registerViews(context: vscode.ExtensionContext, services: Services): Views {
  const stale = new StaleMemories(services);
  let shownThisFile = false;
  const collections = new CollectionsTree(services, stale);
  const history = new HistoryTree(services);
  const collectionsView = vscode.window.createTreeView('workspaceMemory.collections', {
    treeDataProvider: collections,
    showCollapseAll: true,
  });
  const historyView = vscode.window.createTreeView('workspaceMemory.history', { treeDataProvider: history });
  const snapshots = registerSnapshotsView(context, services);
  const chatModel = new ChatModelAvailability();

  history.view = historyView;
  // The welcome text for Restricted Mode goes by this key, not VS Code's `isWorkspaceTrusted`: that
  // one is unset (so `!isWorkspaceTrusted` holds) until the workbench's trust service has started,
  // which on a first open came after the view showed, so a trusted workspace read "Restricted Mode".
  // The extension host knows the answer when it runs this.
  const explain = () => {
    void vscode.commands.executeCommand('setContext', 'workspaceMemory.restricted', !vscode.workspace.isTrusted);
    collectionsView.message = collectionsMessage({
      trusted: vscode.workspace.isTrusted,
      chatModel: chatModel.available,
    });
  };
  explain();
  // The badge (on the Memory icon too) counts the writes waiting for review, also while the view is closed.
  const countPending = async () => {
    try {
      const count = await pendingCount(await services.memory(), services.scope().agentId);
      collectionsView.badge =
        count > 0
          ? {
              value: count,
              tooltip:
                count === 1
                  ? vscode.l10n.t('1 write waits for your review')
                  : vscode.l10n.t('{0} writes wait for your review', count),
            }
          : undefined;
      await vscode.commands.executeCommand('setContext', 'workspaceMemory.pendingReview', count > 0);
    } catch (error) {
      // The view says the store is unavailable; the badge just goes.
      collectionsView.badge = undefined;
      services.log.warn(`Counting the writes waiting for review: ${(error as Error).message}`);
    }
  };
  void countPending();
  const refresh = throttled(REFRESH_DELAY_MS, () => {
    collections.refresh();
    void countPending();
  });
  context.subscriptions.push(
    stale,
    stale.onDidChange(() => collections.refresh()),
    collectionsView,
    historyView,
    chatModel,
    registerSupersededDecorations(),
    chatModel.onDidChange(explain),
    vscode.workspace.onDidGrantWorkspaceTrust(explain),
    vscode.commands.registerCommand(COMMANDS.openWalkthrough, () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
    ),
    collectionsView.onDidChangeSelection(({ selection }) => {
      const node = selection[0];
      if (node && 'entity' in node) {
        history.show(node.entity);
      }
    }),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      const location = editor && parseEntityUri(editor.document.uri);
      if (location) history.show(location);
      // The This File group follows the active editor: looked at again when the file is cited, or was.
      const path = editor && citedPathOf(editor.document.uri);
      if ((path !== undefined && stale.citing(path).length > 0) || shownThisFile) refresh.request();
      shownThisFile = path !== undefined && stale.citing(path).length > 0;
    }),
    services.onDidChangeStore((change) => {
      history.storeChanged(change.entityIds);
      refresh.request();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.review.unusedDays`)) refresh.request();
    }),
    refresh,
  );
  return {
    collections,
    collectionsView,
    history,
    snapshots: snapshots.tree,
    chatModel,
    collectionsMessage: () => collectionsView.message,
    stale,
  };
}
