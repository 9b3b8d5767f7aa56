import * as vscode from 'vscode';

import { noteOf, type StaleNote } from '../../core/anchors/staleness';
import type { CategorizedType } from '../../core/collections/groups';
import { describeProvenance } from '../../core/provenance';
import { staleText } from '../../core/trust/framing';
import type { PendingItem } from '../../core/trust/review';
import type { CommitInfo, Page } from '../../core/types';
import { type Entity, ENTITY_TYPES, type EntityType, SHARED_AGENT_ID } from '../../core/types';
import type { StaleMemories } from '../anchors/stale';
import { COMMANDS } from '../commands/ids';
import { isSyncedChunk } from '../documents/format';
import { entityUri, versionUri } from '../documents/uris';
import type { Services } from '../services';
import type { RemoteMemory } from '../store/client';
import { COLLECTION_OF } from '../store/collections';
import { pendingCount, pendingItems } from '../trust/pending';
import {
  appendPlain,
  appendWarning,
  chunkLabel,
  entityDescription,
  entityLabel,
  entityTooltip,
  INSTRUCTION_ICON,
  instructionWarning,
  scopeLabel,
  TYPE_INFO,
  writerLabel,
} from './labels';
import { dimmed } from './superseded-decorations';

/** Entities (or documents) listed per group before a "Show more" row. */
const PAGE = 200;

/** A group whose rows are paged: its "Show more" row names it by this key. */
type Paged = Extract<
  CollectionNode,
  { kind: 'pending' | 'superseded' | 'scope' | 'category' | 'user' | 'folder' | 'document' | 'loose' }
>;

/** A memory a correction retired, and the id of the correction. */
type Retired = Awaited<ReturnType<RemoteMemory['memories']['superseded']>>[number];

export type CollectionNode =
  /** The writes waiting for review, at the top while there are any. */
  | { kind: 'pending'; agentId: string; count: number }
  /** One write waiting for review: what it would store, who wrote it, what it would change. */
  | ({ kind: 'pendingItem' } & PendingItem)
  /** The memories and skills whose cited code changed or is gone, after Pending Review while there are any. */
  | { kind: 'stale'; count: number }
  /** One of them, with which citations changed. */
  | { kind: 'staleItem'; entity: Entity; note: StaleNote }
  | { kind: 'type'; type: EntityType; count: number }
  | { kind: 'scope'; type: EntityType; agentId: string; count: number }
  /** What an empty type group shows instead of a lone "0" row: how to add the first one. */
  | { kind: 'empty'; type: EntityType }
  /** Memories or skills of one category; `users` are the users it has items for (null: none). */
  | {
      kind: 'category';
      type: CategorizedType;
      agentId: string;
      category: string;
      count: number;
      users: (string | null)[];
    }
  /** The items of a category for one user, or those without a user (null). */
  | { kind: 'user'; type: CategorizedType; agentId: string; category: string; userId: string | null; count: number }
  /** A folder of documents (its path; '' is the top level). */
  | { kind: 'folder'; agentId: string; folder: string; documents: number; chunks: number }
  | { kind: 'document'; agentId: string; source: string; chunks: number }
  /** Knowledge without a document (saved by hand). */
  | { kind: 'loose'; agentId: string; count: number }
  /** The memories of a scope that corrections retired, after its categories while there are any. */
  | { kind: 'superseded'; agentId: string; items: Retired[] }
  /**
   * A retired memory: `version` is the commit that wrote the content it
   * keeps (its document opens there, read-only), `correction` the memory
   * that retired it, as last stored (null: no longer in this store).
   */
  | { kind: 'supersededItem'; entity: Entity; version: string; correction: { id: string; entity: Entity | null } }
  | { kind: 'entity'; entity: Entity }
  | { kind: 'more'; key: string; shown: number; total: number };

type StoreCounts = Awaited<ReturnType<Services['memory']>>['worker']['scopeCounts'];
type Worker = Awaited<ReturnType<Services['memory']>>['worker'];

interface Listable {
  listPaginated(agentId: string, userId?: string, options?: { limit?: number; offset?: number }): Promise<Page<Entity>>;
}

const CATEGORIZED: readonly EntityType[] = ['memory', 'skill'];

function documentsCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 document') : vscode.l10n.t('{0} documents', n);
}

function chunksCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 chunk') : vscode.l10n.t('{0} chunks', n);
}

/** The key a group's "Show more" row and its page size go by. */
function groupKey(node: Paged): string {
  switch (node.kind) {
    case 'pending':
      return `pending/${node.agentId}`;
    case 'superseded':
      return `superseded/${node.agentId}`;
    case 'scope':
      return `scope/${node.type}/${node.agentId}`;
    case 'category':
      return `category/${node.type}/${node.agentId}/${node.category}`;
    case 'user':
      return `user/${node.type}/${node.agentId}/${node.category}/${node.userId ?? ''}`;
    case 'folder':
      return `folder/${node.agentId}/${node.folder}`;
    case 'document':
      return `document/${node.agentId}/${node.source}`;
    case 'loose':
      return `loose/${node.agentId}`;
  }
}

/** What a write waiting for review would do, and who wrote it: "update of “…” · by Claude Desktop". */
function pendingDescription(node: Extract<CollectionNode, { kind: 'pendingItem' }>): string {
  const writer = writerLabel(node.commit.by, node.commit.author);
  const proposes = node.commit.proposes;
  if (!proposes) return `${TYPE_INFO[node.entity.type].singular} · ${writer}`;
  const target = node.target ? `“${entityLabel(node.target)}”` : proposes.target;
  const change =
    proposes.action === 'delete' ? vscode.l10n.t('delete {0}', target) : vscode.l10n.t('update of {0}', target);
  return `${change} · ${writer}`;
}

function pendingTooltip(node: Extract<CollectionNode, { kind: 'pendingItem' }>): vscode.MarkdownString {
  const tooltip = entityTooltip(node.entity);
  tooltip.appendMarkdown(`\n\n$(inbox) `);
  appendPlain(
    tooltip,
    vscode.l10n.t('Waiting for review: written {0}.', describeProvenance(node.commit.by, node.commit.author)),
  );
  const proposes = node.commit.proposes;
  if (proposes) {
    tooltip.appendMarkdown('\n\n');
    const target = node.target ? `“${entityLabel(node.target)}” (${proposes.target})` : proposes.target;
    appendPlain(
      tooltip,
      node.target === null
        ? vscode.l10n.t('It proposes to {0} {1}, which is no longer there: reject it.', proposes.action, target)
        : proposes.action === 'delete'
          ? vscode.l10n.t('Approving it deletes {0}.', target)
          : vscode.l10n.t('Approving it updates {0} with this content.', target),
    );
  }
  const warning = instructionWarning(node.entity.content);
  if (warning) appendWarning(tooltip, warning);
  return tooltip;
}

/** The correction that retired a memory, as its rows name it: its first words, or its id once it is gone. */
function correctionName({ correction }: Extract<CollectionNode, { kind: 'supersededItem' }>): string {
  return correction.entity ? `“${entityLabel(correction.entity)}”` : correction.id;
}

function supersededTooltip(node: Extract<CollectionNode, { kind: 'supersededItem' }>): vscode.MarkdownString {
  const tooltip = entityTooltip(node.entity);
  tooltip.appendMarkdown('\n\n$(circle-slash) ');
  appendPlain(
    tooltip,
    vscode.l10n.t(
      'Superseded by {0} ({1}): kept with its history, left out of search and recall. Reinstate brings it back.',
      correctionName(node),
      node.correction.id,
    ),
  );
  return tooltip;
}

/** Commits that change an entity's state and keep its content. */
const KEEPS_CONTENT: readonly CommitInfo['op'][] = ['approve', 'supersede', 'reinstate'];

/**
 * The commit that wrote a retired memory's content, given its commits
 * newest first: its retirement (and an approval or reinstatement before it)
 * kept the content, and a version's document names the writer of the
 * commit it shows, who should be the content's.
 */
function contentCommit(commits: readonly { commit: CommitInfo }[]): CommitInfo | undefined {
  let index = 0;
  while (
    commits[index] &&
    KEEPS_CONTENT.includes(commits[index]!.commit.op) &&
    commits[index + 1]?.commit.object === commits[index]!.commit.object
  ) {
    index++;
  }
  return commits[index]?.commit;
}

/**
 * Collections: the writes waiting for review, if any, then type → scope
 * (this agent, shared) → groups → entities, with counts. Memories and
 * skills group by category (and, where a category has items for several
 * users, by user); knowledge by folder, then document, whose chunks come
 * in order; sessions and profiles are listed newest first. Every group is
 * paged, and every group is read from the worker a page at a time, so a
 * scope of twenty thousand chunks never crosses the thread whole.
 * Refreshes whenever the store changes, in this window or in another
 * process.
 */
export class CollectionsTree implements vscode.TreeDataProvider<CollectionNode> {
  private readonly changed = new vscode.EventEmitter<CollectionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** How many rows each group shows, grown by "Show more". */
  private readonly shown = new Map<string, number>();
  /**
   * The counts read for the root rows, and for which agent. VS Code asks for
   * the root first on every refresh, then for each expanded type: those
   * reuse them instead of asking the worker again.
   */
  private counts: { agentId: string; read: ReturnType<StoreCounts> } | undefined;

  /** Each listed row's parent row; rows are new objects on every listing, so this forgets old ones by itself. */
  private readonly parents = new WeakMap<CollectionNode, CollectionNode>();

  constructor(
    private readonly services: Services,
    private readonly staleMemories: StaleMemories,
  ) {}

  refresh(): void {
    this.counts = undefined;
    this.changed.fire(undefined);
  }

  showMore(node: Extract<CollectionNode, { kind: 'more' }>): void {
    this.shown.set(node.key, node.shown + PAGE);
    this.refresh();
  }

  async getChildren(node?: CollectionNode): Promise<CollectionNode[]> {
    try {
      const children = await this.children(node);
      if (node) for (const child of children) this.parents.set(child, node);
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
    if (node.kind === 'entity') {
      const tooltip = entityTooltip(node.entity);
      const warning = instructionWarning(node.entity.content);
      if (warning) appendWarning(tooltip, warning);
      item.tooltip = tooltip;
    }
    if (node.kind === 'pendingItem') item.tooltip = pendingTooltip(node);
    if (node.kind === 'supersededItem') item.tooltip = supersededTooltip(node);
    if (node.kind === 'staleItem') {
      const tooltip = entityTooltip(node.entity);
      tooltip.appendMarkdown(`\n\n$(warning) ${staleText(node.note)}`);
      item.tooltip = tooltip;
    }
    return item;
  }

  /** The row a row was listed under, so that a view can reveal a row it was handed (a document, a chunk). */
  getParent(node: CollectionNode): CollectionNode | undefined {
    return this.parents.get(node);
  }

  private async children(node?: CollectionNode): Promise<CollectionNode[]> {
    const memory = await this.services.memory();
    const { agentId } = this.services.scope();
    const worker = memory.worker;

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
        if (own + shared === 0) return [{ kind: 'empty', type: node.type }];
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
      const waiting = await pendingCount(memory, agentId);
      void vscode.commands.executeCommand('setContext', 'workspaceMemory.empty', total === 0 && waiting === 0);
      const rows: CollectionNode[] = total === 0 ? [] : types;
      const stale = this.staleMemories.stale.length;
      return [
        ...(waiting > 0 ? [{ kind: 'pending' as const, agentId, count: waiting }] : []),
        ...(stale > 0 ? [{ kind: 'stale' as const, count: stale }] : []),
        ...rows,
      ];
    }
    switch (node.kind) {
      case 'pending':
        return this.pending(memory, node);
      case 'superseded':
        return this.superseded(worker, node);
      case 'stale':
        return this.staleMemories.stale.flatMap(({ entity, citations }) => {
          const note = noteOf(citations);
          return note ? [{ kind: 'staleItem' as const, entity, note }] : [];
        });
      case 'scope':
        if (node.type === 'memory') {
          const [categories, retired] = await Promise.all([
            this.categories(worker, node.type, node.agentId),
            memory.memories.superseded(node.agentId),
          ]);
          return retired.length > 0
            ? [...categories, { kind: 'superseded', agentId: node.agentId, items: retired }]
            : categories;
        }
        if (CATEGORIZED.includes(node.type)) return this.categories(worker, node.type as CategorizedType, node.agentId);
        if (node.type === 'knowledge') return this.folders(worker, node.agentId);
        return this.page(node, node.count, async (offset, limit) => {
          const listable = memory[COLLECTION_OF[node.type]] as Listable;
          return (await listable.listPaginated(node.agentId, undefined, { limit, offset })).items;
        });
      case 'category':
        if (node.users.length > 1) return this.users(worker, node);
        return this.page(node, node.count, (offset, limit) =>
          worker.categoryEntities(node.type, node.agentId, node.category, node.users[0] ?? null, offset, limit),
        );
      case 'user':
        return this.page(node, node.count, (offset, limit) =>
          worker.categoryEntities(node.type, node.agentId, node.category, node.userId, offset, limit),
        );
      case 'folder':
        return this.documents(worker, node);
      case 'document':
        return this.page(node, node.chunks, (offset, limit) =>
          worker.documentChunks(node.agentId, node.source, offset, limit),
        );
      case 'loose':
        return this.page(node, node.count, (offset, limit) => worker.looseKnowledge(node.agentId, offset, limit));
      default:
        return [];
    }
  }

  /** The writes waiting for review, newest first, as many as the group shows now. */
  private async pending(
    memory: Awaited<ReturnType<Services['memory']>>,
    node: Extract<CollectionNode, { kind: 'pending' }>,
  ): Promise<CollectionNode[]> {
    const key = groupKey(node);
    const limit = this.shown.get(key) ?? PAGE;
    const items = await pendingItems(memory, node.agentId);
    const rows: CollectionNode[] = items.slice(0, limit).map((item) => ({ kind: 'pendingItem', ...item }));
    if (items.length > limit) rows.push({ kind: 'more', key, shown: limit, total: items.length });
    return rows;
  }

  /**
   * The retired memories, newest first, as many as the group shows now, each
   * with the version to open and the correction that retired it.
   */
  private async superseded(
    worker: Worker,
    node: Extract<CollectionNode, { kind: 'superseded' }>,
  ): Promise<CollectionNode[]> {
    const key = groupKey(node);
    const limit = this.shown.get(key) ?? PAGE;
    const rows: CollectionNode[] = (
      await Promise.all(
        node.items.slice(0, limit).map(async ({ entity, supersededBy }) => {
          const [own, correction] = await Promise.all([
            worker.historyOutline(entity.id),
            worker.historyOutline(supersededBy),
          ]);
          const version = contentCommit(own.commits);
          // Gone since the group was listed (a restore went back before it): the next refresh drops the group's count too.
          if (!version) return [];
          return [
            {
              kind: 'supersededItem' as const,
              entity,
              version: version.hash,
              correction: { id: supersededBy, entity: correction.latest },
            },
          ];
        }),
      )
    ).flat();
    if (node.items.length > limit) rows.push({ kind: 'more', key, shown: limit, total: node.items.length });
    return rows;
  }

  private async categories(worker: Worker, type: CategorizedType, agentId: string): Promise<CollectionNode[]> {
    const byCategory = new Map<string, Extract<CollectionNode, { kind: 'category' }>>();
    for (const { category, userId, count } of await worker.categoryGroups(type, agentId)) {
      const node = byCategory.get(category) ?? { kind: 'category', type, agentId, category, count: 0, users: [] };
      node.count += count;
      node.users.push(userId);
      byCategory.set(category, node);
    }
    return [...byCategory.values()];
  }

  /** A category's items for each user, those without a user first. */
  private users(worker: Worker, node: Extract<CollectionNode, { kind: 'category' }>): Promise<CollectionNode[]> {
    return worker.categoryGroups(node.type, node.agentId).then((groups) =>
      groups
        .filter((group) => group.category === node.category)
        .map((group) => ({
          kind: 'user' as const,
          type: node.type,
          agentId: node.agentId,
          category: node.category,
          userId: group.userId,
          count: group.count,
        })),
    );
  }

  private async folders(worker: Worker, agentId: string): Promise<CollectionNode[]> {
    const { folders, loose } = await worker.documentFolders(agentId);
    const nodes: CollectionNode[] = folders.map((folder) => ({ kind: 'folder', agentId, ...folder }));
    if (loose > 0) nodes.push({ kind: 'loose', agentId, count: loose });
    return nodes;
  }

  private async documents(
    worker: Worker,
    node: Extract<CollectionNode, { kind: 'folder' }>,
  ): Promise<CollectionNode[]> {
    const key = groupKey(node);
    const limit = this.shown.get(key) ?? PAGE;
    const { items, total } = await worker.folderDocuments(node.agentId, node.folder, 0, limit);
    const rows: CollectionNode[] = items.map((doc) => ({ kind: 'document', agentId: node.agentId, ...doc }));
    if (items.length < total) rows.push({ kind: 'more', key, shown: items.length, total });
    return rows;
  }

  /**
   * The entities of a group, as many as it shows now, read a page of at
   * most {@link PAGE} at a time, then a "Show more" row while there are more.
   */
  private async page(
    group: Paged,
    total: number,
    read: (offset: number, limit: number) => Promise<Entity[]>,
  ): Promise<CollectionNode[]> {
    const key = groupKey(group);
    const limit = this.shown.get(key) ?? PAGE;
    const items: Entity[] = [];
    while (items.length < limit) {
      const want = Math.min(PAGE, limit - items.length);
      const page = await read(items.length, want);
      items.push(...page);
      if (page.length < want) break;
    }
    const rows: CollectionNode[] = items.map((entity) => ({ kind: 'entity', entity }));
    if (items.length < total) rows.push({ kind: 'more', key, shown: items.length, total });
    return rows;
  }

  getTreeItem(node: CollectionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'pending': {
        const item = new vscode.TreeItem(vscode.l10n.t('Pending Review'), vscode.TreeItemCollapsibleState.Expanded);
        item.id = groupKey(node);
        item.description = String(node.count);
        item.tooltip = vscode.l10n.t(
          'Writes by agents that wait for your review. Search, recall and the agents leave them out until you approve them.',
        );
        item.iconPath = new vscode.ThemeIcon('inbox');
        item.contextValue = 'group.pending';
        return item;
      }
      case 'pendingItem': {
        const { entity, commit } = node;
        const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
        item.id = `pending/${entity.id}`;
        item.description = pendingDescription(node);
        const icon = commit.proposes
          ? commit.proposes.action === 'delete'
            ? 'trash'
            : 'edit'
          : TYPE_INFO[entity.type].icon;
        item.iconPath = instructionWarning(entity.content) ? INSTRUCTION_ICON : new vscode.ThemeIcon(icon);
        item.contextValue = 'pending';
        item.resourceUri = entityUri(entity);
        item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [node] };
        return item;
      }
      case 'stale': {
        const item = new vscode.TreeItem(vscode.l10n.t('Stale'), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = 'stale';
        item.description = String(node.count);
        item.tooltip = vscode.l10n.t(
          'Memories and skills whose cited code changed or is gone since they were written: check that they still hold. Recall marks them as possibly outdated.',
        );
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.contextValue = 'group.stale';
        return item;
      }
      case 'staleItem': {
        const { entity } = node;
        const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
        item.id = `staleItem/${entity.id}`;
        const [first] = node.note.citations;
        item.description =
          first?.state === 'missing'
            ? vscode.l10n.t('{0} is gone', first.path)
            : vscode.l10n.t('{0}:{1} changed', first?.path ?? '', first?.startLine ?? '');
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        item.resourceUri = entityUri(entity);
        item.contextValue = 'entity';
        item.command = {
          command: COMMANDS.open,
          title: vscode.l10n.t('Open'),
          arguments: [{ kind: 'entity', entity }],
        };
        return item;
      }
      case 'superseded': {
        const item = new vscode.TreeItem(vscode.l10n.t('Superseded'), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = groupKey(node);
        item.description = String(node.items.length);
        item.tooltip = vscode.l10n.t(
          'Memories that corrections retired: kept with their history, left out of search and recall. Reinstate one to bring it back.',
        );
        item.iconPath = new vscode.ThemeIcon('circle-slash');
        item.contextValue = 'group.superseded';
        return item;
      }
      case 'supersededItem': {
        const { entity } = node;
        const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
        item.id = `supersededItem/${entity.id}`;
        item.description = vscode.l10n.t('superseded by {0}', correctionName(node));
        // Tree labels cannot be struck through (TreeItemLabel's strikethrough is a proposed API): dimmed instead.
        item.iconPath = new vscode.ThemeIcon(TYPE_INFO[entity.type].icon, new vscode.ThemeColor('disabledForeground'));
        item.resourceUri = dimmed(entityUri(entity));
        item.contextValue = 'superseded';
        // Its live document is gone with it (the store's get leaves it out): the version it keeps opens read-only.
        item.command = {
          command: 'vscode.open',
          title: vscode.l10n.t('Open'),
          arguments: [versionUri(entity, node.version), { preview: true, preserveFocus: true }],
        };
        return item;
      }
      case 'type': {
        const item = new vscode.TreeItem(TYPE_INFO[node.type].plural, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `type/${node.type}`;
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(TYPE_INFO[node.type].icon);
        item.contextValue = `type.${node.type}`;
        if (node.type === 'memory') item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem(
          vscode.l10n.t('No {0} yet — Add Memory…', TYPE_INFO[node.type].plural.toLowerCase()),
          vscode.TreeItemCollapsibleState.None,
        );
        item.id = `empty/${node.type}`;
        item.iconPath = new vscode.ThemeIcon('add');
        item.command = { command: COMMANDS.addMemory, title: vscode.l10n.t('Add Memory') };
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
      case 'category': {
        const item = new vscode.TreeItem(
          node.category || vscode.l10n.t('(no category)'),
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = groupKey(node);
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon('tag');
        item.contextValue = 'group.category';
        return item;
      }
      case 'user': {
        const item = new vscode.TreeItem(
          node.userId === null ? vscode.l10n.t('No user (everyone)') : `@${node.userId}`,
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = groupKey(node);
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(node.userId === null ? 'organization' : 'person');
        item.contextValue = 'group.user';
        return item;
      }
      case 'folder': {
        const item = new vscode.TreeItem(
          node.folder === '' ? vscode.l10n.t('(top level)') : node.folder,
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = groupKey(node);
        item.description = `${documentsCount(node.documents)} · ${chunksCount(node.chunks)}`;
        item.tooltip = node.folder === '' ? vscode.l10n.t('Documents at the top level of the workspace') : node.folder;
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = 'group.folder';
        return item;
      }
      case 'document': {
        const item = new vscode.TreeItem(
          node.source.slice(node.source.lastIndexOf('/') + 1),
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = groupKey(node);
        item.description = chunksCount(node.chunks);
        item.tooltip = node.source;
        item.iconPath = new vscode.ThemeIcon('file');
        item.contextValue = 'group.document';
        return item;
      }
      case 'loose': {
        const item = new vscode.TreeItem(vscode.l10n.t('Saved by hand'), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = groupKey(node);
        item.description = String(node.count);
        item.tooltip = vscode.l10n.t('Knowledge that is not a chunk of a workspace document');
        item.iconPath = new vscode.ThemeIcon('edit');
        item.contextValue = 'group.loose';
        return item;
      }
      case 'entity': {
        const { entity } = node;
        // Under its document a chunk is told apart by its place, not by the document's path again.
        const label = entity.type === 'knowledge' && entity.source ? chunkLabel(entity) : entityLabel(entity);
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
        item.id = `entity/${entity.id}`;
        item.description = entityDescription(entity);
        item.iconPath = instructionWarning(entity.content)
          ? INSTRUCTION_ICON
          : new vscode.ThemeIcon(TYPE_INFO[entity.type].icon);
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
