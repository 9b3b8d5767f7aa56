/**
 * Messages between the extension host and the store's worker thread.
 * Everything crossing the boundary is structured-cloned, so it holds plain
 * data only: callbacks (progress) and AbortSignals are rebuilt on each side.
 */
import type { ChatMessage } from '../../core/ai/provider';
import { isMemoryError, MemoryError, type MemoryErrorCode } from '../../core/errors';
import type { MemoryOptions } from '../../core/memory';
import type { Provenance } from '../../core/provenance';

/** What the worker needs to open the store; sent as `workerData`. */
export interface WorkerInit {
  dir: string;
  options: Pick<
    MemoryOptions,
    | 'author'
    | 'writer'
    | 'review'
    | 'secrets'
    | 'synonyms'
    | 'scoring'
    | 'dedupThreshold'
    | 'workspaceFolders'
    | 'staleness'
    | 'recallConversations'
    | 'teamFolder'
  >;
  /** How often to look for commits by other processes (the CLI, the MCP server). */
  pollMs: number;
  /** Where V8 may cache the compiled store code between starts (see worker.ts). */
  compileCacheDir?: string;
}

/**
 * What the worker serves, written once: the client's types, its proxy and the
 * worker's allow-list are all derived from these two lists.
 */
export const NAMESPACES = [
  'memories',
  'skills',
  'knowledge',
  'sessions',
  'profiles',
  'rag',
  'review',
  'secretAudit',
  'team',
  'worker',
] as const;
export const FACADE_METHODS = [
  'get',
  'history',
  'snapshot',
  'listSnapshots',
  'restore',
  'recall',
  'rebuildIndex',
  'verify',
  'stats',
  'cleanup',
  'dataVersion',
  'revert',
  'citingFiles',
  'citedEntities',
  'checkCitations',
  'unused',
  'staleNotes',
] as const;
export type Namespace = (typeof NAMESPACES)[number];
export type FacadeMethod = (typeof FACADE_METHODS)[number];

/**
 * Methods that may ask the host's language model (reasoning, reranking), by
 * the position of their options argument: a call made with `model` gets
 * there an `ai` that asks the host and a `signal` that the call's
 * cancellation aborts.
 */
export const MODEL_METHODS: Readonly<Record<string, number>> = {
  recall: 3, // recall(agentId, userId, query, options)
  'worker.operation': 3, // operation(name, scope, args, options)
};

/** The position of a method's options argument when it may ask a model; undefined when it may not. */
export function modelOptionsIndex(method: string): number | undefined {
  return Object.hasOwn(MODEL_METHODS, method) ? MODEL_METHODS[method] : undefined;
}

/** Long operations, run with progress reports and cancellation (their last argument is an options object). */
export const TASK_METHODS = ['rag.sync', 'rag.syncFiles', 'worker.detectSources', 'worker.importSources'] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];

export function isNamespace(name: string): name is Namespace {
  return (NAMESPACES as readonly string[]).includes(name);
}

export function isFacadeMethod(name: string): name is FacadeMethod {
  return (FACADE_METHODS as readonly string[]).includes(name);
}

export type Request =
  /** `as`: who the call writes as (see StoreClient.as); the worker's default writer otherwise. */
  | {
      kind: 'call';
      id: number;
      method: string;
      args: unknown[];
      task?: boolean;
      as?: Provenance;
      /** The call may ask the host's model (MODEL_METHODS): its questions come back as `model` messages. */
      model?: boolean;
    }
  | { kind: 'cancel'; id: number }
  /** The host model's answer to the worker's question `ask`, or why there is none. */
  | { kind: 'model-reply'; ask: number; text?: string; error?: SerializedError }
  | { kind: 'close' };

/** Wall-clock times (ms since the epoch) of the worker's start-up, for the log and the benchmarks. */
export interface WorkerTimings {
  /** The thread ran its first line (worker.ts). */
  booted: number;
  /** The store's code was loaded (store-worker.ts began). */
  loaded: number;
  /** The database was open. */
  opened: number;
  /** V8's compile cache for the store's code: "on", "off", or why it is not on. */
  compileCache: string;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: MemoryErrorCode;
}

/** Why the store changed: a write through this worker, or one by another process. */
export type ChangeOrigin = 'local' | 'external';

export type Response =
  | { kind: 'ready'; timings: WorkerTimings }
  | { kind: 'failed'; error: SerializedError }
  | { kind: 'result'; id: number; value: unknown }
  | { kind: 'error'; id: number; error: SerializedError }
  | { kind: 'progress'; id: number; value: unknown }
  | { kind: 'changed'; origin: ChangeOrigin; entityIds: string[]; replaced?: boolean }
  /** Call `id` asks the host's model; the host answers with `model-reply` for `ask`. */
  | { kind: 'model'; id: number; ask: number; messages: ChatMessage[]; maxTokens?: number }
  /** The worker no longer wants the answer to `ask` (cancelled, or out of time). */
  | { kind: 'model-cancel'; ask: number }
  | { kind: 'closed' };

/** An error as it crosses the boundary: its name, message and the store's code. */
export function serializeError(error: unknown): SerializedError {
  if (isMemoryError(error)) return { name: error.name, message: error.message, code: error.code };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** An error that crossed the boundary, as the store's own again (its code kept). */
export function reviveError(error: SerializedError): Error {
  if (error.code) return new MemoryError(error.code, error.message);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}
