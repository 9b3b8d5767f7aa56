/**
 * Messages between the extension host and the store's worker thread.
 * Everything crossing the boundary is structured-cloned, so it holds plain
 * data only: callbacks (progress) and AbortSignals are rebuilt on each side.
 */
import type { MemoryErrorCode } from '../../core/errors';
import type { MemoryOptions } from '../../core/memory';

/** What the worker needs to open the store; sent as `workerData`. */
export interface WorkerInit {
  dir: string;
  options: Pick<MemoryOptions, 'author' | 'synonyms' | 'scoring' | 'dedupThreshold'>;
  /** How often to look for commits by other processes (the CLI, the MCP server). */
  pollMs: number;
  /** Where V8 may cache the compiled store code between starts (see worker.ts). */
  compileCacheDir?: string;
}

export type Request =
  | { kind: 'call'; id: number; method: string; args: unknown[]; task?: boolean }
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
