import * as assert from 'node:assert/strict';
import * as http from 'node:http';

import { MAX_BODY_BYTES } from '../../src/server/http/body';
import { type Answer, errorOf, post, request, type Served, serveTemp } from './http-fixture';

/** The same token with its byte at `index` changed to another base64url character. */
function flipped(token: string, index: number): string {
  const other = token[index] === 'A' ? 'B' : 'A';
  return `${token.slice(0, index)}${other}${token.slice(index + 1)}`;
}

/**
 * Sends headers claiming a body of `declared` bytes and only the first
 * kilobyte of it, and resolves with the answer (which must come before the
 * rest is sent) and whether the connection was closed after it.
 */
function partialUpload(served: Served, declared: number): Promise<{ status: number; body: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({
      host: '127.0.0.1',
      port: served.port,
      path: '/v1/memory_save',
      method: 'POST',
      agent: false,
      headers: {
        Authorization: `Bearer ${served.token}`,
        'Content-Type': 'application/json',
        'Content-Length': String(declared),
      },
    });
    outgoing.on('response', (incoming) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () => {
        const socket = outgoing.socket;
        const settle = (closed: boolean) => resolve({ status: incoming.statusCode ?? 0, body, closed });
        if (!socket || socket.destroyed) return settle(true);
        // Left open, the client would go on sending the rest; two seconds is plenty for the server to close it.
        const timer = setTimeout(() => settle(false), 2000);
        socket.once('close', () => {
          clearTimeout(timer);
          settle(true);
        });
      });
    });
    // The server may close the connection while the client still writes: that is the point.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    outgoing.write(`{"content":"${'x'.repeat(1000)}`);
  });
}

describe('http security', function () {
  this.timeout(30_000);
  let served: Served;
  beforeEach(async () => (served = await serveTemp()));
  afterEach(async () => served.close());

  const unauthorized = (answer: Answer, error?: 'invalid_token') => {
    assert.equal(answer.status, 401, answer.text);
    assert.equal(errorOf(answer).code, 'UNAUTHORIZED');
    const challenge = String(answer.headers['www-authenticate']);
    assert.match(challenge, /^Bearer realm="workspace-memory"/);
    if (error) assert.match(challenge, /error="invalid_token"/);
    // Nothing in a refusal helps a guess.
    assert.ok(!answer.text.includes(served.token));
  };

  describe('the bearer token', () => {
    it('is required', async () => {
      unauthorized(await request(served, '/v1/stats', { token: null }));
      unauthorized(await post(served, 'memory_save', { content: 'x' }, { token: null }));
      assert.equal((await served.memory.stats()).memories, 0);
    });

    it('must be the server’s, whatever its shape', async () => {
      const { token } = served;
      const guesses = [
        flipped(token, 0),
        flipped(token, token.length - 1),
        flipped(token, 20),
        token.slice(0, -1),
        token.slice(0, 1),
        `${token}A`,
        `${token}${token}`,
        token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
        'A'.repeat(token.length),
        // Long, but under Node's 16 KiB of headers.
        'x'.repeat(10_000),
      ];
      for (const guess of guesses) unauthorized(await request(served, '/v1/stats', { token: guess }), 'invalid_token');
    });

    it('is read only from a Bearer Authorization header', async () => {
      const { token } = served;
      for (const authorization of [`Basic ${token}`, token, `Bearer`, `Bearer ${token} extra`, `Token ${token}`]) {
        unauthorized(await request(served, '/v1/stats', { token: null, headers: { Authorization: authorization } }));
      }
      unauthorized(await request(served, `/v1/stats?token=${token}&access_token=${token}`, { token: null }));
      // The scheme is case-insensitive (RFC 7235).
      const lower = await request(served, '/v1/stats', { token: null, headers: { Authorization: `bearer ${token}` } });
      assert.equal(lower.status, 200);
    });

    it('is checked before the body is read', async () => {
      const answer = await request(served, '/v1/memory_save', {
        method: 'POST',
        token: 'wrong',
        body: 'not even json',
      });
      unauthorized(answer, 'invalid_token');
    });
  });

  describe('the Host and Origin headers', () => {
    it('accepts the loopback names with the server’s port', async () => {
      for (const host of [`127.0.0.1:${served.port}`, `localhost:${served.port}`, `LOCALHOST:${served.port}`]) {
        const answer = await request(served, '/v1/stats', { headers: { Host: host } });
        assert.equal(answer.status, 200, host);
      }
    });

    it('refuses any other Host: DNS rebinding', async () => {
      const hosts = [
        `evil.example:${served.port}`,
        'evil.example',
        `127.0.0.1:${served.port + 1}`,
        '127.0.0.1',
        `localhost.evil.example:${served.port}`,
        `127.1:${served.port}`,
        `192.168.0.10:${served.port}`,
      ];
      for (const host of hosts) {
        const answer = await request(served, '/v1/stats', { headers: { Host: host } });
        assert.equal(answer.status, 403, host);
        assert.equal(errorOf(answer).code, 'FORBIDDEN');
      }
      // One Node itself finds malformed is refused before it gets here.
      const malformed = await request(served, '/v1/stats', {
        headers: { Host: `127.0.0.1:${served.port}@evil.example` },
      });
      assert.ok([400, 403].includes(malformed.status), String(malformed.status));
      // /health too: a rebound page learns nothing, not even that the server is there.
      assert.equal((await request(served, '/health', { headers: { Host: 'evil.example' } })).status, 403);
    });

    it('refuses a browser request from another origin, with or without the token', async () => {
      for (const origin of [
        'http://evil.example',
        'null',
        `http://127.0.0.1:${served.port + 1}`,
        `https://127.0.0.1:${served.port}`,
      ]) {
        const answer = await request(served, '/v1/stats', { headers: { Origin: origin } });
        assert.equal(answer.status, 403, origin);
        assert.equal(errorOf(answer).code, 'FORBIDDEN');
      }
      const crossSite = await request(served, '/v1/stats', { headers: { 'Sec-Fetch-Site': 'cross-site' } });
      assert.equal(crossSite.status, 403);
      const saved = await post(served, 'memory_save', { content: 'x' }, { headers: { Origin: 'http://evil.example' } });
      assert.equal(saved.status, 403);
      assert.equal((await served.memory.stats()).memories, 0);
    });

    it('accepts the server’s own origin', async () => {
      const answer = await request(served, '/v1/stats', {
        headers: { Origin: `http://127.0.0.1:${served.port}`, 'Sec-Fetch-Site': 'same-origin' },
      });
      assert.equal(answer.status, 200);
    });

    it('never sends CORS headers, so a browser hands no answer to another site', async () => {
      const preflight = await request(served, '/v1/memory_save', {
        method: 'OPTIONS',
        token: null,
        headers: {
          Origin: 'http://evil.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
      assert.ok(preflight.status >= 400, String(preflight.status));
      for (const answer of [preflight, await request(served, '/v1/stats'), await request(served, '/health')]) {
        const cors = Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));
        assert.deepEqual(cors, []);
      }
    });
  });

  describe('request bodies', () => {
    it('refuses one declared over the limit with 413 before reading it, and closes the connection', async () => {
      const answer = await partialUpload(served, MAX_BODY_BYTES + 1);
      assert.equal(answer.status, 413);
      assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'CONTENT_TOO_LARGE');
      assert.ok(answer.closed);
      assert.equal((await served.memory.stats()).memories, 0);
    });

    it('refuses one that streams past the limit without a length', async () => {
      const answer = await new Promise<number>((resolve, reject) => {
        const outgoing = http.request({
          host: '127.0.0.1',
          port: served.port,
          path: '/v1/memory_save',
          method: 'POST',
          agent: false,
          headers: { Authorization: `Bearer ${served.token}`, 'Transfer-Encoding': 'chunked' },
        });
        outgoing.on('response', (incoming) => {
          incoming.resume();
          resolve(incoming.statusCode ?? 0);
        });
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
        });
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        // Written without waiting: the answer may come before all of it is sent.
        for (let sent = 0; sent <= MAX_BODY_BYTES; sent += chunk.length) outgoing.write(chunk);
        outgoing.end();
      });
      assert.equal(answer, 413);
    });

    it('refuses malformed ones with 400, naming what is wrong', async () => {
      const cases: [string | Buffer, RegExp][] = [
        ['{"content":', /not valid JSON/],
        ['content=hello', /not valid JSON/],
        [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), /not valid UTF-8/],
        ['[{"content":"x"}]', /must be a JSON object/],
        ['"just text"', /must be a JSON object/],
        ['null', /must be a JSON object/],
        ['{}', /`content` is required/],
        ['{"content":"x","__proto__":{"admin":true}}', /__proto__/],
        [`${'['.repeat(100)}${']'.repeat(100)}`, /must be a JSON object/],
        [`{"content":"x","tags":${'['.repeat(100)}${']'.repeat(100)}}`, /deep|depth|nested/i],
      ];
      for (const [body, reason] of cases) {
        const answer = await request(served, '/v1/memory_save', { method: 'POST', body });
        assert.equal(answer.status, 400, `${String(body).slice(0, 40)}: ${answer.text}`);
        assert.equal(errorOf(answer).code, 'INVALID_INPUT');
        assert.match(errorOf(answer).message, reason);
      }
      assert.equal((await served.memory.stats()).memories, 0);
    });

    it('takes an empty body as no arguments', async () => {
      const answer = await request(served, '/v1/stats', { method: 'POST' });
      assert.equal(answer.status, 200);
      const missing = await request(served, '/v1/memory_search', { method: 'POST' });
      assert.equal(missing.status, 400);
      assert.match(errorOf(missing).message, /`query` is required/);
    });
  });

  it('answers an unexpected failure with a 500 that keeps the details in the log', async () => {
    served.memory.stats = () => Promise.reject(new TypeError('secret internals at /home/someone'));
    const answer = await request(served, '/v1/stats');
    assert.equal(answer.status, 500);
    assert.equal(errorOf(answer).code, 'INTERNAL');
    assert.ok(!answer.text.includes('secret internals'));
    assert.match(served.log.join('\n'), /secret internals/);
  });
});
