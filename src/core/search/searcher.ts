import type { Entity, EntityType } from '../types';
import { bm25, referenceScore, slotsOf, termGroups } from './bm25';
import { NO_USER_TOKEN, agentToken, typeToken, userToken } from './documents';
import type { FtsIndex } from './fts-index';
import { type ScoreExplanation, type ScoringOptions, scoreResult } from './scoring';
import type { QueryExpander } from './synonyms';

/** A pasted document as a query would become thousands of OR terms: its first words are plenty. */
export const MAX_QUERY_TERMS = 64;

export interface SearchOptions {
  /** Also search the shared scope (skills and knowledge). */
  includeShared?: boolean;
  /** Attach each part of the score to every result. */
  explain?: boolean;
}

export interface SearchResult<E extends Entity = Entity> {
  entity: E;
  score: number;
  explain?: ScoreExplanation;
}

export interface SearchScope {
  type: EntityType;
  agentIds: readonly string[];
  /** Undefined: any user. A string: that user's entities and those without a user. */
  userId?: string;
}

/** What the searcher needs from the store: live entities with their read counts. */
export interface EntityReader {
  getWithAccess(ids: readonly string[]): Map<string, { entity: Entity; accessCount: number }>;
}

/**
 * Query pipeline: expand the query (synonyms, abbreviations); FTS5 finds the
 * matching documents in the scope and hands over the best of them by its
 * BM25; those are rescored with our BM25 (normalized to 0..1), tag overlap,
 * recency and access counts.
 */
export class Searcher {
  constructor(
    private readonly index: FtsIndex,
    private readonly reader: EntityReader,
    private readonly expander: QueryExpander,
    private readonly scoring: ScoringOptions,
    private readonly now: () => Date,
  ) {}

  search(scope: SearchScope, query: string, limit: number, options: SearchOptions = {}): SearchResult[] {
    const groups = this.expander
      .expand(query)
      .filter((group) => group.length > 0)
      .slice(0, MAX_QUERY_TERMS);
    if (groups.length === 0 || scope.agentIds.length === 0) return [];
    const terms = [...new Set(groups.flat())];
    const stats = this.index.stats();
    const frequencies = this.index.documentFrequencies(terms);
    const weighted = termGroups(groups, frequencies, stats.docs);
    // Common terms only add to the score of documents that match a rarer one
    // (Lucene's "common terms" query): matching every document that says
    // "service" or "time" would cost far more than it could ever rank well.
    const rare = weighted.filter((group) => group.df <= this.scoring.commonTermCutoff * stats.docs);
    const matching = [...new Set((rare.length ? rare : weighted).flatMap((group) => group.terms))].filter((term) =>
      frequencies.has(term),
    );
    if (matching.length === 0) return [];
    const match = `${scopeFilter(scope)} AND {content tags meta}: (${matching.map(quote).join(' OR ')})`;
    const pool = this.index.candidates(match, this.scoring.columns, Math.max(limit * 4, this.scoring.candidates));
    if (pool.length === 0) return [];

    const reference = referenceScore(weighted);
    const slots = slotsOf(weighted);
    const scored = pool.map(({ entityId, doc }) => {
      const raw = bm25(doc, weighted, slots, this.scoring.columns, stats, this.scoring.bm25);
      return {
        entityId,
        raw,
        relevance: reference > 0 ? Math.min(1, raw / reference) : 0,
        tagOverlap: tagOverlap(groups, doc.tags),
      };
    });
    // Recency and access can lift an item only so far (their multipliers are
    // bounded), so the entities needed are those whose base score could still
    // reach the top `limit` after the largest possible boost.
    const base = (item: (typeof scored)[number]) =>
      this.scoring.relevanceWeight * item.relevance + this.scoring.tagWeight * item.tagOverlap;
    scored.sort((a, b) => base(b) - base(a));
    const cutoff =
      scored.length > limit
        ? (base(scored[limit - 1]!) * (1 - this.scoring.recencyWeight)) / this.scoring.maxAccessBoost
        : 0;
    const kept = scored.filter((item, index) => index < limit || base(item) >= cutoff);
    const entities = this.reader.getWithAccess(kept.map((item) => item.entityId));
    const now = this.now().getTime();
    const results: SearchResult[] = [];
    for (const item of kept) {
      const found = entities.get(item.entityId);
      if (!found) continue;
      const explanation = scoreResult(
        {
          bm25: item.raw,
          relevance: item.relevance,
          tagOverlap: item.tagOverlap,
          updatedAt: found.entity.updatedAt,
          accessCount: found.accessCount,
        },
        this.scoring,
        now,
      );
      results.push({
        entity: found.entity,
        score: explanation.score,
        ...(options.explain ? { explain: explanation } : {}),
      });
    }
    return results.sort((a, b) => b.score - a.score).slice(0, limit);
  }
}

/** Jaccard index between the query's words (a synonym group counts once) and the tags. */
export function tagOverlap(groups: readonly (readonly string[])[], tags: readonly string[]): number {
  if (groups.length === 0 || tags.length === 0) return 0;
  const tagSet = new Set(tags);
  const matched = groups.filter((group) => group.some((term) => tagSet.has(term))).length;
  return matched / (groups.length + tagSet.size - matched);
}

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

function scopeFilter(scope: SearchScope): string {
  const agents = scope.agentIds.map(agentToken);
  const parts = [typeToken(scope.type), agents.length === 1 ? agents[0] : `(${agents.join(' OR ')})`];
  if (scope.userId !== undefined) parts.push(`(${userToken(scope.userId)} OR ${NO_USER_TOKEN})`);
  return `scope: (${parts.join(' AND ')})`;
}
