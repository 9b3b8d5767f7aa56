import * as vscode from 'vscode';

import { describeProvenance } from '../../core/provenance';
import type { CommitInfo, EntityType } from '../../core/types';
import { COMMANDS } from '../commands/ids';
import type { Services } from '../services';
import { appendPlain, entityLabel, relativeTime, shortTime, TYPE_INFO } from './labels';

/** An entity a commit links to (the one it proposes to change, corrects or was retired by). */
export interface RelatedEntity {
  label: string;
  /** It is retired by a correction now: Reinstate can bring it back. */
  superseded: boolean;
}

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
  /** The entities the history's commits link to, by id (absent: never stored here). */
  related: Record<string, RelatedEntity>;
}

/** The ids a commit links to: what it proposes to change, what it corrects, what retired it. */
function linksOf(commit: CommitInfo): string[] {
  return [commit.proposes?.target, commit.supersedes, commit.supersededBy].filter((id) => id !== undefined);
}

/** What the tooltip says of a commit's review and corrections, one line each. */
function reviewLines(node: CommitNode): string[] {
  const { commit, related } = node;
  const name = (id: string) => (related[id] ? `“${related[id].label}” (${id})` : id);
  const lines: string[] = [];
  if (commit.review === 'pending') lines.push(vscode.l10n.t('Queued for review.'));
  if (commit.review === 'rejected') lines.push(vscode.l10n.t('Rejected in review.'));
  if (commit.proposes) {
    lines.push(
      commit.proposes.action === 'delete'
        ? vscode.l10n.t('Proposes to delete {0}.', name(commit.proposes.target))
        : vscode.l10n.t('Proposes to update {0}.', name(commit.proposes.target)),
    );
  }
  if (commit.supersedes) lines.push(vscode.l10n.t('Corrects {0}, which it retired.', name(commit.supersedes)));
  if (commit.supersededBy) lines.push(vscode.l10n.t('Superseded by {0}.', name(commit.supersededBy)));
  return lines;
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
      const related = await this.related(commits.flatMap(({ commit }) => linksOf(commit)));
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
        related,
      }));
    } catch (error) {
      // Said in the view and logged: a pop-up would come back with every refresh while the store is down.
      this.services.log.error(`Reading the history of ${target.id}: ${(error as Error).message}`);
      if (this.view) this.view.message = vscode.l10n.t('The history could not be read: {0}', (error as Error).message);
      return [];
    }
  }

  /** The name of each linked entity, and whether it is retired now; one not in this store is left out. */
  private async related(ids: string[]): Promise<Record<string, RelatedEntity>> {
    const related: Record<string, RelatedEntity> = {};
    for (const id of new Set(ids)) {
      const { commits, latest } = await this.services.use((memory) => memory.worker.historyOutline(id));
      if (!latest) continue;
      related[id] = { label: entityLabel(latest), superseded: commits[0]?.commit.op === 'supersede' };
    }
    return related;
  }

  getTreeItem(node: CommitNode): vscode.TreeItem {
    const { commit } = node;
    const writer = describeProvenance(commit.by, commit.author);
    const item = new vscode.TreeItem(commit.message || commit.op, vscode.TreeItemCollapsibleState.None);
    item.id = `commit/${commit.hash}`;
    item.description = `${relativeTime(commit.time)} · ${writer}${node.head ? ` · ${vscode.l10n.t('current')}` : ''}`;
    item.iconPath = new vscode.ThemeIcon(OP_ICON[commit.op] ?? 'git-commit');
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown(`$(${TYPE_INFO[node.entityType].icon}) **${commit.op}** `);
    // What a writer calls itself (an MCP client's name) is its own word: shown as text, never as Markdown.
    appendPlain(tooltip, writer);
    tooltip.appendMarkdown('\n\n');
    for (const line of reviewLines(node)) {
      appendPlain(tooltip, line);
      tooltip.appendMarkdown('\n\n');
    }
    tooltip.appendMarkdown(`${shortTime(commit.time)}\n\n`);
    tooltip.appendMarkdown(`${vscode.l10n.t('commit')} \`${commit.hash.slice(0, 12)}\``);
    if (commit.object) tooltip.appendMarkdown(` · ${vscode.l10n.t('object')} \`${commit.object.slice(0, 12)}\``);
    item.tooltip = tooltip;
    // Context flags drive the menus: compare needs a parent, restore a live entity and an older version.
    const flags = ['commit'];
    if (node.previous && node.hasVersion) flags.push('hasParent');
    if (!node.head && node.hasVersion && node.live) flags.push('restorable');
    // A retirement still in effect, or a correction of a memory that is still retired, can be undone.
    const retired =
      commit.op === 'supersede' ? node.head : Boolean(commit.supersedes && node.related[commit.supersedes]?.superseded);
    if (retired) flags.push('reinstatable');
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
