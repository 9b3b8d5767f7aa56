import type { Entity } from '../types';
import type { Searcher, SearchScope } from './searcher';
import { tokenize } from './tokenizer';

/** Cosine similarity of two texts' term-frequency vectors (stemmed terms), 0..1. */
export function textSimilarity(a: string, b: string): number {
  return termSimilarity(termCounts(a), termCounts(b));
}

/** Cosine similarity of two term-frequency vectors (see termCounts), 0..1. */
export function termSimilarity(left: ReadonlyMap<string, number>, right: ReadonlyMap<string, number>): number {
  let dot = 0;
  for (const [term, count] of left) dot += count * (right.get(term) ?? 0);
  if (dot === 0) return 0;
  return dot / (norm(left) * norm(right));
}

/** A text's stemmed terms and how often each occurs: what similarity compares. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of tokenize(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function norm(counts: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const count of counts.values()) sum += count * count;
  return Math.sqrt(sum);
}

/**
 * The most similar existing entity in the scope whose similarity to
 * `content` reaches `threshold`, if any. BM25 finds the candidates; cosine
 * similarity decides, because BM25 scores are not comparable across texts.
 */
export function findNearDuplicate<E extends Entity>(
  searcher: Searcher,
  scope: SearchScope,
  content: string,
  threshold: number,
  accept: (entity: E) => boolean = () => true,
): { entity: E; similarity: number } | undefined {
  let best: { entity: E; similarity: number } | undefined;
  for (const { entity } of searcher.search(scope, content, 20)) {
    const candidate = entity as E;
    if (!accept(candidate) || !('content' in candidate)) continue;
    const similarity = textSimilarity(content, candidate.content);
    if (similarity >= threshold && (!best || similarity > best.similarity)) best = { entity: candidate, similarity };
  }
  return best;
}
