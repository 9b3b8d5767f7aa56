import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { OpenAiCompatibleChat } from '../../src/core/ai/provider';
import type { Memory } from '../../src/core/memory';
import { planBind } from '../../src/server/http/bind';
import { startHttpServer } from '../../src/server/http/server';
import { tokenCheck } from '../../src/server/http/token';
import { openTemp, tempDir } from './helpers';
import { SCOPE, startServe } from './http-fixture';

const TOKEN = 'shutdown-test-token-0123456789abcdefghijklmnop';

/** A chat endpoint that takes every request and never answers it. */
async function silentModel(): Promise<{
  url: string;
  /** Resolves when a request comes in. */
  asked: Promise<void>;
  /** Resolves when a request's connection is closed (by the server that sent it). */
  hungUp: Promise<void>;
  close: () => Promise<void>;
}> {
  let asked: () => void = () => {};
  let hungUp: () => void = () => {};
  const promises = {
    asked: new Promise<void>((resolve) => (asked = resolve)),
    hungUp: new Promise<void>((resolve) => (hungUp = resolve)),
  };
  const server = http.createServer((incoming) => {
    incoming.resume();
    asked();
    incoming.socket.on('close', hungUp);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    ...promises,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** `promise`, or a failure naming `what` if it takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('http shutdown', function () {
  this.timeout(30_000);

  it('answers the request in flight, closing its kept-alive connection, without waiting for the client', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      let release: () => void = () => {};
      let arrived: () => void = () => {};
      const inFlight = new Promise<void>((resolve) => (arrived = resolve));
      const stats = memory.stats.bind(memory);
      // A stats call that waits until the test lets it go.
      memory.stats = () => {
        arrived();
        return new Promise<Awaited<ReturnType<Memory['stats']>>>(
          (resolve) => (release = () => void stats().then(resolve)),
        );
      };
      const server = await startHttpServer({
        store: memory,
        scope: SCOPE,
        version: 'x',
        token: tokenCheck(TOKEN),
        bind: planBind(undefined, false),
        port: 0,
        log: () => {},
      });
      const agent = new http.Agent({ keepAlive: true });
      const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const outgoing = http.get(
          `${server.url}/v1/stats`,
          { agent, headers: { Authorization: `Bearer ${TOKEN}` } },
          (incoming) => {
            incoming.resume();
            incoming.on('end', () =>
              resolve({ status: incoming.statusCode ?? 0, connection: incoming.headers.connection }),
            );
          },
        );
        outgoing.on('error', reject);
      });
      await inFlight;
      const started = Date.now();
      const closed = server.close();
      release();
      assert.deepEqual(await answer, { status: 200, connection: 'close' });
      await closed;
      // Not the 5 s a kept-alive connection would idle before Node closed it.
      assert.ok(Date.now() - started < 2000, `closed after ${Date.now() - started} ms`);
      agent.destroy();
    } finally {
      await cleanup();
    }
  });

  it('cancels the model call of a request whose client hangs up', async () => {
    const model = await silentModel();
    const { memory, cleanup } = await openTemp();
    const server = await startHttpServer({
      store: memory,
      scope: SCOPE,
      version: 'x',
      token: tokenCheck(TOKEN),
      bind: planBind(undefined, false),
      port: 0,
      log: () => {},
      ai: new OpenAiCompatibleChat({ url: model.url, model: 'silent' }),
    });
    try {
      const outgoing = http.request(`${server.url}/v1/memory_recall`, {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      });
      outgoing.on('error', () => {});
      outgoing.end(JSON.stringify({ query: 'what never comes', reasoning: 'iterative' }));
      await within(model.asked, 5000, 'the model call');
      outgoing.destroy();
      // Not the model call's own timeout (minutes).
      await within(model.hungUp, 3000, 'the model call ending after the client hung up');
    } finally {
      await server.close();
      await model.close();
      await cleanup();
    }
  });

  it('on SIGTERM, exits soon after the grace period even while a model never answers a request in flight', async function () {
    // The grace period (10 s) and the few seconds after it.
    this.timeout(40_000);
    const model = await silentModel();
    const dir = path.join(tempDir('wm-http-shutdown-'), '.workspace-memory');
    const env = { ...process.env, WORKSPACE_MEMORY_CHAT_URL: model.url, WORKSPACE_MEMORY_CHAT_MODEL: 'silent' };
    const serving = await startServe(['--dir', dir, '--print-token'], env);
    try {
      const recall = fetch(`${serving.info.url}/v1/memory_recall`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${serving.info.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'what never comes', reasoning: 'iterative' }),
      }).catch(() => undefined);
      await within(model.asked, 10_000, 'the model call');
      const started = Date.now();
      serving.child.kill('SIGTERM');
      const exited = await within(serving.exited, 15_000, 'the exit after SIGTERM');
      assert.deepEqual(exited, { code: 0, signal: null }, serving.stderr());
      assert.ok(Date.now() - started < 14_000, `exited ${Date.now() - started} ms after SIGTERM`);
      await recall;
    } finally {
      serving.child.kill('SIGKILL');
      await model.close();
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('takes the same stop signal twice in a row (systemd and the launcher both sending it) as one', async () => {
    const model = await silentModel();
    const dir = path.join(tempDir('wm-http-shutdown-'), '.workspace-memory');
    const env = { ...process.env, WORKSPACE_MEMORY_CHAT_URL: model.url, WORKSPACE_MEMORY_CHAT_MODEL: 'silent' };
    const serving = await startServe(['--dir', dir, '--print-token'], env);
    try {
      // A request in flight keeps the shutdown going while the second signal comes.
      const outgoing = http.request(`${serving.info.url}/v1/memory_recall`, {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${serving.info.token}`, 'Content-Type': 'application/json' },
      });
      outgoing.on('error', () => {});
      outgoing.end(JSON.stringify({ query: 'what never comes', reasoning: 'iterative' }));
      await within(model.asked, 10_000, 'the model call');
      serving.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 100));
      serving.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The client gives up: its model call is cancelled and the shutdown ends.
      outgoing.destroy();
      assert.deepEqual(await within(serving.exited, 8000, 'the exit'), { code: 0, signal: null }, serving.stderr());
      // Closed cleanly: the write-ahead log was folded into the database and removed.
      assert.equal(fs.existsSync(path.join(dir, 'memory.db-wal')), false);
    } finally {
      serving.child.kill('SIGKILL');
      await model.close();
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
