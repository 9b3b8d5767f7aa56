import { chunkAt } from '../rag/state';
import { collapseCopies } from '../search/copies';
import { findNearDuplicate } from '../search/dedup';
import { byHeading } from '../search/headings';
import type { SearchOptions, SearchResult, SearchScope } from '../search/searcher';
import type { VersionBody } from '../store/entity-store';
import type { CommitInfo, EntityByType, InputByType, MemoryEntity, SearchableType } from '../types';
import { isTeamType, SHARED_AGENT_ID, TEAM_AGENT_ID } from '../types';
import { assertId, assertLimit, assertOptionalId, assertQuery } from '../validation';
import { Collection } from './collection';

/** What saveOrUpdate returns: the entity, its commit, and whether an existing entity was updated. */
export type DedupResult<T extends SearchableType> = [
  EntityByType[T],
  CommitInfo,
  { deduplicated: boolean; similarity?: number },
];

/**
 * From this similarity a correction is taken to be about an existing memory.
 * Lower than the duplicate threshold: a correction says the same thing with a
 * different value ("port 6543", not "port 5433"), so it shares most words,
 * not all.
 */
const CORRECTION_SIMILARITY = 0.5;

/** The most results a knowledge search reads to find its number of distinct texts (see collapseCopies). */
const COPIES_DEPTH = 1000;

/** Search and near-duplicate detection shared by memories, skills and knowledge. */
export abstract class SearchableCollection<T extends SearchableType> extends Collection<T> {
  protected async runSearch(
    scope: SearchScope,
    query: string,
    limit: number,
    options: SearchOptions,
  ): Promise<SearchResult<EntityByType[T]>[]> {
    assertQuery(query);
    const count = assertLimit(limit);
    const search = async (depth: number) =>
      (await this.ctx.search(scope, query, depth, options)) as SearchResult<EntityByType[T]>[];
    if (this.type !== 'knowledge') return search(count);
    // Identical chunks of different files (copies of one README) are one result: searched deeper until
    // `count` distinct texts are found, or there are no more, or COPIES_DEPTH results were read.
    for (let depth = count + Math.min(count, 10); ; depth = Math.max(Math.min(depth * 4, COPIES_DEPTH), depth)) {
      const found = await search(depth);
      const once = byHeading(collapseCopies(found), query);
      if (once.length >= count || found.length < depth || depth >= COPIES_DEPTH) return once.slice(0, count);
    }
  }

  protected scope(agentId: string, userId: string | undefined, includeShared = false): SearchScope {
    const agent = assertId(agentId, 'agent id');
    const agentIds = includeShared && agent !== SHARED_AGENT_ID ? [agent, SHARED_AGENT_ID] : [agent];
    // The team's memories and skills (the repository's team folder) are everyone's: found with each agent's own.
    if (isTeamType(this.type) && agent !== TEAM_AGENT_ID) agentIds.push(TEAM_AGENT_ID);
    return { type: this.type, agentIds, userId: assertOptionalId(userId, 'user id') };
  }

  /** The entity that a dedup save of `input` would update instead of adding one, if any. */
  protected duplicateOf(
    agentId: string,
    userId: string | undefined,
    input: InputByType[T],
  ): { entity: EntityByType[T]; similarity: number } | undefined {
    const content = typeof input?.content === 'string' ? input.content : '';
    if (!content.trim()) return undefined;
    return findNearDuplicate<EntityByType[T]>(
      this.ctx.searcher,
      this.scope(agentId, userId),
      content,
      this.ctx.dedupThreshold,
      (existing) => existing.agentId === agentId && existing.userId === userId && this.sameKind(existing, input),
    );
  }

  /** Which existing entities count as the "same thing" (same source, same category). */
  protected abstract sameKind(existing: EntityByType[T], input: InputByType[T]): boolean;

  /**
   * Saves `input`, unless an entity in the same scope is a near-duplicate
   * (similarity at or above the configured threshold): then that entity gets
   * a new version with the new content and the union of both tag lists.
   */
  protected async dedupSave(
    agentId: string,
    userId: string | undefined,
    input: InputByType[T],
  ): Promise<DedupResult<T>> {
    const duplicate = this.duplicateOf(agentId, userId, input);
    if (!duplicate) {
      const [entity, commit] = await this.save(agentId, userId, input);
      return [entity, commit, { deduplicated: false }];
    }
    const tags = [...new Set([...duplicate.entity.tags, ...(input.tags ?? [])])];
    const [entity, commit] = await this.update(duplicate.entity.id, { ...input, tags });
    return [entity, commit, { deduplicated: true, similarity: duplicate.similarity }];
  }
}

export class MemoryCollection extends SearchableCollection<'memory'> {
  /** The agent's memories for `userId` (and those saved without a user), best first. */
  async search(agentId: string, userId: string | undefined, query: string, limit = 10, options: SearchOptions = {}) {
    return this.runSearch(this.scope(agentId, userId), query, limit, options);
  }

  /**
   * Saves `input`, updating a near-duplicate instead (see dedupSave). A
   * correction that names no memory is matched to the one it most likely
   * corrects (the most similar memory of the same agent and user, from
   * CORRECTION_SIMILARITY), which it then supersedes rather than updates: the
   * wrong fact is retired, and the correction keeps its own history.
   */
  async saveOrUpdate(agentId: string, userId: string | undefined, input: InputByType['memory']) {
    if (input?.category === 'correction' && input.supersedes === undefined) {
      const agent = assertId(agentId, 'agent id');
      const user = assertOptionalId(userId, 'user id');
      const corrected = findNearDuplicate<MemoryEntity>(
        this.ctx.searcher,
        this.scope(agent, user),
        typeof input.content === 'string' ? input.content : '',
        CORRECTION_SIMILARITY,
        // The user's own memories and the workspace-wide ones (what their recall shows).
        (existing) =>
          existing.agentId === agent &&
          (existing.userId === user || existing.userId === undefined) &&
          existing.category !== 'correction',
      );
      if (corrected) {
        const [entity, commit] = await this.save(agent, user, { ...input, supersedes: corrected.entity.id });
        return [entity, commit, { deduplicated: false, similarity: corrected.similarity }] as DedupResult<'memory'>;
      }
    }
    // A memory that names what it corrects is new, never a new version of what it retires.
    if (input?.supersedes !== undefined) {
      const [entity, commit] = await this.save(agentId, userId, input);
      return [entity, commit, { deduplicated: false }] as DedupResult<'memory'>;
    }
    return this.dedupSave(agentId, userId, input);
  }

  /** The memory that saveOrUpdate would give this content to, as a new version, instead of adding one; null if none. */
  async nearDuplicate(agentId: string, userId: string | undefined, content: string): Promise<MemoryEntity | null> {
    const agent = assertId(agentId, 'agent id');
    return this.duplicateOf(agent, assertOptionalId(userId, 'user id'), { content })?.entity ?? null;
  }

  protected sameKind(): boolean {
    return true;
  }
}

/**
 * Skills and knowledge belong to an agent, not a user, and can also live in
 * the shared scope that every agent reads.
 */
export class AgentScopedCollection<T extends 'skill' | 'knowledge'> extends SearchableCollection<T> {
  async search(agentId: string, query: string, limit = 10, options: SearchOptions = {}) {
    return this.runSearch(this.scope(agentId, undefined, options.includeShared), query, limit, options);
  }

  async saveOrUpdate(agentId: string, input: InputByType[T]) {
    return this.dedupSave(agentId, undefined, input);
  }

  /** The entity that saveOrUpdate would give this input to, as a new version, instead of adding one; null if none. */
  async nearDuplicate(agentId: string, input: InputByType[T]): Promise<EntityByType[T] | null> {
    return this.duplicateOf(assertId(agentId, 'agent id'), undefined, input)?.entity ?? null;
  }

  async saveShared(input: InputByType[T]) {
    return this.save(SHARED_AGENT_ID, undefined, input);
  }

  async listShared(): Promise<EntityByType[T][]> {
    return this.list(SHARED_AGENT_ID);
  }

  /**
   * A document chunk (knowledge that document sync made: it has a source
   * hash) has one place, its index in its document: saved again, it updates
   * the live chunk there instead of adding a second one.
   */
  protected override existingIdFor(body: VersionBody): string | undefined {
    const { source, sourceHash, chunkIndex } = body;
    if (body.type !== 'knowledge' || typeof sourceHash !== 'string' || typeof source !== 'string') return undefined;
    // Sync writes chunks without a user; knowledge saved for a user is someone's own, never a chunk's place.
    if (typeof chunkIndex !== 'number' || body.userId !== undefined) return undefined;
    // A document's chunks are written in one transaction: once its first one
    // here has no counterpart, neither has the rest, and the lookup (which
    // would read every chunk this transaction already gave the document) is
    // skipped for them.
    const { db } = this.ctx.store;
    const fresh = db.perTransaction(
      'fresh_documents',
      () => new Set<string>(),
      () => undefined,
    );
    const document = `${body.agentId}\0${source}`;
    if (fresh.has(document)) return undefined;
    const id = chunkAt(db, body.agentId, source, chunkIndex);
    if (id === undefined) fresh.add(document);
    return id;
  }

  /** Knowledge only merges with the same source; skills only with the same category. */
  protected sameKind(existing: EntityByType[T], input: InputByType[T]): boolean {
    if (existing.type === 'knowledge') return existing.source === (input as InputByType['knowledge']).source;
    return existing.category === ((input as InputByType['skill']).category ?? 'procedure');
  }
}
