import type { OperationScope } from '../../core/operations';
import { assertId, assertOptionalId } from '../../core/validation';
import { chatIfConfigured } from '../cli/context';
import { openServerStore } from '../mcp/server-store';
import { planBind } from './bind';
import { startHttpServer } from './server';
import { loadOrCreateToken, tokenCheck } from './token';

export interface ServeHttpOptions {
  /** The store folder; created if missing, as for the MCP server. */
  dir: string;
  scope: OperationScope;
  version: string;
  /** Where to listen: loopback when undefined. */
  host?: string;
  port: number;
  /** Lets `host` be an address other machines can reach. */
  allowRemote: boolean;
  /** `queue` or `immediate` for the clients' writes; default: they wait for a person's review. */
  review?: string;
  /** Told where the server is once it listens. */
  onListening: (info: ListeningInfo) => void;
  /** Warnings and errors, one line each, for standard error. */
  log: (line: string) => void;
}

export interface ListeningInfo {
  url: string;
  store: string;
  tokenFile: string;
  token: string;
  /** True when this start made the token. */
  tokenCreated: boolean;
}

/** The signals that stop the server: Ctrl-C, and what service managers and `kill` send. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Serves the store over HTTP (REST and MCP) until SIGINT or SIGTERM (or
 * until bin/workspace-memory.js, if it started this process, is gone); then
 * stops accepting, lets the requests in flight finish and closes the store.
 * Everything that can be refused (the scope, a remote address without
 * --allow-remote, a token file others can read) is refused before the port
 * is opened.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<void> {
  assertId(options.scope.agentId, 'agent id');
  assertOptionalId(options.scope.userId, 'user id');
  const bind = planBind(options.host, options.allowRemote);
  const { memory, close } = await openServerStore({ dir: options.dir, review: options.review, log: options.log });
  try {
    const { token, file, created } = loadOrCreateToken(memory.dir);
    if (!bind.loopback) {
      options.log(
        `warning: listening on ${bind.host}, which other machines can reach: anyone with the token can read and change the store, and plain HTTP is not encrypted (put TLS or an SSH tunnel in front).`,
      );
    }
    const stopped = stopSignal();
    const server = await startHttpServer({
      store: memory,
      scope: options.scope,
      version: options.version,
      token: tokenCheck(token),
      bind,
      port: options.port,
      log: options.log,
      ai: chatIfConfigured(),
    }).catch((error: unknown) => {
      stopped.dispose();
      throw error;
    });
    options.onListening({ url: server.url, store: memory.dir, tokenFile: file, token, tokenCreated: created });
    const signal = await stopped.received;
    options.log(`${signal}: finishing the requests in flight, then closing the store`);
    try {
      await server.close();
    } finally {
      stopped.dispose();
    }
  } finally {
    await close();
  }
}

/** How often a server started by bin/workspace-memory.js checks that the launcher is still there. */
const LAUNCHER_CHECK_MS = 1000;

/**
 * A stop signal that comes again this soon after the first is taken for the
 * same one delivered twice (systemd signals every process of the service,
 * and bin/workspace-memory.js passes the signal on as well), not for a
 * second request to stop at once.
 */
const REPEAT_MS = 1000;

/**
 * Resolves with the first stop signal: SIGINT or SIGTERM, or the launcher
 * (bin/workspace-memory.js, which names itself in
 * WORKSPACE_MEMORY_LAUNCHER_PID) being gone, killed outright with nothing
 * passed on. Its handlers stay until the shutdown: a second Ctrl-C
 * during it (the same signal again, later than REPEAT_MS) ends the process
 * at once, as Node's default would.
 */
function stopSignal(): { received: Promise<string>; dispose: () => void } {
  let dispose = () => {};
  const received = new Promise<string>((resolve) => {
    let first: number | undefined;
    const handler = (signal: NodeJS.Signals) => {
      if (first === undefined) {
        first = Date.now();
        resolve(signal);
      } else if (Date.now() - first > REPEAT_MS) {
        dispose();
        process.kill(process.pid, signal);
      }
    };
    const launcher = watchLauncher(() => {
      if (first !== undefined) return;
      first = Date.now();
      resolve('launcher gone');
    });
    dispose = () => {
      launcher?.dispose();
      STOP_SIGNALS.forEach((signal) => process.off(signal, handler));
    };
    STOP_SIGNALS.forEach((signal) => process.on(signal, handler));
  });
  return { received, dispose };
}

/**
 * Under bin/workspace-memory.js (which runs the CLI as its child where the
 * `node` on the PATH is too old), calls `gone` once the launcher has ended
 * and this process was left to another parent: a launcher killed with
 * SIGKILL cannot pass the signal on, and the server would otherwise go on
 * serving with no one to stop it.
 */
function watchLauncher(gone: () => void): { dispose: () => void } | undefined {
  const launcher = Number(process.env.WORKSPACE_MEMORY_LAUNCHER_PID);
  if (!Number.isInteger(launcher) || launcher <= 0 || process.ppid !== launcher) return undefined;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    gone();
  }, LAUNCHER_CHECK_MS);
  // It never keeps the process alive by itself.
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}
