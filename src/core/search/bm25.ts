import { documentLength, type SearchDocument } from './documents';
import type { ColumnWeights, IndexStats } from './fts-index';

export interface Bm25Parameters {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalization, 0 (none) to 1 (full). */
  b: number;
}

/**
 * One query word with its synonyms: a document's frequency for the group is
 * the sum over its terms, so "k8s" and "kubernetes" count as one word.
 */
export interface TermGroup {
  terms: readonly string[];
  /** Documents containing the group's most common term. */
  df: number;
  idf: number;
}

/**
 * BM25's idf in the Lucene form, log(1 + (N - n + 0.5) / (n + 0.5)): always
 * positive. (FTS5's own form drops to zero for a term in half the documents,
 * which in a small store of workspace notes would be most of the useful ones.)
 */
export function idf(docs: number, docFrequency: number): number {
  return Math.log(1 + (docs - docFrequency + 0.5) / (docFrequency + 0.5));
}

export function termGroups(
  groups: readonly (readonly string[])[],
  frequencies: Map<string, number>,
  docs: number,
): TermGroup[] {
  // A group is as rare as its most common alternative: conservative, so a
  // rare synonym cannot inflate a common word's weight.
  return groups.map((terms) => {
    const df = Math.max(0, ...terms.map((term) => frequencies.get(term) ?? 0));
    return { terms, df, idf: idf(docs, df) };
  });
}

/** Where each query term's frequency is summed: one slot per term group. */
export function slotsOf(groups: readonly TermGroup[]): Map<string, number[]> {
  const slots = new Map<string, number[]>();
  groups.forEach((group, index) => {
    for (const term of group.terms) slots.set(term, [...(slots.get(term) ?? []), index]);
  });
  return slots;
}

/**
 * BM25 with column weights (a term in the tags counts `tags` times), computed
 * here rather than by FTS5 so idf, k1 and b are ours to choose. Only query
 * terms are counted: this runs over every candidate of every search.
 */
export function bm25(
  doc: SearchDocument,
  groups: readonly TermGroup[],
  slots: Map<string, number[]>,
  weights: ColumnWeights,
  stats: IndexStats,
  params: Bm25Parameters,
): number {
  const tf = new Array<number>(groups.length).fill(0);
  const count = (terms: readonly string[], weight: number) => {
    for (const term of terms) {
      const hits = slots.get(term);
      if (hits) for (const slot of hits) tf[slot]! += weight;
    }
  };
  count(doc.content, weights.content);
  count(doc.tags, weights.tags);
  count(doc.meta, weights.meta);
  const lengthRatio = stats.averageLength > 0 ? documentLength(doc) / stats.averageLength : 1;
  const norm = params.k1 * (1 - params.b + params.b * lengthRatio);
  let score = 0;
  groups.forEach((group, index) => {
    const frequency = tf[index]!;
    if (frequency > 0) score += (group.idf * frequency * (params.k1 + 1)) / (frequency + norm);
  });
  return score;
}

/**
 * The score of an average-length document that contains each group once in
 * its content: relevance is measured against it, so it means the same on any
 * store and for any query.
 */
export function referenceScore(groups: readonly TermGroup[]): number {
  return groups.reduce((sum, group) => sum + group.idf, 0);
}
