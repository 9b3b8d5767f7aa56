import type { AiProvider } from '../ai/provider';
import { MemoryError } from '../errors';
import { iterate } from './iterative';
import { ModelFailure } from './model';
import { rerank } from './rerank';
import { rewrite } from './rewrite';
import { type Run, searchAll } from './run';
import { reasoningSettings, wantsReasoning } from './settings';
import type { Hit, ReasonedResult, ReasoningMode, ReasoningOptions, SearchFn } from './types';

/** The strategy of every plain result, shared; frozen, since callers hold it. */
const PLAIN: Readonly<ReasonedResult<Hit>['strategy']> = Object.freeze({ reasoning: 'none', rerank: false });

type Reasoner = <T extends Hit>(run: Run<T>, original: T[]) => Promise<T[]>;

const REASONERS: Record<ReasoningMode, Reasoner> = {
  none: async (_run, original) => original,
  rewrite,
  iterative: iterate,
};

/**
 * `search` for `query`, improved by the model as `options` ask: see
 * ReasoningMode and ReasoningOptions.rerank. Plain options cost one
 * check: the search answers as it is. When the model fails (unavailable,
 * unusable replies after one correction, too slow), the query's own
 * results answer, unchanged, and `degraded` says why; only cancellation
 * (CANCELLED) and the search's own failures are thrown, and INVALID_INPUT
 * for options out of range, before anything runs.
 */
export async function reasonedSearch<T extends Hit>(
  ai: AiProvider,
  search: SearchFn<T>,
  query: string,
  limit: number,
  options: ReasoningOptions = {},
): Promise<ReasonedResult<T>> {
  if (!wantsReasoning(options)) {
    return { results: await search(query, limit, options.signal), strategy: PLAIN, steps: [] };
  }
  if (!Number.isInteger(limit) || limit < 1) {
    throw new MemoryError('INVALID_INPUT', `limit must be a whole number of at least 1 (got ${limit}).`);
  }
  const settings = reasoningSettings(options);
  const run: Run<T> = { ai, search, query, limit, settings, signal: options.signal, steps: [], found: new Set() };
  // Reranking reads beyond the limit, so it can bring up what plain search ranked just below it.
  const depth = settings.rerank ? Math.max(limit, settings.rerankTop) : limit;
  const [original = []] = (await searchAll(run, [query], depth)).lists;
  run.steps.push({ kind: 'search', queries: [query], newResults: original.length });
  const strategy = { reasoning: settings.reasoning, rerank: settings.rerank };
  try {
    const reasoned = await REASONERS[settings.reasoning](run, original);
    const results = settings.rerank ? await rerank(run, reasoned) : reasoned;
    return { results: results.slice(0, limit), strategy, steps: run.steps };
  } catch (error) {
    if (!(error instanceof ModelFailure)) throw error;
    const degraded = { cause: error.kind, reason: error.message };
    return { results: original.slice(0, limit), strategy, steps: run.steps, degraded };
  }
}
