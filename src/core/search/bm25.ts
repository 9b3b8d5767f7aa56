import { documentLength, type SearchDocument } from './documents';
import type { ColumnWeights } from './fts-index';

export interface Bm25Parameters {
  /** Term-frequency saturation. */
  k1: number;
}

/** What length normalization needs to know about the documents being ranked. */
export interface CollectionStats {
  /** Average document length in terms. */
  averageLength: number;
  /** Mean verboseness of the documents (see TermCounts), at least 1. */
  verboseness: number;
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

/** What BM25 needs to know of one document, read from it in one pass. */
export interface TermCounts {
  /** The weighted frequency of each query group in the document, by slot. */
  tf: number[];
  /** Its length in terms (see documentLength). */
  length: number;
  /**
   * How many times it uses each of its distinct terms, on average: 1 when no
   * term repeats (a short note, a chat message), more in a long text that
   * keeps coming back to its subject.
   */
  verboseness: number;
}

/**
 * Counts a document's query terms by column weight (a term in the tags counts
 * `tags` times) and its distinct terms, in one pass: this runs over every
 * candidate of every search.
 */
export function countTerms(
  doc: SearchDocument,
  slots: Map<string, number[]>,
  groupCount: number,
  weights: ColumnWeights,
): TermCounts {
  const tf = new Array<number>(groupCount).fill(0);
  // The Set costs about as much as the counting; in the same loop each term
  // is hashed once for both.
  const distinct = new Set<string>();
  const count = (terms: readonly string[], weight: number) => {
    for (const term of terms) {
      distinct.add(term);
      const hits = slots.get(term);
      if (hits) for (const slot of hits) tf[slot]! += weight;
    }
  };
  count(doc.content, weights.content);
  count(doc.tags, weights.tags);
  count(doc.meta, weights.meta);
  const length = documentLength(doc);
  return { tf, length, verboseness: distinct.size > 0 ? length / distinct.size : 1 };
}

/**
 * The mean verboseness of the documents being ranked (1 for none), which
 * stands for the collection's: measured, within 1% of it (1.02 on chat turns,
 * 1.76 against 1.77 on SciFact's abstracts), and the ranking hardly moves for
 * a 10% error, whereas the collection's own would take a scan of the whole
 * vocabulary per search.
 */
export function meanVerboseness(counts: readonly TermCounts[]): number {
  return counts.length > 0 ? counts.reduce((sum, doc) => sum + doc.verboseness, 0) / counts.length : 1;
}

/**
 * BM25's length normalization, in the parameter-free form of Lipani et al.
 * ("Verboseness Fission for BM25 Document Length Normalization", ICTIR 2015):
 * v / m² + (1 − 1/m) · length / averageLength, for a document of verboseness v
 * in a collection of mean verboseness m. A document is longer either because
 * it repeats itself (verbosity: normalize it away) or because it says more
 * (scope: let it match more). Classic BM25 assumes a fixed share of each (b =
 * 0.75); here the collection's own repetition sets it, so texts that never
 * repeat a word (memories, chat turns) are hardly normalized at all, and the
 * longer ones, which say more, are no longer ranked below one-liners, while
 * abstracts and document chunks are normalized much as before. An average
 * document (v = m, average length) gets 1, as in classic BM25.
 */
function lengthNormalization(doc: TermCounts, stats: CollectionStats): number {
  const m = stats.verboseness;
  const lengthRatio = stats.averageLength > 0 ? doc.length / stats.averageLength : 1;
  return doc.verboseness / (m * m) + (1 - 1 / m) * lengthRatio;
}

/**
 * BM25 from a document's term counts, computed here rather than by FTS5 so
 * idf, k1 and the length normalization are ours to choose.
 */
export function bm25(
  doc: TermCounts,
  groups: readonly TermGroup[],
  stats: CollectionStats,
  params: Bm25Parameters,
): number {
  const norm = params.k1 * lengthNormalization(doc, stats);
  let score = 0;
  groups.forEach((group, index) => {
    const frequency = doc.tf[index]!;
    if (frequency > 0) score += (group.idf * frequency * (params.k1 + 1)) / (frequency + norm);
  });
  return score;
}

/**
 * The score of an average document (average length and verboseness) that
 * contains each group once in its content: relevance is measured against it,
 * so it means the same on any store and for any query.
 */
export function referenceScore(groups: readonly TermGroup[]): number {
  return groups.reduce((sum, group) => sum + group.idf, 0);
}
