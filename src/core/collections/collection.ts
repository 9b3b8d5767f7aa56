import { nodeCrypto } from '../crypto';
import { MemoryError } from '../errors';
import type { EventBus } from '../events';
import type { MiddlewarePipeline } from '../middleware';
import type { Embeddings } from '../search/hybrid';
import type { Searcher, SearchOptions, SearchResult, SearchScope } from '../search/searcher';
import { REF_STATE } from '../store/commits';
import { idsInState } from '../store/entity-queries';
import type { CommitLinks, EntityStore, VersionBody } from '../store/entity-store';
import { canonicalJson } from '../store/hashing';
import { bodyOf, entityFromBody } from '../store/object-body';
import type {
  Citation,
  CitationRequest,
  CommitInfo,
  Entity,
  EntityByType,
  EntityType,
  HistoryEntry,
  InputByType,
  Page,
  PageOptions,
  SaveItem,
  UpdateByType,
} from '../types';
import { isTeamType, TEAM_AGENT_ID } from '../types';
import { assertAgentFor, assertId, assertOptionalId, assertPage, isArray, validateInput } from '../validation';

/** What a collection needs from the store that owns it, and nothing more. */
export interface CollectionContext {
  store: EntityStore;
  events: EventBus;
  middleware: MiddlewarePipeline;
  /** Keyword search (deduplication uses it directly). */
  searcher: Searcher;
  /** The search collections answer with: keyword, or hybrid when embeddings are on. */
  search(scope: SearchScope, query: string, limit: number, options: SearchOptions): Promise<SearchResult[]>;
  /** Present when an embedder is configured: writes then carry vectors. */
  embeddings?: Embeddings;
  /** Similarity (0..1) at which saveOrUpdate treats new content as a duplicate. */
  dedupThreshold: number;
  /** Whether the write running now waits for review (by its writer, see review-policy.ts). */
  queued(): boolean;
  /** Citations as stored: those given as path and lines anchored to what the lines say (anchors/citations.ts). */
  anchor(citations: readonly (CitationRequest | Citation)[]): Citation[];
}

/** An input or update with its citations anchored; without any, the same object. */
function withAnchors<I extends object>(ctx: CollectionContext, input: I): I {
  const { citations } = input as { citations?: (CitationRequest | Citation)[] };
  return citations ? { ...input, citations: ctx.anchor(citations) } : input;
}

/** What a new entity of each type holds where its input says nothing. */
export const ENTITY_DEFAULTS: { [T in EntityType]: Partial<InputByType[T]> } = {
  memory: { tags: [], category: 'fact' },
  skill: { tags: [], category: 'procedure', status: 'active' },
  knowledge: { tags: [] },
  session: { content: '', mined: false },
  profile: { metadata: {} },
};

/** How an update is recorded in the history. */
export interface UpdateOptions {
  /**
   * The commit's message, where "update <type>" would say less than what
   * happened (the History view's Restore This Version: "restore version 2 of
   * …"). One line, at most MAX_MESSAGE characters.
   */
  message?: string;
}

const MAX_MESSAGE = 200;

function updateMessage(type: EntityType, message: unknown): string {
  if (message === undefined) return `update ${type}`;
  if (typeof message !== 'string' || !message.trim() || /[\r\n]/.test(message) || message.length > MAX_MESSAGE) {
    throw new MemoryError('INVALID_INPUT', `An update's message must be one line of 1 to ${MAX_MESSAGE} characters.`);
  }
  return message.trim();
}

export function newEntityId(type: EntityType): string {
  return `${type}-${Date.now().toString(36)}${nodeCrypto().randomUUID().slice(-12)}`;
}

function inputOf(entity: Entity): Record<string, unknown> {
  const { type: _type, agentId: _agent, userId: _user, ...input } = bodyOf(entity);
  return input;
}

type Result<T extends EntityType> = [EntityByType[T], CommitInfo];

interface PlannedSave {
  id: string;
  body: VersionBody;
}

/** What a held change to `target` proposes, against the version it was made on (see Review.approve). */
function proposalOf(action: 'update' | 'delete', target: string, base: string | null) {
  return { action, target, ...(base ? { base } : {}) };
}

/** A write that waits for review, or retires the memory it corrects: what its commit links to. */
function linksFor(
  body: VersionBody,
  queued: boolean,
  target?: { id: string; base: string | null },
): CommitLinks | undefined {
  if (queued)
    return { review: 'pending', ...(target ? { proposes: proposalOf('update', target.id, target.base) } : {}) };
  return typeof body.supersedes === 'string' ? { supersedes: body.supersedes } : undefined;
}

/**
 * One entity type's operations. Validation and middleware run first
 * (middleware may be async), then every write is one synchronous SQLite
 * transaction, then events fire: a handler can never see or cause a
 * half-made write.
 */
export class Collection<T extends EntityType> {
  constructor(
    protected readonly ctx: CollectionContext,
    readonly type: T,
  ) {}

  async save(agentId: string, userId: string | undefined, input: InputByType[T]): Promise<Result<T>> {
    const [result] = await this.saveMany([{ agentId, userId, input }], { single: true });
    // With `single`, a cancelled save throws instead of yielding null.
    return result as Result<T>;
  }

  /**
   * Saves every item in one transaction: all of them are stored or none.
   * Returns one result per item, in order; null where middleware cancelled it.
   */
  /** Fields a new entity of this type gets from the time it is saved, unless its input gives them. */
  protected defaultsAt(_time: string): Partial<VersionBody> {
    return {};
  }

  async saveMany(items: readonly SaveItem<T>[], mode: { single?: boolean } = {}): Promise<(Result<T> | null)[]> {
    if (!isArray(items)) throw new MemoryError('INVALID_INPUT', 'saveMany takes an array of items.');
    const time = this.ctx.store.timestamp();
    const planned: (PlannedSave | null)[] = [];
    for (const item of items) {
      const agentId = assertAgentFor(this.type, assertId(item?.agentId, 'agent id'));
      const userId = assertOptionalId(item.userId, 'user id');
      const input = withAnchors(this.ctx, validateInput(this.type, item.input));
      const id = newEntityId(this.type);
      const body = {
        type: this.type,
        agentId,
        ...(userId === undefined ? {} : { userId }),
        ...ENTITY_DEFAULTS[this.type],
        ...this.defaultsAt(time),
        ...input,
      } as VersionBody;
      // Secrets are dealt with once, after middleware (which could add one) and before embedding.
      if (!this.ctx.middleware.intercepts('beforeSave')) {
        planned.push({ id, body: this.ctx.store.guardBody(body) });
        continue;
      }
      const draft = entityFromBody(id, body, time, time);
      const transformed = await this.ctx.middleware.beforeSave(draft);
      if (!transformed) {
        if (mode.single) throw new MemoryError('CANCELLED', `A middleware cancelled saving this ${this.type}.`);
        planned.push(null);
        continue;
      }
      planned.push({ id, body: this.ctx.store.guardBody(transformed === draft ? body : this.revalidate(transformed)) });
    }
    const queued = this.ctx.queued();
    // Held writes get no vectors: they are not searchable until approved, when approval embeds them.
    const live = queued ? [] : planned.flatMap((plan) => (plan ? [plan.body] : []));
    const vectors = (await this.ctx.embeddings?.forBodies(live)) ?? [];
    const vectorOf = new Map(live.map((body, index) => [body, vectors[index]]));
    const results = this.ctx.store.db.transaction(() => {
      const written = planned.map((plan) => {
        if (!plan) return null;
        this.assertSupersedable(plan.body);
        const existingId = this.existingIdFor(plan.body);
        const existing = existingId ? (this.ctx.store.get(existingId) ?? undefined) : undefined;
        // A held change to an existing entity is a proposal of its own, which approval applies to it.
        const target = existing && !queued ? existing.id : plan.id;
        const updates = existing && !queued;
        const written = this.ctx.store.write({
          id: target,
          body: plan.body,
          op: updates ? 'update' : 'create',
          message: updates
            ? `update ${this.type}`
            : existing
              ? `propose update of ${existing.id}`
              : `create ${this.type}`,
          time,
          fresh: !updates,
          links: linksFor(
            plan.body,
            queued,
            existing ? { id: existing.id, base: this.ctx.store.readRef(existing.id)?.object ?? null } : undefined,
          ),
          guarded: true,
        });
        const vector = vectorOf.get(plan.body);
        if (vector && written.changed) this.ctx.embeddings?.store(target, plan.body, written.objectSeq, vector);
        const retired = queued ? undefined : this.retireSuperseded(plan.body, target);
        return { ...written, existing: updates ? existing : undefined, retired };
      });
      const changed = written.flatMap((result) => (result?.changed ? [result.entity.id] : []));
      if (changed.length) {
        this.ctx.store.log.record(
          mode.single ? 'save' : 'saveMany',
          this.type,
          changed,
          queued ? { review: 'pending' } : {},
        );
      }
      return written;
    });
    return results.map((result) => {
      if (!result) return null;
      if (result.retired) this.emitState(result.retired, 'superseded');
      if (queued) this.emitState(result.commit, 'pending');
      else if (result.changed) {
        if (result.existing)
          this.ctx.events.emit('entity:update', {
            entity: result.entity,
            previous: result.existing,
            commit: result.commit,
          });
        else this.ctx.events.emit('entity:save', { entity: result.entity, commit: result.commit });
      }
      return [result.entity as EntityByType[T], result.commit];
    });
  }

  /**
   * Where a save should land instead of a new entity. Only profiles (one per
   * agent and user) override it. Runs inside the write transaction.
   */
  protected existingIdFor(_body: VersionBody): string | undefined {
    return undefined;
  }

  async get(id: string): Promise<EntityByType[T] | null> {
    const entity = this.ctx.store.get(assertId(id));
    return entity && entity.type === this.type ? (entity as EntityByType[T]) : null;
  }

  async update(id: string, updates: UpdateByType[T], options: UpdateOptions = {}): Promise<Result<T>> {
    assertId(id);
    const message = updateMessage(this.type, options.message);
    let changes = withAnchors(this.ctx, validateInput(this.type, updates, true) as Record<string, unknown>);
    const current = this.requireLive(id);
    const transformed = await this.ctx.middleware.beforeUpdate(current, changes);
    if (!transformed) throw new MemoryError('CANCELLED', `A middleware cancelled the update of ${id}.`);
    if (transformed !== changes) changes = withAnchors(this.ctx, validateInput(this.type, transformed, true));
    // The stored version is clean, so guarding the changes guards the whole new version.
    changes = this.ctx.store.guardBody(changes);
    const expected = { ...bodyOf(current), ...changes } as VersionBody;
    validateInput(this.type, inputOf(entityFromBody(id, expected, '', '')));
    if (this.ctx.queued()) return this.propose(id, changes);
    const [vector] = (await this.ctx.embeddings?.forBodies([expected])) ?? [];
    const written = this.ctx.store.db.transaction(() => {
      // Re-read inside the transaction: another process may have written since.
      const latest = this.requireLive(id);
      const body = { ...bodyOf(latest), ...changes } as VersionBody;
      validateInput(this.type, inputOf(entityFromBody(id, body, '', '')));
      this.assertSupersedable(body, id);
      const result = this.ctx.store.write({
        id,
        body,
        op: 'update',
        message,
        links: linksFor(body, false),
        guarded: true,
      });
      const retired = result.changed ? this.retireSuperseded(body, id) : undefined;
      // The vector was made before the transaction; it fits only if nobody wrote in between.
      if (vector && result.changed && canonicalJson(body) === canonicalJson(expected)) {
        this.ctx.embeddings?.store(id, body, result.objectSeq, vector);
      }
      if (result.changed) this.ctx.store.log.record('update', this.type, [id]);
      return { ...result, previous: latest, retired };
    });
    if (written.retired) this.emitState(written.retired, 'superseded');
    // A chunk that only moved has no new version, but what shows its lines must show the new ones.
    if (written.changed || written.moved)
      this.ctx.events.emit('entity:update', {
        entity: written.entity,
        previous: written.previous,
        commit: written.commit,
      });
    return [written.entity as EntityByType[T], written.commit];
  }

  /**
   * A held update: a new entity holding the changed version, waiting for
   * review, that approval applies to `id`. The entity itself is unchanged
   * until then. Returns the proposal and its commit (review: pending).
   */
  private async propose(id: string, changes: Record<string, unknown>): Promise<Result<T>> {
    const proposal = newEntityId(this.type);
    const written = this.ctx.store.db.transaction(() => {
      const latest = this.requireLive(id);
      const body = { ...bodyOf(latest), ...changes } as VersionBody;
      this.assertSupersedable(body, id);
      const result = this.ctx.store.write({
        id: proposal,
        body,
        op: 'create',
        message: `propose update of ${id}`,
        fresh: true,
        links: { review: 'pending', proposes: proposalOf('update', id, this.ctx.store.readRef(id)?.object ?? null) },
        guarded: true,
      });
      this.ctx.store.log.record('propose', this.type, [proposal], { action: 'update', target: id });
      return result;
    });
    this.emitState(written.commit, 'pending');
    return [written.entity as EntityByType[T], written.commit];
  }

  /** A held delete: a proposal (a copy of the entity as it is) that approval carries out. */
  private proposeDelete(id: string): CommitInfo {
    const latest = this.requireLive(id);
    const proposal = newEntityId(this.type);
    const { commit } = this.ctx.store.write({
      id: proposal,
      body: bodyOf(latest),
      op: 'create',
      message: `propose delete of ${id}`,
      fresh: true,
      links: { review: 'pending', proposes: proposalOf('delete', id, this.ctx.store.readRef(id)?.object ?? null) },
    });
    return commit;
  }

  /**
   * A memory may name one it corrects (`supersedes`): another live memory of
   * the same agent and user. Anything else is refused before a write.
   */
  private assertSupersedable(body: VersionBody, self?: string): void {
    const target = body.supersedes;
    if (target === undefined) return;
    const fail = (why: string) =>
      new MemoryError('INVALID_SUPERSEDE', `This ${this.type} cannot supersede ${JSON.stringify(target)}: ${why}.`);
    if (typeof target !== 'string' || target === self) throw fail('it is not another entity');
    const ref = this.ctx.store.readRef(target);
    if (!ref || ref.state === REF_STATE.deleted) throw fail('there is no such entity');
    if (ref.type !== this.type) throw fail(`it is a ${ref.type}`);
    // A user's correction may retire a workspace-wide memory (one without a user): that user's
    // searches and recall show those too, so it is what they are correcting.
    const visible = ref.userId === body.userId || ref.userId === undefined;
    if (ref.agentId !== body.agentId || !visible) throw fail('it belongs to another agent or user');
    // Already superseded by this very correction (an update that keeps the link) is fine.
    if (ref.state !== REF_STATE.live && ref.state !== REF_STATE.superseded) throw fail('it is waiting for review');
  }

  /** Retires the memory `body` corrects, if it is still live; its commit is returned. */
  protected retireSuperseded(body: VersionBody, by: string): CommitInfo | undefined {
    if (typeof body.supersedes !== 'string') return undefined;
    const ref = this.ctx.store.readRef(body.supersedes);
    if (!ref || ref.state !== REF_STATE.live) return undefined;
    return this.ctx.store.changeState(ref, 'supersede', `superseded by ${by}`, { supersededBy: by });
  }

  /** Tells listeners an entity changed state: queued, approved, rejected, superseded or reinstated. */
  protected emitState(commit: CommitInfo, state: 'pending' | 'live' | 'rejected' | 'superseded'): void {
    this.ctx.events.emit('entity:state', { entityId: commit.entityId, entityType: this.type, state, commit });
  }

  /**
   * Puts a superseded memory back among the live ones (the undo of a
   * correction), as a new commit. NOT_FOUND when it is not superseded.
   */
  async reinstate(id: string): Promise<CommitInfo> {
    assertId(id);
    const commit = this.ctx.store.db.transaction(() => {
      const ref = this.ctx.store.readRef(id);
      if (!ref || ref.type !== this.type || ref.state !== REF_STATE.superseded) {
        throw new MemoryError('NOT_FOUND', `No superseded ${this.type} with id ${id}.`);
      }
      const made = this.ctx.store.changeState(ref, 'reinstate', `reinstate ${this.type}`);
      this.ctx.store.log.record('reinstate', this.type, [id]);
      return made;
    });
    this.emitState(commit, 'live');
    return commit;
  }

  /**
   * The entities of an agent that corrections retired, newest first, each
   * with the id of the one that superseded it: for the views, which show
   * them apart (search, recall and lists leave them out).
   */
  async superseded(agentId: string): Promise<{ entity: EntityByType[T]; supersededBy: string }[]> {
    const agent = assertId(agentId, 'agent id');
    return idsInState(this.ctx.store.db, REF_STATE.superseded, { agentId: agent, type: this.type }).flatMap((id) => {
      const found = this.ctx.store.getAny(id);
      if (!found?.head.supersededBy) return [];
      return [{ entity: found.entity as EntityByType[T], supersededBy: found.head.supersededBy }];
    });
  }

  async delete(id: string): Promise<CommitInfo> {
    const [commit] = await this.deleteMany([id], { single: true });
    return commit as CommitInfo;
  }

  /**
   * Deletes every id in one transaction; an unknown id aborts it all.
   * Returns one result per id, in order: null where middleware vetoed. A
   * repeated id is deleted once, and each of its places gets that commit.
   */
  async deleteMany(ids: readonly string[], mode: { single?: boolean } = {}): Promise<(CommitInfo | null)[]> {
    if (!isArray(ids)) throw new MemoryError('INVALID_INPUT', 'deleteMany takes an array of ids.');
    if (this.ctx.queued()) return this.proposeDeletes(ids);
    const allowed = new Map<string, boolean>();
    for (const id of ids) {
      // A repeated id (the CLI's `delete x x`) is checked, put to middleware and tombstoned once.
      if (allowed.has(id)) continue;
      assertId(id);
      this.requireLive(id);
      const ok = await this.ctx.middleware.beforeDelete(id, this.type);
      if (!ok && mode.single) throw new MemoryError('CANCELLED', `A middleware cancelled the delete of ${id}.`);
      allowed.set(id, ok);
    }
    const commits = this.ctx.store.db.transaction(() => {
      const tombstones = new Map<string, CommitInfo | null>();
      for (const [id, ok] of allowed) tombstones.set(id, ok ? this.tombstone(id) : null);
      const deleted = [...tombstones.values()].flatMap((commit) => (commit ? [commit.entityId] : []));
      if (deleted.length) this.ctx.store.log.record(mode.single ? 'delete' : 'deleteMany', this.type, deleted);
      return tombstones;
    });
    commits.forEach((commit) => {
      if (commit) this.ctx.events.emit('entity:delete', { entityId: commit.entityId, entityType: this.type, commit });
    });
    return ids.map((id) => commits.get(id) ?? null);
  }

  /** Held deletes: one proposal per distinct id, in one transaction; each place of an id gets its proposal's commit. */
  private async proposeDeletes(ids: readonly string[]): Promise<CommitInfo[]> {
    ids.forEach((id) => assertId(id));
    const commits = this.ctx.store.db.transaction(() => {
      const made = new Map<string, CommitInfo>();
      for (const id of ids) if (!made.has(id)) made.set(id, this.proposeDelete(id));
      const proposals = [...made.values()].map((commit) => commit.entityId);
      this.ctx.store.log.record('propose', this.type, proposals, { action: 'delete' });
      return made;
    });
    for (const commit of commits.values()) this.emitState(commit, 'pending');
    return ids.map((id) => commits.get(id)!);
  }

  async list(agentId: string, userId?: string): Promise<EntityByType[T][]> {
    return this.ctx.store.list(this.filter(agentId, userId)) as EntityByType[T][];
  }

  /**
   * A page of an agent's entities, newest first. `withTeam` adds the team
   * scope's memories and skills, which search and recall also hand every agent.
   */
  async listPaginated(
    agentId: string,
    userId?: string,
    options: PageOptions & { withTeam?: boolean } = {},
  ): Promise<Page<EntityByType[T]>> {
    const page = assertPage(options);
    const own = this.filter(agentId, userId);
    const team = options.withTeam === true && isTeamType(this.type) && own.agentId !== TEAM_AGENT_ID;
    const filter = team ? { ...own, alsoAgentId: TEAM_AGENT_ID } : own;
    const total = this.ctx.store.count(filter);
    const items = this.ctx.store.list(filter, page) as EntityByType[T][];
    return { items, total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total };
  }

  async count(agentId: string, userId?: string): Promise<number> {
    return this.ctx.store.count(this.filter(agentId, userId));
  }

  /** Every commit of the entity, newest first; still available after a delete. */
  async history(id: string): Promise<HistoryEntry<EntityByType[T]>[]> {
    const ref = this.ctx.store.readRef(assertId(id));
    if (ref && ref.type !== this.type) return [];
    return this.ctx.store.history(id) as HistoryEntry<EntityByType[T]>[];
  }

  /** Counts reads (recall, tools) without making a commit. Unknown ids are ignored. */
  async incrementAccess(ids: readonly string[]): Promise<void> {
    ids.forEach((id) => assertId(id));
    this.ctx.store.db.transaction(() =>
      this.ctx.store.access.increment(ids.filter((id) => this.ctx.store.readRef(id))),
    );
  }

  async accessCount(id: string): Promise<number> {
    return this.ctx.store.access.of(assertId(id));
  }

  protected filter(agentId: string, userId: string | undefined) {
    return { type: this.type, agentId: assertId(agentId, 'agent id'), userId: assertOptionalId(userId, 'user id') };
  }

  protected requireLive(id: string): Entity {
    const entity = this.ctx.store.get(id);
    if (!entity || entity.type !== this.type) throw this.notFound(id);
    return entity;
  }

  /** Must run in the delete's transaction: another process may have deleted the entity since it was checked. */
  private tombstone(id: string): CommitInfo {
    const ref = this.ctx.store.readRef(id);
    if (!ref || ref.deleted || ref.type !== this.type) throw this.notFound(id);
    return this.ctx.store.tombstone(ref, `delete ${this.type}`);
  }

  private notFound(id: string): MemoryError {
    return new MemoryError('NOT_FOUND', `No ${this.type} with id ${id}.`);
  }

  /** Middleware may rewrite an entity; what it returns must still be valid. */
  private revalidate(entity: Entity): VersionBody {
    if (entity.type !== this.type)
      throw new MemoryError('INVALID_INPUT', `A middleware changed the type of a ${this.type}.`);
    assertAgentFor(this.type, assertId(entity.agentId, 'agent id'));
    assertOptionalId(entity.userId, 'user id');
    const input = withAnchors(this.ctx, validateInput(this.type, inputOf(entity)));
    return {
      type: this.type,
      agentId: entity.agentId,
      ...(entity.userId === undefined ? {} : { userId: entity.userId }),
      ...input,
    };
  }
}
