import * as vscode from 'vscode';

import type { SnapshotInfo } from '../../core/snapshots/manifests';
import { COMMANDS } from '../commands/ids';
import type { Services } from '../services';
import { formatBytes } from './format-bytes';
import { relativeTime, shortTime } from './labels';

export interface SnapshotNode {
  kind: 'snapshot';
  snapshot: SnapshotInfo;
}

/**
 * Snapshots: the store's snapshots, newest first, with their age, entity
 * count and size. Restore is on each row; Create in the title. It refreshes
 * when a snapshot file appears or goes (made here, by the CLI or by another
 * window) and when the store is replaced by a restore.
 */
export class SnapshotsTree implements vscode.TreeDataProvider<SnapshotNode> {
  private readonly changed = new vscode.EventEmitter<SnapshotNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<SnapshotNode> | undefined;

  constructor(private readonly services: Services) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: SnapshotNode): Promise<SnapshotNode[]> {
    if (node) return [];
    try {
      const snapshots = await (await this.services.memory()).listSnapshots();
      if (this.view) this.view.message = undefined;
      void vscode.commands.executeCommand('setContext', 'workspaceMemory.noSnapshots', snapshots.length === 0);
      return snapshots.map((snapshot) => ({ kind: 'snapshot', snapshot }));
    } catch (error) {
      // Said in the view and logged: a pop-up would come back with every refresh while the store is down.
      this.services.log.error(`Listing snapshots: ${(error as Error).message}`);
      if (this.view)
        this.view.message = vscode.l10n.t('The snapshots could not be listed: {0}', (error as Error).message);
      return [];
    }
  }

  getTreeItem({ snapshot }: SnapshotNode): vscode.TreeItem {
    const item = new vscode.TreeItem(snapshot.label || snapshot.id, vscode.TreeItemCollapsibleState.None);
    item.id = `snapshot/${snapshot.id}`;
    item.description = vscode.l10n.t(
      '{0} · {1} entities · {2}',
      relativeTime(snapshot.createdAt),
      snapshot.entities,
      formatBytes(snapshot.bytes),
    );
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown(`$(device-camera) **${snapshot.label ? escape(snapshot.label) : snapshot.id}**\n\n`);
    tooltip.appendMarkdown(`${shortTime(snapshot.createdAt)}\n\n`);
    tooltip.appendMarkdown(
      `${vscode.l10n.t('{0} entities · {1}', snapshot.entities, formatBytes(snapshot.bytes))} · \`${snapshot.id}\``,
    );
    item.tooltip = tooltip;
    item.iconPath = new vscode.ThemeIcon('device-camera');
    item.contextValue = 'snapshot';
    return item;
  }
}

/** A label is the user's text: Markdown in it is shown as written. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|$]/g, '\\$&');
}

/** Registers the Snapshots view; the restore command takes its rows. */
export function registerSnapshotsView(
  context: vscode.ExtensionContext,
  services: Services,
): { tree: SnapshotsTree; view: vscode.TreeView<SnapshotNode> } {
  const tree = new SnapshotsTree(services);
  const view = vscode.window.createTreeView('workspaceMemory.snapshots', { treeDataProvider: tree });
  tree.view = view;
  // Snapshots are files beside the store: a new manifest (written last) or a removed one changes the list.
  const folder = vscode.Uri.joinPath(vscode.Uri.file(services.storeDir()), 'snapshots');
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '*.json'));
  context.subscriptions.push(
    view,
    watcher,
    watcher.onDidCreate(() => tree.refresh()),
    watcher.onDidDelete(() => tree.refresh()),
    // A restore, or a write by another process (a snapshot made by the CLI writes its audit entry):
    // changes without entity ids. Saves in this window (a doc sync's bursts) leave snapshots as they are.
    services.onDidChangeStore((change) => {
      if (change.entityIds.length === 0) tree.refresh();
    }),
    vscode.commands.registerCommand(COMMANDS.refreshSnapshots, () => tree.refresh()),
  );
  return { tree, view };
}
