import * as assert from 'node:assert/strict';
import * as http from 'node:http';

import type { Memory } from '../../src/core/memory';
import { planBind } from '../../src/server/http/bind';
import { startHttpServer } from '../../src/server/http/server';
import { tokenCheck } from '../../src/server/http/token';
import { openTemp } from './helpers';
import { SCOPE } from './http-fixture';

const TOKEN = 'shutdown-test-token-0123456789abcdefghijklmnop';

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
});
