import { appliesTo } from '../anchors/applies-to';
import type { StaleNote } from '../anchors/staleness';
import type { WorkspaceFolder } from '../anchors/workspace-paths';
import type { TurnHit } from '../collections/sessions';
import { MemoryError } from '../errors';
import type { SearchResult } from '../search/searcher';
import { quoteTurn } from '../sessions/quote';
import { type ItemProvenance, quoteEntity, STORED_DATA_NOTICE } from '../trust/framing';
import type { Entity, KnowledgeEntity, MemoryEntity, ProfileEntity, SkillEntity } from '../types';
import { assertId, assertOptionalId } from '../validation';

export type RecallCollection = 'memories' | 'skills' | 'knowledge' | 'conversations';
export const RECALL_COLLECTIONS: readonly RecallCollection[] = ['memories', 'skills', 'knowledge', 'conversations'];

/** Every collection, with or without the turns of past conversations. */
export const recallCollections = (conversations: boolean): RecallCollection[] =>
  RECALL_COLLECTIONS.filter((name) => conversations || name !== 'conversations');

/**
 * What a turn of a past conversation weighs against a memory of the same
 * relevance: a memory is what someone chose to keep, a turn what was said
 * once. 0.7 is a memory's own weight for relevance (0.85) at its oldest
 * (recency takes off at most a fifth): a turn never outranks an equally
 * relevant memory, whatever its age.
 */
export const TURN_WEIGHT = 0.7;

export interface RecallOptions {
  /** Most items in the context, all collections together. Default 20. */
  maxItems?: number;
  /** Most characters in the formatted context. Default 8000. */
  maxChars?: number;
  /** Most tokens in the formatted context, estimated as characters / 4. No limit by default. */
  maxTokens?: number;
  /** Put the user's profile first. Default true. */
  includeProfile?: boolean;
  includeSharedSkills?: boolean;
  includeSharedKnowledge?: boolean;
  /** Which collections to draw from. Default all four (the best turns of past conversations too). */
  collections?: readonly RecallCollection[];
  /**
   * Memories and skills whose cited code changed or is gone: `mark` (the
   * default) says so on the item, `exclude` leaves them out, `ignore` treats
   * them like any other.
   */
  staleness?: StalenessMode;
  /**
   * Files being worked on (workspace-relative, as citations write them, e.g.
   * the active editor's): memories and skills that cite one, or whose
   * `appliesTo` globs match one, rank as if they matched CITING_BOOST times
   * better (scores stay at most 1).
   */
  files?: readonly string[];
}

/** How much citing a file being worked on raises an item's score. */
export const CITING_BOOST = 1.5;

export const STALENESS_MODES = ['mark', 'exclude', 'ignore'] as const;
export type StalenessMode = (typeof STALENESS_MODES)[number];

/** A memory, skill or document chunk in the context. */
export interface RecallItem {
  collection: Exclude<RecallCollection, 'conversations'>;
  entity: MemoryEntity | SkillEntity | KnowledgeEntity;
  score: number;
  /** Who wrote the item, when the source knows: shown on its source line and counted in the budget. */
  provenance?: ItemProvenance;
  /** The code it cites changed or is gone (with `staleness: 'mark'`): said before its content. */
  stale?: StaleNote;
  /** Other places a document chunk's text is in too (see search/copies.ts). */
  copies?: string[];
}

/** A turn of a past conversation in the context: its score is the turn's relevance times TURN_WEIGHT. */
export interface TurnItem {
  collection: 'conversations';
  turn: TurnHit;
  score: number;
}

type Ranked = RecallItem | TurnItem;

export interface RecallResult {
  /** The memories, skills and chunks that made it into the context, best first. */
  items: RecallItem[];
  /** The turns of past conversations that made it into the context, best first. */
  turns: TurnItem[];
  profile: ProfileEntity | null;
  /**
   * Markdown ready for a prompt: a notice that what follows is stored data,
   * not instructions, then the profile and a section per collection, each
   * item quoted under a line naming its source. Empty when nothing fitted.
   */
  formatted: string;
  chars: number;
  /** Estimated as characters / 4 (rounded up). */
  tokens: number;
  /** Matching items that did not fit the character budget (not those beyond maxItems): a bigger budget would show them. */
  leftOut: number;
}

/** The narrow view of the store that recall needs. */
export interface RecallSource {
  searchMemories(
    agentId: string,
    userId: string | undefined,
    query: string,
    limit: number,
  ): Promise<SearchResult<MemoryEntity>[]>;
  searchSkills(
    agentId: string,
    query: string,
    limit: number,
    includeShared: boolean,
  ): Promise<SearchResult<SkillEntity>[]>;
  searchKnowledge(
    agentId: string,
    query: string,
    limit: number,
    includeShared: boolean,
  ): Promise<SearchResult<KnowledgeEntity>[]>;
  profile(agentId: string, userId: string): Promise<ProfileEntity | null>;
  /** The turns of past conversations that best answer the query; without it, recall draws on none. */
  searchTurns?(agentId: string, userId: string | undefined, query: string, limit: number): Promise<TurnHit[]>;
  /** The workspace folders `appliesTo` globs are matched in (see anchors/applies-to.ts). */
  folders?: readonly WorkspaceFolder[];
  /**
   * Who wrote each of these entities, for the sources that know: shown on
   * each item's source line. Without it, items carry no provenance.
   */
  provenance?(ids: readonly string[]): Promise<ReadonlyMap<string, ItemProvenance>>;
  /** Records that these entities were given to a model. */
  markRecalled(ids: readonly string[]): Promise<void>;
  /** The stale ones among these entities (see anchors/staleness.ts); without it, none is. */
  staleness?(entities: readonly Entity[]): Promise<ReadonlyMap<string, StaleNote>>;
}

const HEADINGS: Record<RecallCollection, string> = {
  memories: 'Memories',
  skills: 'Skills',
  knowledge: 'Knowledge',
  conversations: 'Past conversations',
};
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

function renderItem(item: Ranked): string {
  return item.collection === 'conversations'
    ? quoteTurn(item.turn)
    : quoteEntity(item.entity, { provenance: item.provenance, stale: item.stale, copies: item.copies });
}

function renderProfile(profile: ProfileEntity): string {
  return `## Profile\n\n${quoteEntity(profile)}`;
}

/**
 * Pools candidates from every collection, ranks them together by score,
 * takes the best that fit the budget whole (an item that does not fit is
 * skipped, never cut), and formats them as Markdown.
 */
export async function recall(
  source: RecallSource,
  agentId: string,
  userId: string | undefined,
  query: string,
  options: RecallOptions = {},
): Promise<RecallResult> {
  assertId(agentId, 'agent id');
  assertOptionalId(userId, 'user id');
  const maxItems = options.maxItems ?? 20;
  const maxChars = Math.min(
    options.maxChars ?? 8000,
    options.maxTokens !== undefined ? options.maxTokens * 4 : Infinity,
  );
  if (!Number.isInteger(maxItems) || maxItems < 0 || maxItems > 200) {
    throw new MemoryError('INVALID_INPUT', `maxItems must be a whole number from 0 to 200 (got ${maxItems}).`);
  }
  if (!(maxChars >= 0)) throw new MemoryError('INVALID_INPUT', 'maxChars and maxTokens must be at least 0.');
  const collections = new Set(options.collections ?? RECALL_COLLECTIONS);
  for (const name of collections) {
    if (!RECALL_COLLECTIONS.includes(name))
      throw new MemoryError('INVALID_INPUT', `Unknown recall collection "${name}".`);
  }

  const pools = await Promise.all([
    collections.has('memories') && maxItems > 0 ? source.searchMemories(agentId, userId, query, maxItems) : [],
    collections.has('skills') && maxItems > 0
      ? source.searchSkills(agentId, query, maxItems, options.includeSharedSkills ?? true)
      : [],
    collections.has('knowledge') && maxItems > 0
      ? source.searchKnowledge(agentId, query, maxItems, options.includeSharedKnowledge ?? true)
      : [],
    collections.has('conversations') && maxItems > 0 && source.searchTurns
      ? source.searchTurns(agentId, userId, query, maxItems)
      : [],
  ]);
  const working = [...new Set(options.files ?? [])];
  const concernsWork = (entity: MemoryEntity | SkillEntity) =>
    entity.citations?.some((citation) => working.includes(citation.path)) ||
    working.some((file) => appliesTo(entity.appliesTo, file, source.folders ?? []));
  const boosted = (entity: RecallItem['entity'], score: number) =>
    working.length && (entity.type === 'memory' || entity.type === 'skill') && concernsWork(entity)
      ? Math.min(1, score * CITING_BOOST)
      : score;
  const entities: RecallItem[] = [
    ...pools[0].map((r) => ({ collection: 'memories' as const, entity: r.entity, score: boosted(r.entity, r.score) })),
    ...pools[1].map((r) => ({ collection: 'skills' as const, entity: r.entity, score: boosted(r.entity, r.score) })),
    ...pools[2].map((r) => ({
      collection: 'knowledge' as const,
      entity: r.entity,
      score: r.score,
      ...(r.copies ? { copies: r.copies } : {}),
    })),
  ];
  // Before packing: an item's provenance is part of what it costs.
  const written =
    source.provenance && entities.length ? await source.provenance(entities.map((item) => item.entity.id)) : undefined;
  const staleness = options.staleness ?? 'mark';
  if (!STALENESS_MODES.includes(staleness)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `staleness must be ${STALENESS_MODES.join(', ')} (got ${String(staleness)}).`,
    );
  }
  // Before packing too: a stale item left out frees its room, a marked one costs its note.
  const stale =
    source.staleness && staleness !== 'ignore' && entities.length
      ? await source.staleness(entities.map((item) => item.entity))
      : undefined;
  const conversations: TurnItem[] = pools[3].map((turn) => ({
    collection: 'conversations',
    turn,
    score: turn.score * TURN_WEIGHT,
  }));
  const ranked = [
    ...entities.flatMap((item): Ranked[] => {
      const provenance = written?.get(item.entity.id);
      const note = stale?.get(item.entity.id);
      if (note && staleness === 'exclude') return [];
      return [{ ...item, ...(provenance ? { provenance } : {}), ...(note ? { stale: note } : {}) }];
    }),
    ...conversations,
  ].sort((a, b) => b.score - a.score);

  // Exactly what each part adds to `formatted`: the first one brings the notice, the others a blank line.
  let used = 0;
  const joint = () => (used === 0 ? STORED_DATA_NOTICE.length + 2 : 2);
  let profile: ProfileEntity | null = null;
  if ((options.includeProfile ?? true) && userId !== undefined) {
    const found = await source.profile(agentId, userId);
    const cost = found ? joint() + renderProfile(found).length : Infinity;
    if (found && cost <= maxChars) {
      profile = found;
      used = cost;
    }
  }
  const chosen: Ranked[] = [];
  const opened = new Set<RecallCollection>();
  let leftOut = 0;
  for (const item of ranked) {
    if (chosen.length >= maxItems) break;
    const before = opened.has(item.collection) ? 2 : joint() + `## ${HEADINGS[item.collection]}\n\n`.length;
    const cost = before + renderItem(item).length;
    if (used + cost > maxChars) {
      leftOut++;
      continue;
    }
    used += cost;
    opened.add(item.collection);
    chosen.push(item);
  }

  const sections: string[] = profile ? [renderProfile(profile)] : [];
  for (const name of RECALL_COLLECTIONS) {
    const items = chosen.filter((item) => item.collection === name);
    if (items.length) sections.push(`## ${HEADINGS[name]}\n\n${items.map(renderItem).join('\n\n')}`);
  }
  const formatted = sections.length ? [STORED_DATA_NOTICE, ...sections].join('\n\n') : '';
  const items = chosen.filter((item): item is RecallItem => item.collection !== 'conversations');
  const turns = chosen.filter((item): item is TurnItem => item.collection === 'conversations');
  if (items.length) await source.markRecalled(items.map((item) => item.entity.id));
  return {
    items,
    turns,
    profile,
    formatted,
    chars: formatted.length,
    tokens: estimateTokens(formatted),
    leftOut,
  };
}

/**
 * What a recall drew on, for a caller that cites its sources: its items, the
 * sessions its turns were said in (each once) and the profile.
 */
export function recallSources(result: RecallResult): (Entity | Pick<Entity, 'type' | 'id'>)[] {
  const sessions = [...new Set(result.turns.map((item) => item.turn.session.id))];
  return [
    ...result.items.map((item) => item.entity),
    ...sessions.map((id) => ({ type: 'session' as const, id })),
    ...(result.profile ? [result.profile] : []),
  ];
}

/**
 * The recalled context as text for a model or a terminal: says when nothing
 * matched, and when matching items were left out for the budget (so a
 * caller knows a bigger budget would give more, rather than that nothing is known).
 */
export function recallText(result: RecallResult, query: string): string {
  const leftOut =
    result.leftOut === 1
      ? '1 matching item did not fit the budget'
      : `${result.leftOut} matching items did not fit the budget`;
  if (!result.formatted) {
    return result.leftOut > 0
      ? `Nothing fitted: ${leftOut} for "${query}". Ask again with a larger budget.`
      : `Nothing in memory is relevant to "${query}".`;
  }
  return result.leftOut > 0 ? `${result.formatted}\n\n_(${leftOut}.)_` : result.formatted;
}
