import * as vscode from 'vscode';
import type { Page } from '../../core/types';
import { ENTITY_TYPES, SHARED_AGENT_ID, type Entity, type EntityType } from '../../core/types';
import { isSyncedChunk } from '../documents/format';
import { entityUri } from '../documents/uris';
import type { Services } from '../services';
import { COLLECTION_OF } from '../store/collections';
import { TYPE_INFO, entityDescription, entityLabel, entityTooltip, scopeLabel } from './labels';
import { COMMANDS } from '../commands/ids';

/** Entities listed per scope before a "Show more" row. */
const PAGE = 200;

export type CollectionNode =
  | { kind: 'type'; type: EntityType; count: number }
  | { kind: 'scope'; type: EntityType; agentId: string; count: number }
  | { kind: 'entity'; entity: Entity }
  | { kind: 'more'; type: EntityType; agentId: string; shown: number; total: number };

type StoreCounts = Awaited<ReturnType<Services['memory']>>['worker']['scopeCounts'];

interface Listable {
  listPaginated(agentId: string, userId?: string, options?: { limit?: number; offset?: number }): Promise<Page<Entity>>;
}

/**
 * Collections: type → scope (this agent, shared) → entities, newest first,
 * with counts. Refreshes whenever the store changes, in this window or in
 * another process.
 */
export class CollectionsTree implements vscode.TreeDataProvider<CollectionNode> {
  private readonly changed = new vscode.EventEmitter<CollectionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** How many entities each scope shows, grown by "Show more". */
  private readonly shown = new Map<string, number>();
  /**
   * The counts read for the root rows, and for which agent. VS Code asks for
   * the root first on every refresh, then for each expanded type: those
   * reuse them instead of asking the worker again.
   */
  private counts: { agentId: string; read: ReturnType<StoreCounts> } | undefined;

  constructor(private readonly services: Services) {}

  refresh(): void {
    this.counts = undefined;
    this.changed.fire(undefined);
  }

  showMore(node: Extract<CollectionNode, { kind: 'more' }>): void {
    this.shown.set(`${node.type}/${node.agentId}`, node.shown + PAGE);
    this.refresh();
  }

  async getChildren(node?: CollectionNode): Promise<CollectionNode[]> {
    try {
      const children = await this.children(node);
      if (!node) void vscode.commands.executeCommand('setContext', 'workspaceMemory.unavailable', false);
      return children;
    } catch (error) {
      // The view says so and points at the log; a pop-up per refresh would nag (opening already reported it).
      this.services.log.error(`Listing memories: ${(error as Error).message}`);
      void vscode.commands.executeCommand('setContext', 'workspaceMemory.unavailable', true);
      return [];
    }
  }

  /** Tooltips are built when a row is hovered, not for every row of a big scope. */
  resolveTreeItem(item: vscode.TreeItem, node: CollectionNode): vscode.TreeItem {
    if (node.kind === 'entity') item.tooltip = entityTooltip(node.entity);
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

  private async children(node?: CollectionNode): Promise<CollectionNode[]> {
    const memory = await this.services.memory();
    const { agentId } = this.services.scope();
    const listable = (type: EntityType): Listable => memory[COLLECTION_OF[type]];

    if (!node || node.kind === 'type') {
      if (!node || this.counts?.agentId !== agentId)
        this.counts = { agentId, read: memory.worker.scopeCounts(agentId) };
      const cached = this.counts;
      const counts = await cached.read.catch((error: unknown) => {
        if (this.counts === cached) this.counts = undefined;
        throw error;
      });
      if (node) {
        const { own, shared } = counts[node.type];
        const nodes: CollectionNode[] = [{ kind: 'scope', type: node.type, agentId, count: own }];
        if (shared > 0) nodes.push({ kind: 'scope', type: node.type, agentId: SHARED_AGENT_ID, count: shared });
        return nodes;
      }
      const types = ENTITY_TYPES.map((type) => ({
        kind: 'type' as const,
        type,
        count: counts[type].own + counts[type].shared,
      }));
      const total = types.reduce((sum, t) => sum + t.count, 0);
      void vscode.commands.executeCommand('setContext', 'workspaceMemory.empty', total === 0);
      return total === 0 ? [] : types;
    }
    if (node.kind === 'scope') {
      const limit = this.shown.get(`${node.type}/${node.agentId}`) ?? PAGE;
      const items: Entity[] = [];
      // listPaginated caps a page at 200, so bigger views are read page by page.
      while (items.length < limit) {
        const page = await listable(node.type).listPaginated(node.agentId, undefined, {
          limit: Math.min(PAGE, limit - items.length),
          offset: items.length,
        });
        items.push(...page.items);
        if (!page.hasMore) break;
      }
      const rows: CollectionNode[] = items.map((entity) => ({ kind: 'entity', entity }));
      if (items.length < node.count) {
        rows.push({ kind: 'more', type: node.type, agentId: node.agentId, shown: items.length, total: node.count });
      }
      return rows;
    }
    return [];
  }

  getTreeItem(node: CollectionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'type': {
        const item = new vscode.TreeItem(TYPE_INFO[node.type].plural, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `type/${node.type}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(TYPE_INFO[node.type].icon);
        item.contextValue = `type.${node.type}`;
        if (node.type === 'memory') item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
        return item;
      }
      case 'scope': {
        const item = new vscode.TreeItem(scopeLabel(node.agentId), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `scope/${node.type}/${node.agentId}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(node.agentId === SHARED_AGENT_ID ? 'organization' : 'person');
        item.contextValue = 'scope';
        if (node.type === 'memory') item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
        return item;
      }
      case 'entity': {
        const { entity } = node;
        const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
        item.id = `entity/${entity.id}`;
        item.description = entityDescription(entity);
        item.iconPath = new vscode.ThemeIcon(TYPE_INFO[entity.type].icon);
        // A synced chunk is read-only (edit its file): its own context value leaves Edit out of its menus.
        item.contextValue = isSyncedChunk(entity) ? 'entity.knowledge.synced' : `entity.${entity.type}`;
        item.resourceUri = entityUri(entity);
        item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [node] };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(
          vscode.l10n.t('Show more ({0} of {1})', node.shown, node.total),
          vscode.TreeItemCollapsibleState.None,
        );
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.command = { command: COMMANDS.showMore, title: vscode.l10n.t('Show more'), arguments: [node] };
        return item;
      }
    }
  }
}
