/**
 * Model calls for a reasoned search: bounded in output and time, cancelled
 * with the run, and every failure other than cancellation turned into a
 * ModelFailure, which plain search answers for.
 */
import type { z } from 'zod';

import type { AiProvider, ChatOptions } from '../ai/provider';
import { askStructured } from '../ai/structured';
import { isMemoryError } from '../errors';
import type { Degradation } from './types';

/** A model call that failed in a way plain search can stand in for. */
export class ModelFailure extends Error {
  override readonly name = 'ModelFailure';
  constructor(
    readonly kind: Degradation['cause'],
    message: string,
  ) {
    super(message);
  }
}

export interface CallLimits {
  maxOutputTokens: number;
  timeoutMs: number;
}

/**
 * Starts `work` and settles with it or, as soon as `signal` aborts, rejects
 * with `reason()`: a provider that ignores its signal cannot hold the run.
 * An already aborted signal never fires, so it is checked first.
 */
async function untilAborted<R>(signal: AbortSignal, reason: () => Error, work: () => Promise<R>): Promise<R> {
  if (signal.aborted) throw reason();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work(), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `ai` with every call limited to `limits`: its reply in tokens, its wait in time. */
function bounded(ai: AiProvider, limits: CallLimits): AiProvider {
  return {
    chat(messages, options: ChatOptions = {}) {
      const outer = options.signal;
      const timer = AbortSignal.timeout(limits.timeoutMs);
      const signal = outer ? AbortSignal.any([outer, timer]) : timer;
      // Said as a timeout even when the run was cancelled: askStructured reports any failure after its caller aborted as CANCELLED.
      const reason = () => new ModelFailure('timeout', `The model did not answer within ${limits.timeoutMs} ms.`);
      return untilAborted(signal, reason, () => ai.chat(messages, { signal, maxTokens: limits.maxOutputTokens }));
    },
  };
}

/**
 * The failure as the run reports it: cancellation as itself (askStructured
 * already reports any failure after an abort as CANCELLED), anything else
 * as a ModelFailure saying what failed.
 */
function asFailure(error: unknown, task: string): Error {
  if (isMemoryError(error, 'CANCELLED')) return error;
  if (error instanceof ModelFailure) return new ModelFailure(error.kind, `${task}: ${error.message}`);
  const message = error instanceof Error ? error.message : String(error);
  return new ModelFailure(
    isMemoryError(error, 'AI_INVALID_OUTPUT') ? 'invalid-output' : 'unavailable',
    `${task}: ${message}`,
  );
}

export interface ModelRequest<S extends z.ZodType> {
  /** What is being done, for the reason a failure gives ("Could not rewrite the query"). */
  task: string;
  instructions: string;
  format: string;
  input: string;
  schema: S;
}

/**
 * The model's answer, checked against the schema; an unusable reply is sent
 * back once with what was wrong (askStructured). Throws CANCELLED when the
 * run is cancelled and a ModelFailure for anything else.
 */
export async function askModel<S extends z.ZodType>(
  ai: AiProvider,
  request: ModelRequest<S>,
  limits: CallLimits,
  signal: AbortSignal | undefined,
): Promise<z.output<S>> {
  const { task, ...prompt } = request;
  try {
    return await askStructured({ ai: bounded(ai, limits), ...prompt, attempts: 2, signal });
  } catch (error) {
    throw asFailure(error, task);
  }
}
