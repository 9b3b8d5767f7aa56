import { type ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';

import type { Memory } from '../../src/core/memory';
import { planBind } from '../../src/server/http/bind';
import { type RunningServer, startHttpServer } from '../../src/server/http/server';
import { loadOrCreateToken, tokenCheck } from '../../src/server/http/token';
import { openTemp } from './helpers';

/** The built CLI (`node esbuild.js`). */
export const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');

/** A server on a fresh store, on a free loopback port. */
export interface Served {
  url: string;
  port: number;
  token: string;
  memory: Memory;
  dir: string;
  /** What the server logged. */
  log: string[];
  close(): Promise<void>;
}

/** The scope the test servers serve. */
export const SCOPE = { agentId: 'a', userId: 'u' };

export async function serveTemp(): Promise<Served> {
  // Writes land at once, so a save is searchable by the next request.
  const { memory, dir, cleanup } = await openTemp({ writer: { kind: 'mcp' }, review: 'immediate' });
  const { token } = loadOrCreateToken(dir);
  const log: string[] = [];
  let server: RunningServer;
  try {
    server = await startHttpServer({
      store: memory,
      scope: SCOPE,
      version: '0.0.0-test',
      token: tokenCheck(token),
      bind: planBind(undefined, false),
      port: 0,
      log: (line) => log.push(line),
    });
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    token,
    memory,
    dir,
    log,
    close: async () => {
      await server.close();
      await cleanup();
    },
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: <T = Record<string, unknown>>() => T;
}

export interface RequestOptions {
  method?: string;
  /** The bearer token; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * One request with full control of its headers (Host and Origin included,
 * which fetch does not let a caller set), on a connection of its own.
 */
export function request(served: Served, path: string, options: RequestOptions = {}): Promise<Answer> {
  const token = options.token === undefined ? served.token : options.token;
  const headers: Record<string, string> = {
    ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: '127.0.0.1', port: served.port, path, method: options.method ?? 'GET', headers, agent: false },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** POST /v1/<operation> with `args` as the JSON body. */
export function post(served: Served, operation: string, args: unknown, options: RequestOptions = {}): Promise<Answer> {
  return request(served, `/v1/${operation}`, {
    method: 'POST',
    ...options,
    headers: { 'Content-Type': 'application/json', ...options.headers },
    body: JSON.stringify(args),
  });
}

/** The `{ error: { code, message } }` of an error answer. */
export function errorOf(answer: Answer): { code: string; message: string } {
  return answer.json<{ error: { code: string; message: string } }>().error;
}

export interface Serving {
  child: ChildProcess;
  /** What --json printed once the server listened. */
  info: { url: string; mcp: string; openapi: string; store: string; tokenFile: string; token?: string };
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `workspace-memory serve --json` and waits until it listens (or fails). */
export function startServe(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Serving> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--json', ...args], { env });
  let [stdout, stderr] = ['', ''];
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve({ child, info: JSON.parse(stdout) as Serving['info'], stderr: () => stderr, exited });
      } catch {
        // Not all of it yet.
      }
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

/** Whether something accepts connections at `url`. */
export function listening(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const outgoing = http.get(`${url}/health`, { agent: false }, (incoming) => {
      incoming.resume();
      resolve(true);
    });
    outgoing.on('error', () => resolve(false));
  });
}
