/**
 * The store's thread. node:sqlite is synchronous and the extension host is
 * shared by every extension, so the database lives here and the extension
 * talks to it with messages (see client.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';

import { MemoryError } from '../../core/errors';
import { Memory } from '../../core/memory';
import { withProvenance } from '../../core/provenance';
import { ChangeBatcher, throttle } from './batching';
import { HostModels } from './host-model';
import { type WorkerMethods, workerMethods } from './methods';
import {
  isFacadeMethod,
  isNamespace,
  modelOptionsIndex,
  type Request,
  type Response,
  reviveError,
  serializeError,
  TASK_METHODS,
  type WorkerInit,
} from './protocol';

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread.');
const init = workerData as WorkerInit;

function post(message: Response): void {
  port!.postMessage(message);
}

function resolve(memory: Memory, extras: WorkerMethods, method: string): (...args: unknown[]) => unknown {
  const [head, name, ...rest] = method.split('.');
  const refuse = () => new Error(`The store has no method "${method}".`);
  if (rest.length > 0 || !head) throw refuse();
  if (name === undefined) {
    // Namespaces and facade methods a caller may reach (protocol.ts); anything else is refused.
    if (!isFacadeMethod(head)) throw refuse();
    const fn = (memory as unknown as Record<string, unknown>)[head];
    if (typeof fn !== 'function') throw refuse();
    return fn.bind(memory) as (...args: unknown[]) => unknown;
  }
  if (!isNamespace(head) || name.startsWith('_') || name === 'constructor') throw refuse();
  const target = (head === 'worker' ? extras : (memory as unknown as Record<string, unknown>)[head]) as Record<
    string,
    unknown
  >;
  // The team scope exists only where the store was opened with a team folder.
  if (head === 'team' && !target) throw new MemoryError('NOT_FOUND', 'This workspace has no team folder.');
  const fn = target?.[name];
  if (typeof fn !== 'function') throw refuse();
  return (fn as (...args: unknown[]) => unknown).bind(target);
}

async function main(booted: number, compileCache: string): Promise<void> {
  const loaded = Date.now();
  let memory: Memory;
  try {
    memory = await Memory.open({ dir: init.dir, ...init.options, onWarning: () => {} });
  } catch (error) {
    post({ kind: 'failed', error: serializeError(error) });
    return;
  }
  const extras = workerMethods(memory);
  const running = new Map<number, AbortController>();
  const models = new HostModels(post, reviveError);

  // Local writes are reported as they commit. data_version moves only on
  // commits by other connections, so the poll sees exactly those.
  let lastVersion = memory.dataVersion();
  const changes = new ChangeBatcher(post);
  memory.on('entity:save', ({ entity }) => changes.add(entity.id));
  memory.on('entity:update', ({ entity }) => changes.add(entity.id));
  memory.on('entity:delete', ({ entityId }) => changes.add(entityId));
  memory.on('entity:state', ({ entityId }) => changes.add(entityId));
  memory.on('store:replaced', () => changes.everything(true));
  const poll = setInterval(() => {
    if (memory.closed) return;
    try {
      const version = memory.dataVersion();
      if (version !== lastVersion) {
        lastVersion = version;
        post({ kind: 'changed', origin: 'external', entityIds: [] });
      }
    } catch {
      // A busy or briefly unreadable database: the next poll looks again; the worker must not die of it.
    }
  }, init.pollMs);

  async function call(request: Extract<Request, { kind: 'call' }>): Promise<void> {
    const controller = new AbortController();
    running.set(request.id, controller);
    try {
      const fn = resolve(memory, extras, request.method);
      const args = [...request.args];
      if (request.task) {
        if (!(TASK_METHODS as readonly string[]).includes(request.method)) {
          throw new Error(`"${request.method}" is not a long operation.`);
        }
        // Long work gets progress reports and can be cancelled: both are
        // options of the core's long operations.
        const last = args.length - 1;
        const options = (args[last] ?? {}) as Record<string, unknown>;
        args[last] = {
          ...options,
          signal: controller.signal,
          onProgress: throttle((value: unknown) => post({ kind: 'progress', id: request.id, value })),
        };
      }
      if (request.model) {
        const at = modelOptionsIndex(request.method);
        if (at === undefined) throw new Error(`"${request.method}" does not ask a model.`);
        // The host's model, asked by message, and the call's cancellation, in its options.
        const options = (args[at] ?? {}) as Record<string, unknown>;
        args[at] = { ...options, ai: models.forCall(request.id, controller.signal), signal: controller.signal };
      }
      const value = await (request.as ? withProvenance(request.as, () => fn(...args)) : fn(...args));
      post({ kind: 'result', id: request.id, value });
    } catch (error) {
      post({ kind: 'error', id: request.id, error: serializeError(error) });
    } finally {
      running.delete(request.id);
    }
  }

  port!.on('message', (request: Request) => {
    if (request.kind === 'call') void call(request);
    else if (request.kind === 'cancel') running.get(request.id)?.abort();
    else if (request.kind === 'model-reply') models.reply(request.ask, request.text, request.error);
    else if (request.kind === 'close') {
      clearInterval(poll);
      changes.flush();
      for (const controller of running.values()) controller.abort();
      void memory.close().finally(() => {
        post({ kind: 'closed' });
        port!.close();
      });
    }
  });
  post({ kind: 'ready', timings: { booted, loaded, opened: Date.now(), compileCache } });
}

/** Called by worker.ts once this module is loaded, with the time the thread began. */
export function start(booted: number, compileCache: string): void {
  void main(booted, compileCache);
}
