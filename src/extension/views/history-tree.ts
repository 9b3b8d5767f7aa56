import * as vscode from 'vscode';

import type { CommitInfo, EntityType } from '../../core/types';
import { COMMANDS } from '../commands/ids';
import type { Services } from '../services';
import { entityLabel, relativeTime, TYPE_INFO } from './labels';

export interface CommitNode {
  kind: 'commit';
  entityId: string;
  entityType: EntityType;
  commit: CommitInfo;
  /**
   * The newest earlier commit that has a version, if any: what "compare"
   * diffs against (a delete commit in between has nothing to show).
   */
  previous: CommitInfo | undefined;
  /** Whether this is the entity's current version. */
  head: boolean;
  /** Whether the entity exists now (it was not deleted): only then can a version be restored. */
  live: boolean;
  /** Whether this commit made a version (a delete does not). */
  hasVersion: boolean;
  /** The entity's name, from its latest version. */
  label: string;
}

const OP_ICON: Record<CommitInfo['op'], string> = {
  create: 'add',
  update: 'edit',
  delete: 'trash',
  import: 'cloud-download',
  revert: 'discard',
  approve: 'check',
  supersede: 'circle-slash',
  reinstate: 'debug-restart',
};

/**
 * History: the commits of one entity, newest first. It follows the entity
 * selected in Collections or opened in an editor, and refreshes when that
 * entity changes.
 */
export class HistoryTree implements vscode.TreeDataProvider<CommitNode> {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private target: { id: string; type: EntityType } | undefined;
  /** The view shows the entity's name as its description. */
  view: vscode.TreeView<CommitNode> | undefined;

  constructor(private readonly services: Services) {}

  /** The entity whose history is shown. */
  get entity(): { id: string; type: EntityType } | undefined {
    return this.target;
  }

  show(entity: { id: string; type: EntityType }): void {
    if (this.target?.id === entity.id) return;
    this.target = entity;
    this.changed.fire(undefined);
  }

  storeChanged(entityIds: readonly string[]): void {
    if (this.target && (entityIds.length === 0 || entityIds.includes(this.target.id))) this.changed.fire(undefined);
  }

  async getChildren(node?: CommitNode): Promise<CommitNode[]> {
    if (node) return [];
    if (!this.target) {
      if (this.view) this.view.description = undefined;
      return [];
    }
    const target = this.target;
    try {
      const { commits, latest } = await this.services.use((memory) => memory.worker.historyOutline(target.id));
      if (commits.length === 0) {
        // Not in this store (another store was opened, or a restore went back before it):
        // nothing is selected any more, and the title must not keep its name.
        if (this.target === target) this.target = undefined;
        if (this.view) this.view.description = undefined;
        return [];
      }
      const label = latest ? entityLabel(latest) : target.id;
      if (this.view) {
        this.view.description = label;
        this.view.message = undefined;
      }
      const live = commits[0]?.hasVersion ?? false;
      return commits.map(({ commit, hasVersion }, index) => ({
        kind: 'commit',
        entityId: target.id,
        entityType: target.type,
        commit,
        previous: commits.slice(index + 1).find((earlier) => earlier.hasVersion)?.commit,
        head: index === 0,
        live,
        hasVersion,
        label,
      }));
    } catch (error) {
      // Said in the view and logged: a pop-up would come back with every refresh while the store is down.
      this.services.log.error(`Reading the history of ${target.id}: ${(error as Error).message}`);
      if (this.view) this.view.message = vscode.l10n.t('The history could not be read: {0}', (error as Error).message);
      return [];
    }
  }

  getTreeItem(node: CommitNode): vscode.TreeItem {
    const { commit } = node;
    const item = new vscode.TreeItem(commit.message || commit.op, vscode.TreeItemCollapsibleState.None);
    item.id = `commit/${commit.hash}`;
    item.description = `${relativeTime(commit.time)} · ${commit.author}${node.head ? ` · ${vscode.l10n.t('current')}` : ''}`;
    item.iconPath = new vscode.ThemeIcon(OP_ICON[commit.op] ?? 'git-commit');
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown(
      `$(${TYPE_INFO[node.entityType].icon}) **${commit.op}** ${vscode.l10n.t('by {0}', commit.author)}\n\n`,
    );
    tooltip.appendMarkdown(`${new Date(commit.time).toLocaleString()}\n\n`);
    tooltip.appendMarkdown(`${vscode.l10n.t('commit')} \`${commit.hash.slice(0, 12)}\``);
    if (commit.object) tooltip.appendMarkdown(` · ${vscode.l10n.t('object')} \`${commit.object.slice(0, 12)}\``);
    item.tooltip = tooltip;
    // Context flags drive the menus: compare needs a parent, restore a live entity and an older version.
    const flags = ['commit'];
    if (node.previous && node.hasVersion) flags.push('hasParent');
    if (!node.head && node.hasVersion && node.live) flags.push('restorable');
    item.contextValue = flags.join('.');
    if (node.hasVersion) {
      item.command = {
        command: COMMANDS.openVersion,
        title: vscode.l10n.t('Open This Version'),
        arguments: [node],
      };
    }
    return item;
  }
}
