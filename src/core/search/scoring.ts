import type { Bm25Parameters } from './bm25';
import type { ColumnWeights } from './fts-index';

/**
 * How a search result's score is made: relevance (our BM25 measured against
 * the score of a document that matches every query word once, so it is on
 * the same 0..1 scale for any query and store, and thresholds mean something)
 * plus tag overlap (Jaccard), then multiplied by a recency factor and a
 * capped access boost.
 */
export interface ScoringOptions {
  /** Share of the base score from BM25 relevance. */
  relevanceWeight: number;
  /** Share of the base score from overlap between query words and tags. */
  tagWeight: number;
  /** Per-day decay of the recency factor (0 turns recency off). */
  decayRate: number;
  /** The most that age can take off the score (0.2: an old item keeps at least 80%). */
  recencyWeight: number;
  /** Boost per ln(1 + reads). */
  accessWeight: number;
  /** Cap on the access multiplier. */
  maxAccessBoost: number;
  /** Per-column weights: a term in the tags counts `tags` times. */
  columns: ColumnWeights;
  bm25: Bm25Parameters;
  /** Smallest candidate pool FTS5 hands over for rescoring. */
  candidates: number;
  /**
   * How many documents (summed over query terms) FTS5 may match before the
   * most common query terms stop widening the match and only add to scores.
   */
  matchBudget: number;
}

export const DEFAULT_SCORING: ScoringOptions = {
  relevanceWeight: 0.85,
  tagWeight: 0.15,
  decayRate: 0.01,
  recencyWeight: 0.2,
  accessWeight: 0.05,
  maxAccessBoost: 1.25,
  columns: { content: 1, tags: 2, meta: 1.5 },
  // No b: length normalization follows the collection's verboseness (see bm25.ts).
  bm25: { k1: 1.2 },
  candidates: 100,
  matchBudget: 1000,
};

/** Where a hybrid result stood in each list before Reciprocal Rank Fusion. */
export interface FusionExplanation {
  bm25Rank?: number;
  vectorRank?: number;
  /** Cosine similarity of the query's and the entity's vectors. */
  similarity?: number;
  rrf: number;
}

export interface ScoreExplanation {
  /** Our BM25 (column-weighted, Lucene idf, length normalized by verboseness). */
  bm25: number;
  /** BM25 against the reference score for this query, 0..1 (0.63: every query word once, in an average document). */
  relevance: number;
  /** Jaccard index of query words and tags, 0..1. */
  tagOverlap: number;
  /** Multiplier from age, between 1 - recencyWeight and 1. */
  recency: number;
  /** Multiplier from past reads, between 1 and maxAccessBoost. */
  access: number;
  score: number;
  /** Hybrid search only. The keyword parts are 0 for a result found by its vector alone. */
  fusion?: FusionExplanation;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function scoreResult(
  parts: { bm25: number; relevance: number; tagOverlap: number; updatedAt: string; accessCount: number },
  options: ScoringOptions,
  now: number,
): ScoreExplanation {
  const ageDays = Math.max(0, (now - Date.parse(parts.updatedAt)) / DAY_MS);
  const recency = 1 - options.recencyWeight * (1 - Math.exp(-options.decayRate * ageDays));
  const access = Math.min(options.maxAccessBoost, 1 + options.accessWeight * Math.log1p(parts.accessCount));
  const score = (options.relevanceWeight * parts.relevance + options.tagWeight * parts.tagOverlap) * recency * access;
  return { bm25: parts.bm25, relevance: parts.relevance, tagOverlap: parts.tagOverlap, recency, access, score };
}
