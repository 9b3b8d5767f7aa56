import { isMemoryError, MemoryError } from '../errors';
import { asWriter } from '../provenance';
import type {
  CommitInfo,
  KnowledgeEntity,
  KnowledgeInput,
  MemoryCategory,
  MemoryEntity,
  MemoryInput,
  SkillCategory,
  SkillEntity,
  SkillInput,
} from '../types';
import { packItems } from './chunking';
import {
  CONSOLIDATION_FORMAT,
  CONSOLIDATION_INPUT_OVERHEAD,
  type ConsolidationAnswer,
  consolidationInput,
  consolidationInstructions,
  consolidationSchema,
  type ConsolidationTarget,
  entryLine,
  type ReviewedEntity,
} from './consolidation-prompt';
import type { AiProvider } from './provider';
import { askStructured, inputBudget } from './structured';

export type { ConsolidationTarget } from './consolidation-prompt';

/** What consolidation needs from one collection. */
export interface ConsolidationCollection<E, U> {
  /** With a user: that user's entities; without: every entity of the agent. */
  list(agentId: string, userId?: string): Promise<E[]>;
  get(id: string): Promise<E | null>;
  update(id: string, changes: U): Promise<[E, CommitInfo]>;
  /** All in one transaction; null where a middleware kept the entity. */
  deleteMany(ids: readonly string[]): Promise<(CommitInfo | null)[]>;
}

/** What consolidation reads and writes; a `Memory` satisfies it. */
export interface ConsolidationStore {
  memories: ConsolidationCollection<MemoryEntity, Partial<MemoryInput>>;
  skills: ConsolidationCollection<SkillEntity, Partial<SkillInput>>;
  knowledge: ConsolidationCollection<KnowledgeEntity, Partial<KnowledgeInput>>;
}

export interface ConsolidationOptions {
  target: ConsolidationTarget;
  agentId: string;
  /** Memories only: consolidate this user's. Without it, each user's memories are consolidated separately. */
  userId?: string;
  /** Plan only: ask the model, write nothing. */
  dryRun?: boolean;
  /** Characters per model request, instructions included; default 16,000 (about 4,000 tokens). */
  maxRequestChars?: number;
  /** Most entries shown to the model at once; default 40. */
  maxBatchItems?: number;
  /** Answers the model may give per request (the first plus retries); default 2. */
  attempts?: number;
  signal?: AbortSignal;
  /** Called after each batch the model reviewed. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

export interface PlannedMerge {
  /** The entities merged; the first is updated with the merged entry, the others deleted. */
  ids: string[];
  content: string;
  tags: string[];
  category?: string;
  reason: string;
}

export interface PlannedDeletion {
  id: string;
  content: string;
  reason: string;
}

/** A model proposal refused before anything was written. */
export interface RejectedAction {
  action: 'merge' | 'outdated';
  ids: string[];
  /** Why it was refused. */
  reason: string;
  /** Why the model proposed it. */
  proposedBecause: string;
}

export interface ConsolidationPlan {
  target: ConsolidationTarget;
  agentId: string;
  userId?: string;
  /** Entities shown to the model. */
  reviewed: number;
  /** Requests the model answered (one per batch). */
  requests: number;
  merges: PlannedMerge[];
  deletions: PlannedDeletion[];
  rejected: RejectedAction[];
  /** Entities not shown to the model, with the reason. */
  skipped: { id: string; reason: string }[];
  /** Knowledge chunks of synced documents, left alone: the next sync would undo any change to them. */
  documentChunks: number;
  /** When each entity an action touches was last updated, as planned: apply skips actions on changed ones. */
  seen: Record<string, string>;
}

export interface AppliedMerge {
  /** The entity that now holds the merged entry. */
  id: string;
  /** Deleted into it. */
  removedIds: string[];
  commit: string;
  /** Reverting `id` to this commit, and restoring `removedIds` from their history, undoes the merge. */
  previousCommit: string | null;
}

export interface ConsolidationReport {
  dryRun: boolean;
  plan: ConsolidationPlan;
  merged: AppliedMerge[];
  deleted: { id: string; reason: string }[];
  /** Planned actions that could not be carried out, with the reason. */
  notApplied: { action: 'merge' | 'outdated'; ids: string[]; reason: string }[];
  /** How many of the writes wait for a person's review (consolidation's do by default): counted in `merged`/`deleted` all the same. */
  pendingReview: number;
}

const DEFAULT_MAX_REQUEST_CHARS = 16_000;
const DEFAULT_MAX_BATCH_ITEMS = 40;

/** Plans with the model, then (unless `dryRun`) applies the plan. */
export async function consolidate(
  store: ConsolidationStore,
  ai: AiProvider,
  options: ConsolidationOptions,
): Promise<ConsolidationReport> {
  const plan = await planConsolidation(store, ai, options);
  if (options.dryRun) return { dryRun: true, plan, merged: [], deleted: [], notApplied: [], pendingReview: 0 };
  if (options.signal?.aborted) {
    throw new MemoryError('CANCELLED', 'Consolidation was cancelled before anything was written.');
  }
  return applyConsolidationPlan(store, plan);
}

/**
 * Shows the model the entities in batches that fit a request and collects
 * its merges and deletions. Every action naming an id that was not in its
 * batch (invented, mistyped, or from another batch) or already used by an
 * earlier action is rejected whole. Writes nothing.
 */
export async function planConsolidation(
  store: ConsolidationStore,
  ai: AiProvider,
  options: ConsolidationOptions,
): Promise<ConsolidationPlan> {
  const { target, agentId, userId } = options;
  const plan: ConsolidationPlan = {
    target,
    agentId,
    ...(userId === undefined || target !== 'memory' ? {} : { userId }),
    reviewed: 0,
    requests: 0,
    merges: [],
    deletions: [],
    rejected: [],
    skipped: [],
    documentChunks: 0,
    seen: {},
  };
  const listed = await collectionFor(store, target).list(agentId, target === 'memory' ? userId : undefined);
  const reviewable = listed.filter((entity) => !(target === 'knowledge' && entity.sourceHash));
  plan.documentChunks = listed.length - reviewable.length;

  const instructions = consolidationInstructions(target);
  const budget =
    inputBudget(instructions, CONSOLIDATION_FORMAT, options.maxRequestChars ?? DEFAULT_MAX_REQUEST_CHARS) -
    CONSOLIDATION_INPUT_OVERHEAD;
  const batches: ReviewedEntity[][] = [];
  for (const group of byUser(reviewable)) {
    const packed = packItems(
      group,
      (entity) => entryLine(entity).length,
      budget,
      options.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS,
    );
    batches.push(...packed.batches);
    plan.skipped.push(
      ...packed.oversized.map((entity) => ({ id: entity.id, reason: 'too long to review within maxRequestChars' })),
    );
  }
  // A lone entry has nothing to be merged with or superseded by.
  const useful = batches.filter((batch) => batch.length > 1);
  const used = new Set<string>();
  for (const [index, batch] of useful.entries()) {
    const answer = await askStructured({
      ai,
      instructions,
      format: CONSOLIDATION_FORMAT,
      input: consolidationInput(batch.map(entryLine)),
      schema: consolidationSchema(target),
      attempts: options.attempts,
      signal: options.signal,
    });
    plan.requests++;
    plan.reviewed += batch.length;
    vet(answer, new Map(batch.map((entity) => [entity.id, entity])), used, plan);
    options.onProgress?.({ done: index + 1, total: useful.length });
  }
  return plan;
}

/**
 * Carries out a plan: each merge updates its first entity (so its history
 * keeps the versions merged), then every entity merged away or outdated is
 * deleted in one transaction, as tombstones. Updates go first so that a
 * failure never loses content. An action on an entity changed or deleted
 * since the plan was made is left out and reported.
 */
export async function applyConsolidationPlan(
  store: ConsolidationStore,
  plan: ConsolidationPlan,
  options: { reviewed?: boolean } = {},
): Promise<ConsolidationReport> {
  // A plan a person read before applying it is reviewed: its writes do not wait again.
  return asWriter('consolidation', () => writePlan(store, plan), { confirmed: options.reviewed });
}

async function writePlan(store: ConsolidationStore, plan: ConsolidationPlan): Promise<ConsolidationReport> {
  const collection = collectionFor(store, plan.target);
  const report: ConsolidationReport = {
    dryRun: false,
    plan,
    merged: [],
    deleted: [],
    notApplied: [],
    pendingReview: 0,
  };
  const toDelete: { id: string; reason: string; action: 'merge' | 'outdated' }[] = [];

  for (const merge of plan.merges) {
    const changed = await firstChanged(collection, merge.ids, plan.seen);
    if (changed) {
      report.notApplied.push({ action: 'merge', ids: merge.ids, reason: changed });
      continue;
    }
    const [keep, ...rest] = merge.ids as [string, ...string[]];
    try {
      const [, commit] = await collection.update(keep, merge);
      if (commit.review === 'pending') report.pendingReview++;
      report.merged.push({ id: keep, removedIds: rest, commit: commit.hash, previousCommit: commit.parent });
      toDelete.push(...rest.map((id) => ({ id, reason: `merged into ${keep}`, action: 'merge' as const })));
    } catch (error) {
      if (!isMemoryError(error)) throw error;
      report.notApplied.push({ action: 'merge', ids: merge.ids, reason: error.message });
    }
  }
  for (const deletion of plan.deletions) {
    const changed = await firstChanged(collection, [deletion.id], plan.seen);
    if (changed) report.notApplied.push({ action: 'outdated', ids: [deletion.id], reason: changed });
    else toDelete.push({ ...deletion, action: 'outdated' });
  }
  if (toDelete.length === 0) return report;

  try {
    const commits = await collection.deleteMany(toDelete.map((item) => item.id));
    toDelete.forEach((item, index) => {
      if (commits[index]?.review === 'pending') report.pendingReview++;
      if (commits[index]) report.deleted.push({ id: item.id, reason: item.reason });
      else report.notApplied.push({ action: item.action, ids: [item.id], reason: 'a middleware kept it' });
    });
  } catch (error) {
    if (!isMemoryError(error)) throw error;
    // deleteMany is all or nothing: none of them was deleted.
    for (const item of toDelete) report.notApplied.push({ action: item.action, ids: [item.id], reason: error.message });
  }
  return report;
}

/** Keeps the actions of one batch's answer whose ids were all shown in that batch and are not used yet. */
function vet(
  answer: ConsolidationAnswer,
  batch: ReadonlyMap<string, ReviewedEntity>,
  used: Set<string>,
  plan: ConsolidationPlan,
): void {
  const problem = (ids: readonly string[]): string | undefined => {
    const unknown = ids.filter((id) => !batch.has(id));
    if (unknown.length) return `names ids that were not in the batch shown: ${unknown.join(', ')}`;
    const taken = ids.filter((id) => used.has(id));
    if (taken.length) return `names ids already used by an earlier action: ${taken.join(', ')}`;
    return undefined;
  };
  const accept = (ids: readonly string[]) =>
    ids.forEach((id) => {
      used.add(id);
      plan.seen[id] = batch.get(id)!.updatedAt;
    });

  for (const merge of answer.merge) {
    const ids = [...new Set(merge.ids)];
    const reason = problem(ids) ?? (ids.length < 2 ? 'a merge needs at least two different ids' : undefined);
    if (reason) {
      plan.rejected.push({ action: 'merge', ids: merge.ids, reason, proposedBecause: merge.reason });
      continue;
    }
    accept(ids);
    const first = batch.get(ids[0]!)!;
    plan.merges.push({
      ids,
      content: merge.content,
      // Without tags from the model, the merged entry keeps every tag of the group.
      tags: merge.tags ?? [...new Set(ids.flatMap((id) => batch.get(id)!.tags))],
      ...((merge.category ?? first.category) ? { category: merge.category ?? first.category } : {}),
      reason: merge.reason,
    });
  }
  for (const outdated of answer.outdated) {
    const reason = problem([outdated.id]);
    if (reason) {
      plan.rejected.push({ action: 'outdated', ids: [outdated.id], reason, proposedBecause: outdated.reason });
      continue;
    }
    accept([outdated.id]);
    plan.deletions.push({ id: outdated.id, content: batch.get(outdated.id)!.content, reason: outdated.reason });
  }
}

/** Why an action can no longer be applied, if one of its entities is gone or changed since planning. */
async function firstChanged(
  collection: UniformCollection,
  ids: readonly string[],
  seen: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  for (const id of ids) {
    const current = await collection.get(id);
    if (!current) return `${id} no longer exists`;
    if (current.updatedAt !== seen[id]) return `${id} changed since the plan was made`;
  }
  return undefined;
}

/** Memories of different users are never merged: each user's are batched apart, related ones together. */
function byUser(entities: readonly ReviewedEntity[]): ReviewedEntity[][] {
  const groups = new Map<string, ReviewedEntity[]>();
  for (const entity of entities) {
    const key = entity.userId ?? '';
    groups.set(key, [...(groups.get(key) ?? []), entity]);
  }
  // Sorting by category, source and first tag puts likely duplicates in the same batch.
  const key = (entity: ReviewedEntity) =>
    `${entity.category ?? ''}\u0000${entity.source ?? ''}\u0000${entity.tags[0] ?? ''}`;
  return [...groups.values()].map((group) => [...group].sort((a, b) => key(a).localeCompare(key(b))));
}

/** One shape for the three collections, so the pipeline needs no per-type branches. */
interface UniformCollection {
  list(agentId: string, userId?: string): Promise<ReviewedEntity[]>;
  get(id: string): Promise<ReviewedEntity | null>;
  update(id: string, changes: { content: string; tags: string[]; category?: string }): Promise<[unknown, CommitInfo]>;
  deleteMany(ids: readonly string[]): Promise<(CommitInfo | null)[]>;
}

function collectionFor(store: ConsolidationStore, target: ConsolidationTarget): UniformCollection {
  const from = <E extends ReviewedEntity, U>(
    collection: ConsolidationCollection<E, U>,
    changes: (merged: { content: string; tags: string[]; category?: string }) => U,
  ): UniformCollection => ({
    list: (agentId, userId) => collection.list(agentId, userId),
    get: (id) => collection.get(id),
    update: (id, merged) => collection.update(id, changes(merged)),
    deleteMany: (ids) => collection.deleteMany(ids),
  });
  // Categories were checked against the target's list by the answer's schema.
  if (target === 'memory') {
    return from(store.memories, ({ content, tags, category }) => ({
      content,
      tags,
      ...(category ? { category: category as MemoryCategory } : {}),
    }));
  }
  if (target === 'skill') {
    return from(store.skills, ({ content, tags, category }) => ({
      content,
      tags,
      ...(category ? { category: category as SkillCategory } : {}),
    }));
  }
  return from(store.knowledge, ({ content, tags }) => ({ content, tags }));
}
