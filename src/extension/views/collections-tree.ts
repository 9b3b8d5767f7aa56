import * as vscode from 'vscode';

import { noteOf } from '../../core/anchors/staleness';
import type { CategorizedType } from '../../core/collections/groups';
import type { CommitInfo, Page } from '../../core/types';
import { type Entity, ENTITY_TYPES, type EntityType, SHARED_AGENT_ID } from '../../core/types';
import { citedPathOf } from '../anchors/folders';
import type { StaleMemories } from '../anchors/stale';
import { unusedDays } from '../config';
import type { Services } from '../services';
import { COLLECTION_OF } from '../store/collections';
import type { TeamMemory } from '../team';
import { pendingCount, pendingItems } from '../trust/pending';
import { collectionItem, withTooltip } from './collections-items';
import { type CollectionNode, groupKey, type Paged } from './collections-nodes';

/** Entities (or documents) listed per group before a "Show more" row. */
const PAGE = 200;

export type { CollectionNode } from './collections-nodes';

type StoreCounts = Awaited<ReturnType<Services['memory']>>['worker']['scopeCounts'];
type Worker = Awaited<ReturnType<Services['memory']>>['worker'];

interface Listable {
  listPaginated(agentId: string, userId?: string, options?: { limit?: number; offset?: number }): Promise<Page<Entity>>;
}

const CATEGORIZED: readonly EntityType[] = ['memory', 'skill'];

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

  /** The team folder's state, once team memory has registered (see extension/team). */
  team: TeamMemory | undefined;

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
    return withTooltip(item, node);
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
      const unused = await this.unusedGroup(memory, agentId);
      const team = this.team?.view;
      return [
        ...(waiting > 0 ? [{ kind: 'pending' as const, agentId, count: waiting }] : []),
        ...(stale > 0 ? [{ kind: 'stale' as const, count: stale }] : []),
        ...unused,
        ...(team && (team.status.files.length || team.status.problems.length)
          ? [{ kind: 'team' as const, count: team.status.files.length, problems: team.status.problems.length }]
          : []),
        ...this.thisFile(),
        ...rows,
      ];
    }
    switch (node.kind) {
      case 'pending':
        return this.pending(memory, node);
      case 'superseded':
        return this.superseded(worker, node);
      case 'thisFile':
        return node.entities.map((entity) => ({ kind: 'entity' as const, entity }));
      case 'team':
        return this.teamRows();
      case 'unused':
        return this.page(node, node.count, async (offset, limit) => {
          const { userId } = this.services.scope();
          const { items } = await memory.unused(node.agentId, userId, node.days, { limit, offset });
          return items.map((item) => ({ kind: 'unusedItem' as const, ...item }));
        });
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

  /** The This File group, when what the active editor shows is a workspace file that memories cite. */
  private thisFile(): CollectionNode[] {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const path = uri && citedPathOf(uri);
    const entities = path ? this.staleMemories.citing(path).map((report) => report.entity) : [];
    return path && entities.length ? [{ kind: 'thisFile', path, entities }] : [];
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
    read: (offset: number, limit: number) => Promise<(Entity | CollectionNode)[]>,
  ): Promise<CollectionNode[]> {
    const key = groupKey(group);
    const limit = this.shown.get(key) ?? PAGE;
    const rows: CollectionNode[] = [];
    while (rows.length < limit) {
      const want = Math.min(PAGE, limit - rows.length);
      const page = await read(rows.length, want);
      // Entities become plain entity rows; a group with rows of its own kind reads those.
      rows.push(...page.map((item): CollectionNode => ('kind' in item ? item : { kind: 'entity', entity: item })));
      if (page.length < want) break;
    }
    const shown = rows.length;
    if (shown < total) rows.push({ kind: 'more', key, shown, total });
    return rows;
  }

  /** The team folder's entities (with each file's git state), then the files it did not take in. */
  private teamRows(): CollectionNode[] {
    const view = this.team?.view;
    if (!view) return [];
    const { folder, files, problems } = view.status;
    const byId = new Map(view.entities.map((entity) => [entity.id, entity]));
    return [
      ...files.flatMap((file) => {
        const entity = byId.get(file.id);
        return entity ? [{ kind: 'teamItem' as const, entity, file: file.path, folder, state: file.state }] : [];
      }),
      ...problems.map(({ path: file, problem }) => ({ kind: 'teamProblem' as const, file, folder, problem })),
    ];
  }

  /** The Not Used Lately group, while the setting asks for it and it has something. */
  private async unusedGroup(
    memory: Awaited<ReturnType<Services['memory']>>,
    agentId: string,
  ): Promise<CollectionNode[]> {
    const days = unusedDays();
    if (days === 0) return [];
    const { total } = await memory.unused(agentId, this.services.scope().userId, days, { limit: 1 });
    return total > 0 ? [{ kind: 'unused', agentId, days, count: total }] : [];
  }

  getTreeItem(node: CollectionNode): vscode.TreeItem {
    return collectionItem(node);
  }
}
