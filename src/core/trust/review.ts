import { MemoryError } from '../errors';
import type { EventBus } from '../events';
import { type Provenance, withProvenance } from '../provenance';
import { REF_STATE } from '../store/commits';
import type { RefRow } from '../store/entity-queries';
import { countInState, idsInState } from '../store/entity-queries';
import type { EntityStore, VersionBody } from '../store/entity-store';
import { bodyOf } from '../store/object-body';
import type { CommitInfo, Entity, EntityType } from '../types';
import { ENTITY_TYPES } from '../types';
import { assertId, isArray, validateInput } from '../validation';

/** One write waiting for review: what it would store, who wrote it, and what it would change. */
export interface PendingItem {
  entity: Entity;
  /** The commit that queued it: its `by` says who wrote it, `proposes` what it would do to another entity. */
  commit: CommitInfo;
  /** For a proposed update or delete: the entity as it is now (null if it is gone since). */
  target?: Entity | null;
}

export interface ReviewFilter {
  agentId?: string;
  type?: EntityType;
}

/** What one approval or rejection did. */
export interface ReviewOutcome {
  id: string;
  /** approved: a new entity went live; applied: a proposal changed or deleted its target; rejected. */
  outcome: 'approved' | 'applied' | 'rejected';
  /** The entity that changed: the new one, or the proposal's target. */
  entityId: string;
  commit: CommitInfo;
}

const MAX_BATCH = 10_000;

function conflict(id: string, target: string, why: string): MemoryError {
  return new MemoryError(
    'REVIEW_CONFLICT',
    `${id} cannot be applied to ${target}: ${why}. Approve it with the fields set to what ${target} should hold, or reject it.`,
  );
}

/**
 * The review queue: writes that no person saw (MCP clients, mining,
 * consolidation, by default) wait here, kept with their history and
 * provenance but out of search, recall and every agent tool, until a person
 * approves (a commit by that person) or rejects them. Approving is for
 * people: no agent tool does it.
 */
export class Review {
  constructor(
    private readonly store: EntityStore,
    private readonly events: EventBus,
  ) {}

  /** The writes waiting for review, newest first. */
  async list(filter: ReviewFilter = {}): Promise<PendingItem[]> {
    if (filter.type !== undefined && !ENTITY_TYPES.includes(filter.type)) {
      throw new MemoryError('UNKNOWN_TYPE', `Unknown entity type ${JSON.stringify(filter.type)}.`);
    }
    const agentId = filter.agentId === undefined ? undefined : assertId(filter.agentId, 'agent id');
    const items: PendingItem[] = [];
    for (const id of idsInState(this.store.db, REF_STATE.pending, { agentId, type: filter.type })) {
      const found = this.store.getAny(id);
      if (!found) continue;
      const target = found.head.proposes ? (this.store.get(found.head.proposes.target) ?? null) : undefined;
      items.push({ entity: found.entity, commit: found.head, ...(target === undefined ? {} : { target }) });
    }
    return items;
  }

  async count(filter: ReviewFilter = {}): Promise<number> {
    return countInState(this.store.db, REF_STATE.pending, filter);
  }

  /**
   * Approves pending writes, all or none. `changes` (one id only) edits the
   * content first, as the person reviewing saw fit. A new entity goes live;
   * a proposal is applied to its target and closed.
   */
  async approve(ids: readonly string[], changes?: Record<string, unknown>): Promise<ReviewOutcome[]> {
    this.assertIds(ids);
    if (changes !== undefined && ids.length !== 1) {
      throw new MemoryError('INVALID_INPUT', 'Changes can be made while approving one write at a time.');
    }
    const announce: (() => void)[] = [];
    const outcomes = this.store.db.transaction(() => {
      const made = ids.map((id) => this.approveOne(id, changes, announce));
      this.store.log.record('approve', null, ids);
      return made;
    });
    // Events fire once the transaction is in: a handler never sees a half-made approval.
    announce.forEach((emit) => emit());
    return outcomes;
  }

  /** Turns pending writes down, all or none: each is deleted with a commit saying so; its history stays. */
  async reject(ids: readonly string[]): Promise<ReviewOutcome[]> {
    this.assertIds(ids);
    const outcomes = this.store.db.transaction(() => {
      const made = ids.map((id): ReviewOutcome & { type: EntityType } => {
        const ref = this.pendingRef(id);
        const commit = this.store.tombstone(ref, `reject ${ref.type}`, { review: 'rejected' });
        return { id, outcome: 'rejected', entityId: id, commit, type: ref.type };
      });
      this.store.log.record('reject', null, ids);
      return made;
    });
    for (const { type, ...outcome } of outcomes) {
      this.events.emit('entity:state', {
        entityId: outcome.id,
        entityType: type,
        state: 'rejected',
        commit: outcome.commit,
      });
    }
    return outcomes.map(({ type: _type, ...outcome }) => outcome);
  }

  /** Everything waiting (for one agent, if given), approved or rejected together. */
  async approveAll(filter: ReviewFilter = {}): Promise<ReviewOutcome[]> {
    return this.approve(idsInState(this.store.db, REF_STATE.pending, filter).slice(0, MAX_BATCH));
  }

  async rejectAll(filter: ReviewFilter = {}): Promise<ReviewOutcome[]> {
    return this.reject(idsInState(this.store.db, REF_STATE.pending, filter).slice(0, MAX_BATCH));
  }

  private assertIds(ids: readonly string[]): void {
    if (!isArray(ids) || ids.length === 0) throw new MemoryError('INVALID_INPUT', 'Name at least one pending write.');
    if (ids.length > MAX_BATCH) throw new MemoryError('LIMIT_TOO_LARGE', `At most ${MAX_BATCH} writes at a time.`);
    if (new Set(ids).size !== ids.length) throw new MemoryError('INVALID_INPUT', 'An id is named twice.');
    ids.forEach((id) => assertId(id));
  }

  private pendingRef(id: string): RefRow {
    const ref = this.store.readRef(id);
    if (!ref || ref.state !== REF_STATE.pending) {
      throw new MemoryError(
        'NOT_PENDING',
        ref ? `${id} is not waiting for review.` : `No entity with id ${id} (nothing waits for review under it).`,
      );
    }
    return ref;
  }

  private approveOne(
    id: string,
    changes: Record<string, unknown> | undefined,
    announce: (() => void)[],
  ): ReviewOutcome {
    const ref = this.pendingRef(id);
    const found = this.store.getAny(id);
    if (!found) throw new MemoryError('STORE_CORRUPT', `The pending ${ref.type} ${id} cannot be read. Run verify.`);
    let body = bodyOf(found.entity);
    if (changes !== undefined) {
      const edited = validateInput(ref.type, changes, true) as Record<string, unknown>;
      body = { ...body, ...edited };
      const { type: _t, agentId: _a, userId: _u, ...input } = body;
      validateInput(ref.type, input);
    }
    const proposes = found.head.proposes;
    if (!proposes) {
      const written = changes
        ? this.store.write({ id, body, op: 'approve', message: `approve ${ref.type} (edited)` })
        : undefined;
      const commit = written?.commit ?? this.store.changeState(ref, 'approve', `approve ${ref.type}`);
      this.retireCorrected(id, body, announce);
      announce.push(() =>
        this.events.emit('entity:state', { entityId: id, entityType: ref.type, state: 'live', commit }),
      );
      return { id, outcome: 'approved', entityId: id, commit };
    }
    const target = this.store.readRef(proposes.target);
    if (!target || target.state !== REF_STATE.live) {
      throw new MemoryError(
        'NOT_FOUND',
        `${id} proposes to ${proposes.action} ${proposes.target}, which is no longer there: reject it instead.`,
      );
    }
    const previous = this.store.get(target.id)!;
    // The change is the proposal's writer's, approved by the person approving now: recorded so, it
    // shows who wrote it, and reverting that writer undoes it.
    const approvedBy = this.store.currentWriter();
    const asProposed = <T>(work: () => T): T => withProvenance(found.head.by as Provenance, work);
    let commit: CommitInfo;
    if (proposes.action === 'delete') {
      if (proposes.base && target.object !== proposes.base) {
        throw new MemoryError(
          'REVIEW_CONFLICT',
          `${id} proposes to delete ${target.id}, which was changed after that was proposed: reject it, or delete ${target.id} yourself.`,
        );
      }
      commit = asProposed(() => this.store.tombstone(target, `delete ${target.type} (approved ${id})`, { approvedBy }));
      announce.push(() => this.events.emit('entity:delete', { entityId: target.id, entityType: target.type, commit }));
    } else {
      const merged = this.onto(previous, body, proposes.base, id, new Set(Object.keys(changes ?? {})));
      const written = asProposed(() =>
        this.store.write({
          id: target.id,
          body: merged,
          op: 'update',
          message: `update ${target.type} (approved ${id})`,
          links: { approvedBy },
        }),
      );
      commit = written.commit;
      this.retireCorrected(target.id, body, announce);
      announce.push(() => this.events.emit('entity:update', { entity: written.entity, previous, commit }));
    }
    // The proposal is done with: closed, its history kept.
    const closed = this.store.tombstone(ref, `applied to ${target.id}`);
    announce.push(() =>
      this.events.emit('entity:state', { entityId: id, entityType: ref.type, state: 'rejected', commit: closed }),
    );
    return { id, outcome: 'applied', entityId: target.id, commit };
  }

  /**
   * The proposed version applied to the target as it is now. Made against
   * the version it is based on; if the target changed since, only the fields
   * the proposal changes are applied, and a field both changed differently
   * is a REVIEW_CONFLICT: approving must never undo someone's later edit.
   */
  private onto(
    current: Entity,
    proposed: VersionBody,
    base: string | undefined,
    id: string,
    edited: ReadonlySet<string>,
  ): VersionBody {
    const now = bodyOf(current);
    if (!base || this.store.readRef(current.id)?.object === base) return proposed;
    const before = this.store.bodyByHash(base, current.id);
    if (!before) throw conflict(id, current.id, 'the version it was proposed against cannot be read');
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const merged: Record<string, unknown> = { ...now };
    for (const key of new Set([...Object.keys(before), ...Object.keys(proposed)])) {
      if (same(proposed[key], before[key]) && !edited.has(key)) continue;
      // A field the person approving set is their decision, whatever changed since.
      if (!edited.has(key) && !same(now[key], before[key]) && !same(now[key], proposed[key])) {
        throw conflict(id, current.id, `its ${key} was changed after this was proposed`);
      }
      if (proposed[key] === undefined) delete merged[key];
      else merged[key] = proposed[key];
    }
    return merged as VersionBody;
  }

  /** An approved correction retires the memory it names, as a live save would have. */
  private retireCorrected(id: string, body: Record<string, unknown>, announce: (() => void)[]): void {
    const corrected = typeof body.supersedes === 'string' ? this.store.readRef(body.supersedes) : undefined;
    if (corrected?.state !== REF_STATE.live) return;
    const commit = this.store.changeState(corrected, 'supersede', `superseded by ${id}`, { supersededBy: id });
    announce.push(() =>
      this.events.emit('entity:state', {
        entityId: corrected.id,
        entityType: corrected.type,
        state: 'superseded',
        commit,
      }),
    );
  }
}
