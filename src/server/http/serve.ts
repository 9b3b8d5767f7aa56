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
 * Serves the store over HTTP (REST and MCP) until SIGINT or SIGTERM; then
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
    await server.close();
  } finally {
    await close();
  }
}

/**
 * Resolves with the first stop signal. Its handlers stay only until then:
 * a second Ctrl-C during the shutdown gets Node's default, which ends the
 * process at once.
 */
function stopSignal(): { received: Promise<string>; dispose: () => void } {
  let dispose = () => {};
  const received = new Promise<string>((resolve) => {
    const handler = (signal: string) => {
      dispose();
      resolve(signal);
    };
    dispose = () => STOP_SIGNALS.forEach((signal) => process.off(signal, handler));
    STOP_SIGNALS.forEach((signal) => process.on(signal, handler));
  });
  return { received, dispose };
}
