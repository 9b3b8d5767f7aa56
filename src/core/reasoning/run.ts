import type { z } from 'zod';

import type { AiProvider } from '../ai/provider';
import { inputBudget } from '../ai/structured';
import { isMemoryError, MemoryError } from '../errors';
import { charsForTokens } from './budget';
import { fuse } from './fusion';
import { askModel, type ModelRequest } from './model';
import type { ReasoningSettings } from './settings';
import type { Hit, ReasoningStep, SearchFn } from './types';

/** One reasoned search in progress: what it was given, what it did and what it found. */
export interface Run<T extends Hit> {
  readonly ai: AiProvider;
  readonly search: SearchFn<T>;
  readonly query: string;
  readonly limit: number;
  readonly settings: ReasoningSettings;
  readonly signal: AbortSignal | undefined;
  readonly steps: ReasoningStep[];
  /** Ids of every hit the run's searches returned, to count what a step adds. */
  readonly found: Set<string>;
}

const cancelled = (cause: unknown) => new MemoryError('CANCELLED', 'The reasoned search was cancelled.', { cause });

/** One search of the run; a failure once the run is cancelled is reported as CANCELLED, whoever raised it. */
async function searchOnce<T extends Hit>(run: Run<T>, query: string, limit: number): Promise<T[]> {
  try {
    const hits = await run.search(query, limit, run.signal);
    if (run.signal?.aborted) throw cancelled(run.signal.reason);
    return hits;
  } catch (error) {
    if (run.signal?.aborted && !isMemoryError(error, 'CANCELLED')) throw cancelled(error);
    throw error;
  }
}

/**
 * Runs `queries` side by side. `fresh` is what no earlier search of the
 * run had found, best first; it is counted as found from now on.
 */
export async function searchAll<T extends Hit>(
  run: Run<T>,
  queries: readonly string[],
  limit = run.limit,
): Promise<{ lists: T[][]; fresh: T[] }> {
  const lists = await Promise.all(queries.map((query) => searchOnce(run, query, limit)));
  const fresh = fuse(lists).filter((hit) => !run.found.has(hit.id));
  for (const hit of fresh) run.found.add(hit.id);
  return { lists, fresh };
}

const queryKey = (query: string): string => query.toLowerCase().replace(/\s+/g, ' ').trim();

/** The proposed queries not run already (nor twice in the proposal), ignoring case and spacing: a repeat finds nothing new. */
export function newQueries(proposed: readonly string[], alreadyRun: readonly string[]): string[] {
  const seen = new Set(alreadyRun.map(queryKey));
  return proposed.filter((query) => {
    const key = queryKey(query);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Characters left for a request's input once its instructions and format are counted. */
export function inputRoom(run: Run<Hit>, instructions: string, format: string): number {
  return inputBudget(instructions, format, charsForTokens(run.settings.maxPromptTokens));
}

export function ask<S extends z.ZodType>(run: Run<Hit>, request: ModelRequest<S>): Promise<z.output<S>> {
  return askModel(run.ai, request, run.settings, run.signal);
}
