/**
 * The extension host's side of the store: every call is a message to the
 * worker thread that owns the database, so nothing here blocks the host's
 * event loop. `StoreClient.memory` mirrors the core facade with every method
 * made asynchronous, so features are written against the core's own types.
 */
import type { HeapInfo } from 'node:v8';
import { Worker } from 'node:worker_threads';

import type { AiProvider } from '../../core/ai/provider';
import { MemoryError } from '../../core/errors';
import type { Memory } from '../../core/memory';
import { currentProvenance, type Provenance } from '../../core/provenance';
import type { WorkerMethods } from './methods';
import {
  type ChangeOrigin,
  type FacadeMethod,
  isNamespace,
  modelOptionsIndex,
  type Namespace,
  type Request,
  type Response,
  reviveError,
  serializeError,
  type TaskMethod,
  type WorkerInit,
} from './protocol';

type Fn = (...args: never[]) => unknown;
type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
/** The callable members of T, each returning a promise. */
export type Remote<T> = { [K in keyof T as T[K] extends Fn ? K : never]: Async<T[K]> };

export type RemoteMemory = { [N in Exclude<Namespace, 'worker'>]: Remote<NonNullable<Memory[N]>> } & Remote<
  Pick<Memory, FacadeMethod>
> & {
    worker: Remote<WorkerMethods>;
  };

export interface StoreChange {
  origin: ChangeOrigin;
  /** The entities written, when known (empty after a restore, an import or an external write). */
  entityIds: string[];
  /** The whole state was replaced (a snapshot restore, an import). */
  replaced?: boolean;
}

/** How long each step of starting the store took, in ms. */
export interface StartupTimings {
  /** Creating the thread, until its first line ran. */
  thread: number;
  /** Loading the store's code. */
  load: number;
  /** Opening the database. */
  open: number;
  /** Until the extension host handled the "ready" message (a busy host delays it). */
  delivery: number;
  /** Whether the store's code came from V8's compile cache ("on"), or why not. */
  compileCache: string;
}

export interface TaskOptions<P> {
  onProgress?: (progress: P) => void;
  signal?: AbortSignal;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (value: unknown) => void;
  /** The model this call's questions go to (see StoreClient.view), and the questions being answered. */
  model?: { provider: AiProvider; asks: Map<number, AbortController> };
}

/** How a view of the store calls it: as which writer, and with which model for the calls that can ask one. */
export interface ViewOptions {
  as?: Provenance;
  model?: AiProvider;
}

/**
 * The worker's young generation, in MB. V8 sizes it from the machine's memory
 * (tens of MB here), and a doc sync, which makes garbage fast, filled the
 * worker's heap to 200 MB of pages, nearly all garbage, which stayed resident
 * while the worker idled and for seconds after it stopped (V8 pools pages
 * for the whole process). At 8 MB the heap peaks below 100 MB, with no more CPU
 * for the sync or for searches (docs/performance.md, "Memory in the extension host").
 */
const YOUNG_GENERATION_MB = 8;

/** The arguments with an options object at `index` (the caller's, or an empty one), which the worker adds the model to. */
function withOptionsAt(args: readonly unknown[], index: number): unknown[] {
  const padded = [...args];
  while (padded.length <= index) padded.push(undefined);
  padded[index] ??= {};
  return padded.slice(0, index + 1);
}

export class StoreClient {
  readonly memory: RemoteMemory;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(change: StoreChange) => void>();
  private readonly stopListeners = new Set<(exitCode: number) => void>();
  private nextId = 1;
  private closed = false;
  private exitError: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    readonly startup: StartupTimings,
  ) {
    this.memory = this.proxy();
    worker.on('message', (message: Response) => this.receive(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      const unexpected = !this.closed;
      this.closed = true;
      this.fail(new MemoryError('STORE_CLOSED', `The store's worker stopped (exit code ${code}).`));
      if (unexpected) for (const listener of [...this.stopListeners]) listener(code);
    });
  }

  /** Starts the worker at `script` (dist/worker.js) and waits until the store is open. */
  static async start(script: string, init: WorkerInit): Promise<StoreClient> {
    const started = Date.now();
    const worker = new Worker(script, {
      workerData: init,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    let startup: StartupTimings | undefined;
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: Response) => {
        if (message.kind === 'ready') {
          const { booted, loaded, opened, compileCache } = message.timings;
          startup = {
            thread: booted - started,
            load: loaded - booted,
            open: opened - loaded,
            delivery: Date.now() - opened,
            compileCache,
          };
          finish();
        } else if (message.kind === 'failed') finish(reviveError(message.error));
      };
      // The thread died (out of memory, an uncaught exception): a crash, as is an exit, unlike a
      // store that refused to open, which the worker reports as 'failed'.
      const onError = (error: Error) =>
        finish(
          new MemoryError('STORE_CLOSED', `The store's worker failed while opening: ${error.message}`, {
            cause: error,
          }),
        );
      const onExit = (code: number) =>
        finish(new MemoryError('STORE_CLOSED', `The store's worker stopped while opening (exit code ${code}).`));
      const finish = (error?: Error) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (error) {
          void worker.terminate();
          reject(error);
        } else resolve();
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
    return new StoreClient(worker, startup!);
  }

  /** Calls `method` ("memories.save", "stats", "worker.searchAll"…) in the worker. */
  call<T>(method: string, args: unknown[], view: ViewOptions = {}): Promise<T> {
    return this.send(method, args, false, {}, view) as Promise<T>;
  }

  /**
   * The store as seen by one writer, or with one model: every commit made
   * through the returned proxy records `as` (Copilot through a tool, with
   * its model and chat), and the calls that can reason (MODEL_METHODS) ask
   * `model`, here on the host, where vscode.lm is. The client's own
   * `memory` writes as the person using VS Code and asks no model.
   */
  view(options: ViewOptions): RemoteMemory {
    return this.proxy(options);
  }

  /**
   * Runs a long operation whose last argument is an options object with
   * `onProgress` and `signal` (rag.sync, rag.ingest): progress is relayed
   * here and aborting `signal` cancels it in the worker.
   */
  task<T, P = unknown>(method: TaskMethod, args: unknown[], options: TaskOptions<P> = {}): Promise<T> {
    return this.send(method, args, true, options as TaskOptions<unknown>) as Promise<T>;
  }

  /** The worker stopped without being closed (it crashed, or ran out of memory). */
  onDidStop(listener: (exitCode: number) => void): { dispose(): void } {
    this.stopListeners.add(listener);
    return { dispose: () => this.stopListeners.delete(listener) };
  }

  onDidChange(listener: (change: StoreChange) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Closes the database (checkpointing its WAL) and stops the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const done = new Promise<void>((resolve) => {
      this.worker.once('exit', () => resolve());
      this.worker.on('message', (message: Response) => message.kind === 'closed' && resolve());
    });
    this.worker.postMessage({ kind: 'close' } satisfies Request);
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
    await Promise.race([done, timeout]);
    await this.worker.terminate();
  }

  private send(
    method: string,
    args: unknown[],
    task: boolean,
    options: TaskOptions<unknown> = {},
    view: ViewOptions = {},
  ): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(this.exitError ?? new MemoryError('STORE_CLOSED', 'The store is closed.'));
    }
    if (options.signal?.aborted) return Promise.reject(new MemoryError('CANCELLED', 'Cancelled.'));
    const id = this.nextId++;
    const optionsAt = view.model ? modelOptionsIndex(method) : undefined;
    const asking = optionsAt !== undefined;
    return new Promise((resolve, reject) => {
      const cancel = () => this.worker.postMessage({ kind: 'cancel', id } satisfies Request);
      options.signal?.addEventListener('abort', cancel, { once: true });
      const model = asking ? { provider: view.model!, asks: new Map<number, AbortController>() } : undefined;
      const settle =
        <V>(fn: (value: V) => void) =>
        (value: V) => {
          options.signal?.removeEventListener('abort', cancel);
          this.pending.delete(id);
          // An answer nobody waits for any more is not worth the model's time.
          for (const controller of model?.asks.values() ?? []) controller.abort();
          fn(value);
        };
      this.pending.set(id, {
        resolve: settle(resolve),
        reject: settle(reject),
        onProgress: options.onProgress,
        ...(model ? { model } : {}),
      });
      try {
        // Arguments are cloned; a function or a class instance among them is a caller's bug.
        // Work run as another writer on this side (mining, consolidation: see asWriter) writes as it there too.
        const writer = view.as ?? currentProvenance();
        this.worker.postMessage({
          kind: 'call',
          id,
          method,
          // A call that may ask the model has its options object (the worker adds the model to it).
          args: optionsAt === undefined ? args : withOptionsAt(args, optionsAt),
          task,
          as: writer,
          ...(asking ? { model: true } : {}),
        } satisfies Request);
      } catch (error) {
        this.pending.get(id)?.reject(error as Error);
      }
    });
  }

  /** The worker thread's JavaScript heap, for the log and the benchmarks (its SQLite memory is not in it). */
  workerHeapStatistics(): Promise<HeapInfo> {
    return this.worker.getHeapStatistics();
  }

  /**
   * The longest time, in ms, one store message kept the host's event loop
   * busy in this client and its listeners (tree refreshes, progress): the
   * extension's own share of any block, for the log and the benchmarks.
   */
  longestHandlingMs = 0;

  private receive(message: Response): void {
    const started = performance.now();
    try {
      this.dispatch(message);
    } finally {
      this.longestHandlingMs = Math.max(this.longestHandlingMs, performance.now() - started);
    }
  }

  private dispatch(message: Response): void {
    switch (message.kind) {
      case 'result':
        this.pending.get(message.id)?.resolve(message.value);
        break;
      case 'error':
        this.pending.get(message.id)?.reject(reviveError(message.error));
        break;
      case 'progress':
        this.pending.get(message.id)?.onProgress?.(message.value);
        break;
      case 'model':
        this.answer(message);
        break;
      case 'model-cancel':
        for (const pending of this.pending.values()) pending.model?.asks.get(message.ask)?.abort();
        break;
      case 'changed':
        for (const listener of [...this.listeners])
          listener({ origin: message.origin, entityIds: message.entityIds, replaced: message.replaced });
        break;
      default:
        break;
    }
  }

  /** Asks the call's model the worker's question, and posts the answer (or why there is none) back. */
  private answer(question: Extract<Response, { kind: 'model' }>): void {
    const model = this.pending.get(question.id)?.model;
    const reply = (result: { text: string } | { error: unknown }) => {
      model?.asks.delete(question.ask);
      if (this.closed) return;
      this.worker.postMessage(
        'text' in result
          ? ({ kind: 'model-reply', ask: question.ask, text: result.text } satisfies Request)
          : ({ kind: 'model-reply', ask: question.ask, error: serializeError(result.error) } satisfies Request),
      );
    };
    if (!model) {
      reply({ error: new MemoryError('AI_UNAVAILABLE', 'This call was made without a model.') });
      return;
    }
    const controller = new AbortController();
    model.asks.set(question.ask, controller);
    const options = {
      signal: controller.signal,
      ...(question.maxTokens === undefined ? {} : { maxTokens: question.maxTokens }),
    };
    model.provider.chat(question.messages, options).then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error }),
    );
  }

  private fail(error: Error): void {
    this.exitError ??= error;
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }

  private proxy(view: ViewOptions = {}): RemoteMemory {
    const namespace = (name: string) =>
      new Proxy(
        {},
        {
          get:
            (_target, method) =>
            (...args: unknown[]) =>
              this.call(`${name}.${String(method)}`, args, view),
        },
      );
    return new Proxy({} as RemoteMemory, {
      get: (_target, key) => {
        const name = String(key);
        // `then` must stay undefined, or awaiting the proxy would call it.
        if (name === 'then') return undefined;
        return isNamespace(name) ? namespace(name) : (...args: unknown[]) => this.call(name, args, view);
      },
    });
  }
}
