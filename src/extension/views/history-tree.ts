import * as vscode from 'vscode';
import type { CommitInfo, Entity, EntityType, HistoryEntry } from '../../core/types';
import type { Services } from '../services';
import { TYPE_INFO, entityLabel, relativeTime } from './labels';

export interface CommitNode {
  kind: 'commit';
  entityId: string;
  entityType: EntityType;
  commit: CommitInfo;
  /** The version before this one, if any (what "compare" diffs against). */
  parent: CommitInfo | undefined;
  /** Whether this is the entity's current version. */
  head: boolean;
  /** Whether the entity exists now (it was not deleted): only then can a version be restored. */
  live: boolean;
  /** The version this commit made; null for a delete. */
  entity: Entity | null;
}

const OP_ICON: Record<CommitInfo['op'], string> = {
  create: 'add',
  update: 'edit',
  delete: 'trash',
  import: 'cloud-download',
  revert: 'discard',
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
    if (node || !this.target) return [];
    const target = this.target;
    try {
      const history: HistoryEntry[] = await (await this.services.memory()).history(target.id);
      const latest = history.find((entry) => entry.entity)?.entity;
      if (this.view) this.view.description = latest ? entityLabel(latest) : target.id;
      const live = Boolean(history[0]?.entity);
      return history.map((entry, index) => ({
        kind: 'commit',
        entityId: target.id,
        entityType: target.type,
        commit: entry.commit,
        parent: history[index + 1]?.commit,
        head: index === 0,
        live,
        entity: entry.entity,
      }));
    } catch (error) {
      this.services.reportError(vscode.l10n.t('Reading the history'), error);
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
    if (node.parent && node.entity) flags.push('hasParent');
    if (!node.head && node.entity && node.live) flags.push('restorable');
    item.contextValue = flags.join('.');
    if (node.entity) {
      item.command = {
        command: 'workspaceMemory.openVersion',
        title: vscode.l10n.t('Open This Version'),
        arguments: [node],
      };
    }
    return item;
  }
}
