import type { AiProvider } from '../ai/provider';
import type { StaleNote } from '../anchors/staleness';
import type { WorkspaceFolder } from '../anchors/workspace-paths';
import type { TurnHit } from '../collections/sessions';
import type { Hit, ReasonedResult, ReasoningMode } from '../reasoning/types';
import type { SearchResult } from '../search/searcher';
import type { ItemProvenance } from '../trust/framing';
import type { Entity, KnowledgeEntity, MemoryEntity, ProfileEntity, SkillEntity } from '../types';

/** Recall's options, items and result, and the narrow view of the store it reads (see recall.ts). */

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
  /**
   * Have the model rewrite the query or search step by step (see
   * reasoning/types.ts), and order the best candidates (`rerank`). Off by
   * default; needs `ai`, and without it (or when the model fails) plain
   * recall answers and `reasoning.degraded` says why.
   */
  reasoning?: ReasoningMode;
  rerank?: boolean;
  /** The model reasoning and reranking ask. */
  ai?: AiProvider;
  /** Cancels the model's part (CANCELLED). */
  signal?: AbortSignal;
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

/** An item of either kind, as recall ranks them together. */
export type Ranked = RecallItem | TurnItem;

export const isTurnItem = (item: Ranked): item is TurnItem => item.collection === 'conversations';

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
  /** What the model did, when reasoning or reranking was asked for (see ReasonedResult). */
  reasoning?: RecallReasoning;
}

/** What reasoning did for a recall: what was asked, the steps run, and why plain recall answered if it did. */
export type RecallReasoning = Omit<ReasonedResult<Hit>, 'results'>;

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
