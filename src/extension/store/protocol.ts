/**
 * Messages between the extension host and the store's worker thread.
 * Everything crossing the boundary is structured-cloned, so it holds plain
 * data only: callbacks (progress) and AbortSignals are rebuilt on each side.
 */
import type { MemoryErrorCode } from '../../core/errors';
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

/** Long operations, run with progress reports and cancellation (their last argument is an options object). */
export const TASK_METHODS = ['rag.sync', 'rag.syncFiles'] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];

export function isNamespace(name: string): name is Namespace {
  return (NAMESPACES as readonly string[]).includes(name);
}

export function isFacadeMethod(name: string): name is FacadeMethod {
  return (FACADE_METHODS as readonly string[]).includes(name);
}

export type Request =
  /** `as`: who the call writes as (see StoreClient.as); the worker's default writer otherwise. */
  | { kind: 'call'; id: number; method: string; args: unknown[]; task?: boolean; as?: Provenance }
  | { kind: 'cancel'; id: number }
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
  | { kind: 'closed' };
