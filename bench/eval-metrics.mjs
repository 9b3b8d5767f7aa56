// Ranking metrics shared by the evaluation modes. `ranked` is a list of ids,
// best first; `relevant` a Map or Set of the judged ids.

/** nDCG@k with the judged grades as gains (BEIR's convention); `relevant` maps id to grade. */
export function ndcg(ranked, relevant, k) {
  let dcg = 0;
  ranked.slice(0, k).forEach((doc, i) => {
    const gain = relevant.get(doc) ?? 0;
    if (gain) dcg += (2 ** gain - 1) / Math.log2(i + 2);
  });
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, gain, i) => sum + (2 ** gain - 1) / Math.log2(i + 2), 0);
  return idcg ? dcg / idcg : 0;
}

/** The share of the relevant ids found among the first k. */
export const recall = (ranked, relevant, k) =>
  ranked.slice(0, k).filter((doc) => relevant.has(doc)).length / relevant.size;

/** Reciprocal rank of the first relevant id within the first k, else 0. */
export function mrr(ranked, relevant, k) {
  const index = ranked.slice(0, k).findIndex((doc) => relevant.has(doc));
  return index < 0 ? 0 : 1 / (index + 1);
}

/** The median of a list of numbers (the upper one of an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
