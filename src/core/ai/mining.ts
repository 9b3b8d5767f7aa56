import { anchorCitation } from '../anchors/citations';
import { normalCitedPath, type WorkspaceFolder } from '../anchors/workspace-paths';
import { isMemoryError, MemoryError } from '../errors';
import { asWriter } from '../provenance';
import { textSimilarity } from '../search/dedup';
import type {
  CitationRequest,
  CommitInfo,
  MemoryCategory,
  MemoryEntity,
  MemoryInput,
  ProfileEntity,
  ProfileInput,
  SessionEntity,
  SkillCategory,
  SkillEntity,
  SkillInput,
} from '../types';
import { LIMITS } from '../validation';
import { packText } from './chunking';
import {
  MINING_FORMAT,
  MINING_INPUT_OVERHEAD,
  MINING_INSTRUCTIONS,
  type MiningAnswer,
  miningInput,
  miningSchema,
  transcriptUnits,
} from './mining-prompt';
import type { AiProvider } from './provider';
import { askStructured, inputBudget } from './structured';

/** What mining reads and writes; a `Memory` satisfies it. */
export interface MiningStore {
  sessions: {
    get(id: string): Promise<SessionEntity | null>;
    markMined(id: string): Promise<unknown>;
  };
  memories: {
    search(
      agentId: string,
      userId: string | undefined,
      query: string,
      limit: number,
    ): Promise<{ entity: MemoryEntity }[]>;
    saveOrUpdate(
      agentId: string,
      userId: string | undefined,
      input: MemoryInput,
    ): Promise<[MemoryEntity, CommitInfo, { deduplicated: boolean }]>;
  };
  skills: {
    search(agentId: string, query: string, limit: number): Promise<{ entity: SkillEntity }[]>;
    saveOrUpdate(agentId: string, input: SkillInput): Promise<[SkillEntity, CommitInfo, { deduplicated: boolean }]>;
  };
  profiles: {
    getByUser(agentId: string, userId: string): Promise<ProfileEntity | null>;
    save(agentId: string, userId: string, input: ProfileInput): Promise<[ProfileEntity, CommitInfo]>;
    update(id: string, changes: Partial<ProfileInput>): Promise<[ProfileEntity, CommitInfo]>;
  };
}

export interface MiningOptions {
  /** Plan only: ask the model, write nothing. */
  dryRun?: boolean;
  /** Mine a session already marked as mined. */
  force?: boolean;
  /** Characters per model request, instructions included; default 16,000 (about 4,000 tokens). */
  maxRequestChars?: number;
  /** Answers the model may give per request (the first plus retries); default 2. */
  attempts?: number;
  /** Similarity (0..1) from which two items count as the same; default 0.7, as the store's dedup. */
  dedupThreshold?: number;
  signal?: AbortSignal;
  /** Called after each request to the model. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** The folders the store resolves citations against (see ApplyOptions). */
  workspaceFolders?: readonly WorkspaceFolder[];
}

/** How a plan is written. */
export interface ApplyOptions {
  /**
   * The folders the store resolves citations against, as given to
   * Memory.open: each citation the model gave is checked against them on its
   * own, and only those that do not anchor are dropped. Without them the
   * store's check on save decides for an item's citations together.
   */
  workspaceFolders?: readonly WorkspaceFolder[];
}

/** An item the model proposed, with the stored entity it would update, if any. */
export interface PlannedItem<C extends string> {
  content: string;
  category: C;
  tags: string[];
  /** Lines of workspace files the model cited, unchecked until written (none when left out). */
  citations?: CitationRequest[];
  /** A near-duplicate already stored: saveOrUpdate will give it a new version instead of adding a twin. */
  existing?: { id: string; similarity: number };
}

export interface MiningSkip {
  kind: 'memory' | 'skill' | 'profile' | 'session';
  content: string;
  reason: string;
}

export interface MiningPlan {
  sessionId: string;
  agentId: string;
  userId?: string;
  /** How many requests the model answered (one per piece of the session). */
  requests: number;
  memories: PlannedItem<MemoryCategory>[];
  skills: PlannedItem<SkillCategory>[];
  /** New facts for the user's profile (none when the session has no user). */
  profileFacts: string[];
  skipped: MiningSkip[];
}

/** An entity mining created; deleting it undoes that. */
export interface MinedEntity {
  type: 'memory' | 'skill' | 'profile';
  id: string;
  content: string;
}

/** An existing entity mining gave a new version; reverting to `previousCommit` undoes that. */
export interface MinedUpdate extends MinedEntity {
  commit: string;
  previousCommit: string | null;
}

export interface MiningReport {
  sessionId: string;
  dryRun: boolean;
  plan: MiningPlan;
  created: MinedEntity[];
  updated: MinedUpdate[];
  /** What the plan left out, and what failed to be written, each with its reason. */
  skipped: MiningSkip[];
  /** False on a dry run, or when a write failed (so the session can be mined again). */
  markedMined: boolean;
  /** How many of the writes wait for a person's review (mining's writes do by default): listed in `created`/`updated` all the same. */
  pendingReview: number;
  /**
   * Citations the model gave that were left out of the items written: those
   * that do not anchor in the workspace (a missing file, lines beyond its
   * end, a path outside it) and any beyond the store's limit per item. Their
   * items were written all the same. Zero on a dry run: citations are
   * checked as they are written.
   */
  droppedCitations: number;
}

const DEFAULT_MAX_REQUEST_CHARS = 16_000;
const DEFAULT_DEDUP_THRESHOLD = 0.7;
/** From this similarity an item repeats a stored one outright: a new version would change nothing of use. */
const SAME_TEXT = 0.95;
const EXISTING_CANDIDATES = 5;

/**
 * Mines a session into memories, skills and profile facts: plans with the
 * model, then (unless `dryRun`) writes the plan and marks the session mined.
 */
export async function mineSession(
  store: MiningStore,
  ai: AiProvider,
  sessionId: string,
  options: MiningOptions = {},
): Promise<MiningReport> {
  const plan = await planMining(store, ai, sessionId, options);
  if (options.dryRun) {
    return {
      sessionId,
      dryRun: true,
      plan,
      created: [],
      updated: [],
      skipped: plan.skipped,
      markedMined: false,
      pendingReview: 0,
      droppedCitations: 0,
    };
  }
  if (options.signal?.aborted) throw new MemoryError('CANCELLED', 'Mining was cancelled before anything was written.');
  return applyMiningPlan(store, plan, { workspaceFolders: options.workspaceFolders });
}

/**
 * Asks the model about each piece of the session, then merges the answers:
 * repeats within the session are folded together and items already stored
 * are marked (or dropped when they add nothing). Writes nothing.
 */
export async function planMining(
  store: MiningStore,
  ai: AiProvider,
  sessionId: string,
  options: MiningOptions = {},
): Promise<MiningPlan> {
  const session = await store.sessions.get(sessionId);
  if (!session) throw new MemoryError('NOT_FOUND', `No session with id ${sessionId}.`);
  const threshold = options.dedupThreshold ?? DEFAULT_DEDUP_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1)) {
    throw new MemoryError('INVALID_INPUT', `dedupThreshold must be above 0 and at most 1 (got ${threshold}).`);
  }
  const plan: MiningPlan = {
    sessionId,
    agentId: session.agentId,
    ...(session.userId === undefined ? {} : { userId: session.userId }),
    requests: 0,
    memories: [],
    skills: [],
    profileFacts: [],
    skipped: [],
  };
  if (session.mined && !options.force) {
    plan.skipped.push({ kind: 'session', content: '', reason: 'already mined (use force to mine it again)' });
    return plan;
  }

  const budget =
    inputBudget(MINING_INSTRUCTIONS, MINING_FORMAT, options.maxRequestChars ?? DEFAULT_MAX_REQUEST_CHARS) -
    MINING_INPUT_OVERHEAD;
  const pieces = packText(transcriptUnits(session), budget);
  const answers: MiningAnswer[] = [];
  for (const [index, piece] of pieces.entries()) {
    answers.push(
      await askStructured({
        ai,
        instructions: MINING_INSTRUCTIONS,
        format: MINING_FORMAT,
        input: miningInput(piece, index + 1, pieces.length),
        schema: miningSchema,
        attempts: options.attempts,
        signal: options.signal,
      }),
    );
    plan.requests++;
    options.onProgress?.({ done: index + 1, total: pieces.length });
  }

  const memories = foldRepeats(
    answers.flatMap((answer) => answer.memories),
    threshold,
  );
  const skills = foldRepeats(
    answers.flatMap((answer) => answer.skills),
    threshold,
  );
  plan.skipped.push(...repeatSkips('memory', memories.folded), ...repeatSkips('skill', skills.folded));

  for (const item of memories.kept) {
    const found = await store.memories.search(session.agentId, session.userId, item.content, EXISTING_CANDIDATES);
    // saveOrUpdate only merges within the exact scope, so only those count here too.
    const stored = closest(
      item.content,
      found.map((r) => r.entity).filter((e) => e.userId === session.userId),
    );
    if (stored && stored.similarity >= SAME_TEXT) plan.skipped.push(alreadyStored('memory', item, stored));
    else plan.memories.push(withExisting(item, stored, threshold));
  }
  for (const item of skills.kept) {
    const found = await store.skills.search(session.agentId, item.content, EXISTING_CANDIDATES);
    const stored = closest(
      item.content,
      found.map((r) => r.entity).filter((e) => e.category === item.category),
    );
    if (stored && stored.similarity >= SAME_TEXT) plan.skipped.push(alreadyStored('skill', item, stored));
    else plan.skills.push(withExisting(item, stored, threshold));
  }
  await planProfileFacts(store, session, answers, threshold, plan);
  return plan;
}

/**
 * Writes a plan: each memory and skill through saveOrUpdate (so a
 * near-duplicate stored since the plan was made is updated, not doubled),
 * the profile facts appended to the user's profile, then the session marked
 * mined. A write refused by the store (a middleware veto, say) is reported
 * and the rest still written; the session is then left unmined. A citation
 * that does not anchor is dropped, never its item.
 */
export async function applyMiningPlan(
  store: MiningStore,
  plan: MiningPlan,
  options: ApplyOptions = {},
): Promise<MiningReport> {
  return asWriter('mining', () => writePlan(store, plan, options));
}

async function writePlan(store: MiningStore, plan: MiningPlan, options: ApplyOptions): Promise<MiningReport> {
  const report: MiningReport = {
    sessionId: plan.sessionId,
    dryRun: false,
    plan,
    created: [],
    updated: [],
    skipped: [...plan.skipped],
    markedMined: false,
    pendingReview: 0,
    droppedCitations: 0,
  };
  // A plan for an already-mined session holds nothing to write, and the session stays as it is.
  if (plan.skipped.some((skip) => skip.kind === 'session')) return report;
  let failed = false;
  const attempt = async (kind: MiningSkip['kind'], content: string, write: () => Promise<void>) => {
    try {
      await write();
    } catch (error) {
      if (!isMemoryError(error)) throw error;
      failed = true;
      report.skipped.push({ kind, content, reason: `not written: ${error.message}` });
    }
  };
  const folders = options.workspaceFolders;
  for (const item of plan.memories) {
    const { content, category, tags } = item;
    await attempt('memory', content, async () => {
      report.droppedCitations += await writeCiting(item.citations, folders, async (cited) => {
        const input = { content, category, tags, sourceSession: plan.sessionId, ...cited };
        const [entity, commit, { deduplicated }] = await store.memories.saveOrUpdate(plan.agentId, plan.userId, input);
        record(report, 'memory', entity, commit, deduplicated);
      });
    });
  }
  for (const item of plan.skills) {
    const { content, category, tags } = item;
    await attempt('skill', content, async () => {
      report.droppedCitations += await writeCiting(item.citations, folders, async (cited) => {
        const input = { content, category, tags, ...cited };
        const [entity, commit, { deduplicated }] = await store.skills.saveOrUpdate(plan.agentId, input);
        record(report, 'skill', entity, commit, deduplicated);
      });
    });
  }
  const userId = plan.userId;
  if (userId !== undefined && plan.profileFacts.length) {
    await attempt('profile', plan.profileFacts.join('\n'), async () => {
      const current = await store.profiles.getByUser(plan.agentId, userId);
      const [entity, commit] = current
        ? await store.profiles.update(current.id, { content: appendFacts(current.content, plan.profileFacts) })
        : await store.profiles.save(plan.agentId, userId, { content: appendFacts('', plan.profileFacts) });
      record(report, 'profile', entity, commit, current !== null);
    });
  }
  if (!failed) {
    await attempt('session', '', async () => {
      // Bookkeeping, not content: marking the session mined never waits for review (what it
      // found does), or a session whose findings wait would be mined again and again.
      await asWriter('mining', () => store.sessions.markMined(plan.sessionId), { confirmed: true });
      report.markedMined = true;
    });
  }
  return report;
}

/** The citations field of an input: left out when there are none, so an updated near-duplicate keeps its own. */
type Cited = { citations?: CitationRequest[] };

/**
 * Writes an item with those of its citations that anchor, and says how many
 * were dropped. The store checks them again on save (a file may change in
 * between, or no folders were given to check them here): refused, the item
 * is written without any, as a dropped citation must never cost its item.
 */
async function writeCiting(
  citations: readonly CitationRequest[] = [],
  folders: readonly WorkspaceFolder[] | undefined,
  write: (cited: Cited) => Promise<void>,
): Promise<number> {
  const anchored = folders ? citations.filter((citation) => anchors(folders, citation)) : citations;
  const kept = anchored.slice(0, LIMITS.maxCitations);
  if (kept.length) {
    try {
      await write({ citations: kept });
      return citations.length - kept.length;
    } catch (error) {
      if (!isMemoryError(error, 'INVALID_INPUT')) throw error;
    }
  }
  await write({});
  return citations.length;
}

/** Whether the store would anchor the citation: the same check a save makes, one citation at a time. */
function anchors(folders: readonly WorkspaceFolder[], citation: CitationRequest): boolean {
  try {
    anchorCitation(folders, citation);
    return true;
  } catch (error) {
    if (isMemoryError(error, 'INVALID_INPUT')) return false;
    throw error;
  }
}

function record(
  report: MiningReport,
  type: MinedEntity['type'],
  entity: { id: string; content: string },
  commit: CommitInfo,
  existed: boolean,
): void {
  const mined = { type, id: entity.id, content: entity.content };
  if (commit.review === 'pending') report.pendingReview++;
  if (existed) report.updated.push({ ...mined, commit: commit.hash, previousCommit: commit.parent });
  else report.created.push(mined);
}

interface Proposed<C extends string> {
  content: string;
  category: C;
  tags: string[];
  citations: CitationRequest[];
}

/**
 * Folds items that repeat an earlier one (pieces of a long session often
 * restate the same point): the longer text is kept, as it usually carries
 * more detail, with the tags and citations of both.
 */
function foldRepeats<C extends string>(
  items: readonly Proposed<C>[],
  threshold: number,
): { kept: Proposed<C>[]; folded: string[] } {
  const kept: Proposed<C>[] = [];
  const folded: string[] = [];
  for (const item of items) {
    const twin = kept.find(
      (other) => other.category === item.category && textSimilarity(other.content, item.content) >= threshold,
    );
    if (!twin) {
      kept.push({ ...item, tags: [...item.tags], citations: [...item.citations] });
      continue;
    }
    folded.push(twin.content.length >= item.content.length ? item.content : twin.content);
    if (item.content.length > twin.content.length) twin.content = item.content;
    twin.tags = [...new Set([...twin.tags, ...item.tags])];
    twin.citations = unionOfCitations(twin.citations, item.citations);
  }
  return { kept, folded };
}

/** Both lists of citations, each cited place once. */
function unionOfCitations(first: readonly CitationRequest[], second: readonly CitationRequest[]): CitationRequest[] {
  const byPlace = new Map<string, CitationRequest>();
  for (const citation of [...first, ...second]) {
    const place = `${normalCitedPath(citation.path)}:${citation.startLine}-${citation.endLine}`;
    if (!byPlace.has(place)) byPlace.set(place, citation);
  }
  return [...byPlace.values()];
}

function repeatSkips(kind: 'memory' | 'skill', contents: readonly string[]): MiningSkip[] {
  return contents.map((content) => ({ kind, content, reason: 'repeats another item mined from this session' }));
}

function closest<E extends { id: string; content: string }>(
  content: string,
  candidates: readonly E[],
): { id: string; similarity: number } | undefined {
  let best: { id: string; similarity: number } | undefined;
  for (const candidate of candidates) {
    const similarity = textSimilarity(content, candidate.content);
    if (!best || similarity > best.similarity) best = { id: candidate.id, similarity };
  }
  return best;
}

function alreadyStored(kind: 'memory' | 'skill', item: { content: string }, stored: { id: string }): MiningSkip {
  return { kind, content: item.content, reason: `already stored as ${stored.id}` };
}

function withExisting<C extends string>(
  item: Proposed<C>,
  stored: { id: string; similarity: number } | undefined,
  threshold: number,
): PlannedItem<C> {
  return stored && stored.similarity >= threshold ? { ...item, existing: stored } : item;
}

/** Profile facts not already in the profile nor repeated; none when the session has no user. */
async function planProfileFacts(
  store: MiningStore,
  session: SessionEntity,
  answers: readonly MiningAnswer[],
  threshold: number,
  plan: MiningPlan,
): Promise<void> {
  const facts = answers.flatMap((answer) => answer.profile);
  if (facts.length === 0) return;
  if (session.userId === undefined) {
    plan.skipped.push(
      ...facts.map((content) => ({ kind: 'profile' as const, content, reason: 'the session has no user' })),
    );
    return;
  }
  const profile = await store.profiles.getByUser(session.agentId, session.userId);
  const known = (profile?.content ?? '').split('\n').map(stripBullet).filter(Boolean);
  for (const fact of facts) {
    const inProfile = known.some((line) => textSimilarity(line, fact) >= threshold);
    const repeated = plan.profileFacts.some((line) => textSimilarity(line, fact) >= threshold);
    if (inProfile || repeated) {
      plan.skipped.push({
        kind: 'profile',
        content: fact,
        reason: inProfile ? 'already in the profile' : 'repeats another fact mined from this session',
      });
    } else plan.profileFacts.push(fact);
  }
}

function stripBullet(line: string): string {
  return line.replace(/^\s*[-*•]\s*/, '').trim();
}

/** The profile with the facts added as bullet lines after everything it already says. */
function appendFacts(content: string, facts: readonly string[]): string {
  const bullets = facts.map((fact) => `- ${fact}`).join('\n');
  return content.trim() ? `${content.trimEnd()}\n${bullets}` : bullets;
}
