import { RRF_K } from '../search/hybrid';
import type { Hit } from './types';

/**
 * Result lists fused by Reciprocal Rank Fusion, as hybrid search fuses its
 * keyword and vector lists: ranks, not scores, count, since each list's
 * scores come from a different query. A hit found by several lists keeps
 * the object of the first; ties keep the order of the lists, so the
 * original query's list, passed first, wins them.
 */
export function fuse<T extends Hit>(lists: readonly (readonly T[])[]): T[] {
  const fused = new Map<string, { hit: T; score: number }>();
  for (const list of lists) {
    list.forEach((hit, index) => {
      const share = 1 / (RRF_K + index + 1);
      const entry = fused.get(hit.id);
      if (entry) entry.score += share;
      else fused.set(hit.id, { hit, score: share });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score).map((entry) => entry.hit);
}
