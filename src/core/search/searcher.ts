import type { Entity } from '../types';
import { bm25, countTerms, meanVerboseness, referenceScore, slotsOf, type TermGroup, termGroups } from './bm25';
import type { Candidate, FtsIndex, IndexScope } from './fts-index';
import { type ScoreExplanation, scoreResult, type ScoringOptions } from './scoring';
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
  /** Where else the same text was found (see copies.ts): other documents' files and lines, or ids. */
  copies?: string[];
}

export type SearchScope = IndexScope;

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
    /** Built on first use: it tokenizes the whole synonym map, which opening a store should not wait for. */
    private readonly expander: () => QueryExpander,
    private readonly scoring: ScoringOptions,
    private readonly now: () => Date,
  ) {}

  search(scope: SearchScope, query: string, limit: number, options: SearchOptions = {}): SearchResult[] {
    return this.index.read(() => this.searchNow(scope, query, limit, options));
  }

  private searchNow(scope: SearchScope, query: string, limit: number, options: SearchOptions): SearchResult[] {
    const groups = this.expander()
      .expand(query)
      .filter((group) => group.length > 0)
      .slice(0, MAX_QUERY_TERMS);
    if (groups.length === 0 || scope.agentIds.length === 0) return [];
    const terms = [...new Set(groups.flat())];
    const stats = this.index.stats(scope.type);
    const frequencies = this.index.documentFrequencies(scope.type, terms);
    const weighted = termGroups(groups, frequencies, stats.docs);
    const pool = this.candidates(scope, weighted, frequencies, Math.max(limit * 4, this.scoring.candidates), limit);
    if (pool.length === 0) return [];

    const reference = referenceScore(weighted);
    const slots = slotsOf(weighted);
    const counts = pool.map(({ doc }) => countTerms(doc, slots, weighted.length, this.scoring.columns));
    const collection = { averageLength: stats.averageLength, verboseness: meanVerboseness(counts) };
    const scored = pool.map(({ entityId, doc }, index) => {
      const raw = bm25(counts[index]!, weighted, collection, this.scoring.bm25);
      return {
        entityId,
        raw,
        relevance: relevanceOf(raw, reference),
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

  /**
   * The documents that have every word the narrowed match left out, when
   * it left out two or more: a rare word the question uses loosely
   * ("define" in "how to define a required option") must not shut out the
   * document that has all of its other words ("Required option"). Two
   * common words together are much rarer than either. Documents only: on a
   * workspace's docs it took the section a question names from outside the
   * top ten to first (bench/docs-questions.mjs), while on 100,000 memories
   * the second match doubled the search's p50 (5.7 to 13.4 ms) and moved
   * neither development set.
   */
  private withTheRest(
    pool: Candidate[],
    present: readonly TermGroup[],
    narrowed: readonly string[],
    frequencies: Map<string, number>,
    scope: SearchScope,
    size: number,
  ): Candidate[] {
    const rest = present.filter((group) => !group.terms.some((term) => narrowed.includes(term)));
    if (rest.length < 2) return pool;
    const seen = new Set(pool.map((candidate) => candidate.entityId));
    const together = this.index.candidates(
      rest.map((group) => group.terms.filter((term) => frequencies.has(term))),
      scope,
      this.scoring.columns,
      size,
    );
    return [...pool, ...[...together.ranked, ...together.waiting].filter((candidate) => !seen.has(candidate.entityId))];
  }

  /**
   * The candidate pool: documents matching the query's terms within the
   * match budget. When even the rarest word is too common to match on its
   * own (every word of the query is everywhere), the documents containing
   * all of its words come first. Either way, a pool smaller than `limit`
   * is topped up from every word.
   */
  private candidates(
    scope: SearchScope,
    groups: readonly TermGroup[],
    frequencies: Map<string, number>,
    size: number,
    limit: number,
  ): Candidate[] {
    const present = groups.filter((group) => group.df > 0);
    if (present.length === 0) return [];
    const everyTerm = present.flatMap((group) => group.terms.filter((term) => frequencies.has(term)));
    const rarest = Math.min(...present.map((group) => group.df));
    const budgeted = rarest <= this.scoring.matchBudget || present.length === 1;
    const narrowed = budgeted ? matchingTerms(present, frequencies, this.scoring.matchBudget) : undefined;
    const first = this.index.candidates(
      narrowed ? [narrowed] : present.map((group) => group.terms.filter((term) => frequencies.has(term))),
      scope,
      this.scoring.columns,
      size,
    );
    let pool = [...first.ranked, ...first.waiting];
    if (narrowed && scope.type === 'knowledge')
      pool = this.withTheRest(pool, present, narrowed, frequencies, scope, size);
    if (pool.length >= limit || (narrowed && narrowed.length === new Set(everyTerm).size)) return pool;
    // Word counts are store-wide but the scope may be a small corner of the
    // store (one agent among many): when the narrowed match finds too
    // little, match every word after all. The ranked rows are topped up to
    // the pool size; rows waiting outside FTS5 were never ranked, so every
    // one that matches stays.
    const seen = new Set(pool.map((candidate) => candidate.entityId));
    const unseen = (candidates: Candidate[]) => candidates.filter((candidate) => !seen.has(candidate.entityId));
    const more = this.index.candidates([[...new Set(everyTerm)]], scope, this.scoring.columns, size);
    return [...first.ranked, ...unseen(more.ranked)].slice(0, size).concat(first.waiting, unseen(more.waiting));
  }
}

/**
 * BM25 mapped onto 0..1 against the reference score (a document of average
 * length containing each query word once scores 0.63), smoothly rather than
 * clamped, so documents that beat the reference keep their order.
 */
export function relevanceOf(bm25Score: number, reference: number): number {
  return reference > 0 ? 1 - Math.exp(-bm25Score / reference) : 0;
}

/**
 * The terms FTS5 should match: every query term while their documents add up
 * to at most `budget`; past that, the rarest first, and the common ones only
 * add to the score of documents that match a rarer one (as Lucene's "common
 * terms" query does). On a large store, matching every document that says
 * "service" or "time" costs far more than it could ever rank well; on a
 * small one the budget is never reached and matching is exact.
 */
export function matchingTerms(
  groups: readonly TermGroup[],
  frequencies: Map<string, number>,
  budget: number,
): string[] {
  const byRarity = [...groups].filter((group) => group.df > 0).sort((a, b) => a.df - b.df);
  const chosen: string[] = [];
  let postings = 0;
  for (const group of byRarity) {
    if (chosen.length > 0 && postings + group.df > budget) break;
    postings += group.df;
    for (const term of group.terms) if (frequencies.has(term) && !chosen.includes(term)) chosen.push(term);
  }
  return chosen;
}

/** Jaccard index between the query's words (a synonym group counts once) and the tags. */
export function tagOverlap(groups: readonly (readonly string[])[], tags: readonly string[]): number {
  if (groups.length === 0 || tags.length === 0) return 0;
  const tagSet = new Set(tags);
  const matched = groups.filter((group) => group.some((term) => tagSet.has(term))).length;
  return matched / (groups.length + tagSet.size - matched);
}
