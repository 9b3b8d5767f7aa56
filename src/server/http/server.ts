import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { getRequestListener } from '@hono/node-server';

import { MemoryError } from '../../core/errors';
import { type AppOptions, createApp } from './app';
import { urlHostname } from './bind';

/** How long a shutdown waits for requests in flight before it cuts their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface HttpServerOptions extends Omit<AppOptions, 'port' | 'closing' | 'stopped'> {
  /** 0 picks a free port. */
  port: number;
}

export interface RunningServer {
  /** Where clients reach it, e.g. http://127.0.0.1:7777. */
  url: string;
  port: number;
  /**
   * Stops accepting connections, lets the requests in flight finish (up to
   * SHUTDOWN_GRACE_MS: then their connections are cut and the operations
   * still running are cancelled), then ends the MCP sessions. The store is
   * the caller's to close afterwards.
   */
  close(): Promise<void>;
}

/** Listens on the planned address and serves the app there. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningServer> {
  const server = http.createServer();
  await listen(server, options.port, options.bind.host);
  const port = (server.address() as AddressInfo).port;
  let closing = false;
  const stopped = new AbortController();
  const app = createApp({ ...options, port, closing: () => closing, stopped: stopped.signal });
  // Attached in the same turn as the listen callback, before any request can be read.
  const listener = getRequestListener(app.fetch);
  // The listener answers every failure itself (onError); its promise never rejects.
  server.on('request', (request, response) => void listener(request, response));
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHostname(reachableHost(options.bind.host))}:${port}`,
    port,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        await closeGracefully(server, () =>
          stopped.abort(new MemoryError('CANCELLED', 'The server stopped before the operation finished.')),
        );
        await app.sessions.closeAll();
      })()),
  };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? `port ${port} is in use; choose another with --port`
          : error.code === 'EACCES'
            ? `port ${port} needs privileges; choose one above 1023 with --port`
            : error.message;
      reject(new MemoryError('INVALID_INPUT', `Cannot listen on ${host}:${port}: ${why}.`, { cause: error }));
    });
    server.listen(port, host, () => resolve());
  });
}

/** A wildcard address is no place to connect to: the URL printed names this machine's loopback instead. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (/^[0:]+$/.test(host)) return '::1';
  return host;
}

/**
 * server.close() stops listening and closes the idle kept-alive connections;
 * a connection with a request in flight closes once its answer is sent
 * (drainGuard marks it `Connection: close`). A request that outlasts the
 * grace period has its connection cut and `expired` called (which cancels
 * the operations still running), so neither a stuck client nor a model that
 * never answers can hold the shutdown for longer.
 */
function closeGracefully(server: http.Server, expired: () => void): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      server.closeAllConnections();
      expired();
    }, SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
  });
}
