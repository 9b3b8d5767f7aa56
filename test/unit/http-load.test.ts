import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

import { random, tempDir } from './helpers';
import { CLI, type Serving, startServe } from './http-fixture';

const CLIENTS = 50;
const REQUESTS_PER_CLIENT = 200;

/** A made-up word of ten letters, so every saved memory is findable by words no other holds. */
function word(next: () => number): string {
  return Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join('');
}

interface Reply {
  status: number;
  body: { text?: string; data?: Record<string, unknown>; error?: { code: string; message: string } };
}

/** One request on a shared keep-alive agent, as a client library would send it. */
function send(agent: http.Agent, serving: Serving, method: string, route: string, args?: unknown): Promise<Reply> {
  const body = args === undefined ? undefined : JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const url = new URL(route, serving.info.url);
    const outgoing = http.request(
      url,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${serving.info.token ?? ''}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Reply['body'],
          }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** `workspace-memory save memory` in a process of its own; the id it saved. */
function cliSave(dir: string, content: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'save', 'memory', '--dir', dir, '--content', content, '--json']);
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => {
      if (code === 0) resolve((JSON.parse(stdout) as { entity: { id: string } }).entity.id);
      else reject(new Error(`cli save exited with ${code}: ${stderr}`));
    });
  });
}

describe('http under load', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: path.join(__dirname, '..', '..') });
  });
  beforeEach(() => (dir = tempDir('wm-http-load-')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`serves ${CLIENTS} clients × ${REQUESTS_PER_CLIENT} requests while the CLI writes to the same store, losing nothing`, async () => {
    const serving = await startServe(['--dir', dir, '--review', 'immediate', '--print-token']);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const failures: string[] = [];
    const savedOverHttp = new Map<string, string>();
    const savedByCli: string[] = [];
    let done = false;
    try {
      // The CLI writes in a loop of its own processes for as long as the clients run.
      const cliWriter = (async () => {
        const next = random(999);
        while (!done || savedByCli.length < 3) {
          savedByCli.push(await cliSave(dir, `Written by the CLI: ${word(next)} ${word(next)} ${word(next)}.`));
        }
      })();
      const client = async (index: number) => {
        const next = random(index + 1);
        let last: { id: string; words: string } | undefined;
        for (let request = 0; request < REQUESTS_PER_CLIENT; request++) {
          const where = `client ${index} request ${request}`;
          const kind = last === undefined ? 0 : request % 4;
          if (kind === 0) {
            const words = `${word(next)} ${word(next)} ${word(next)} ${word(next)}`;
            const reply = await send(agent, serving, 'POST', '/v1/memory_save', { content: `Noted ${words}.` });
            const entity = reply.body.data?.entity as { id: string } | undefined;
            if (reply.status !== 200 || !entity || reply.body.data?.deduplicated !== false) {
              failures.push(`${where}: save ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
              continue;
            }
            savedOverHttp.set(entity.id, `Noted ${words}.`);
            last = { id: entity.id, words };
          } else if (kind === 1 || kind === 3) {
            // GET and POST alike: the memory just saved is the best match for its own words.
            const query = last!.words.split(' ').slice(0, 2).join(' ');
            const reply =
              kind === 1
                ? await send(agent, serving, 'GET', `/v1/memory_search?query=${encodeURIComponent(query)}&limit=3`)
                : await send(agent, serving, 'POST', '/v1/memory_search', { query, limit: 3 });
            const results = reply.body.data?.results as { entity: { id: string } }[] | undefined;
            if (reply.status !== 200 || results?.[0]?.entity.id !== last!.id) {
              failures.push(`${where}: search ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
            }
          } else {
            const reply = await send(agent, serving, 'POST', '/v1/memory_history', { id: last!.id });
            const history = reply.body.data?.history as { entity?: { content: string } }[] | undefined;
            if (reply.status !== 200 || history?.[0]?.entity?.content !== `Noted ${last!.words}.`) {
              failures.push(`${where}: get ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
            }
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
      done = true;
      await cliWriter;

      assert.deepEqual(failures.slice(0, 5), []);
      assert.equal(savedOverHttp.size, CLIENTS * (REQUESTS_PER_CLIENT / 4));
      const stats = await send(agent, serving, 'GET', '/v1/stats');
      assert.equal(stats.body.data?.memories, savedOverHttp.size + savedByCli.length);
      const exported = await send(agent, serving, 'GET', '/v1/export');
      const memories = (exported.body.data?.entities as { memories: { id: string; content: string }[] }).memories;
      const stored = new Map(memories.map((memory) => [memory.id, memory.content]));
      assert.equal(stored.size, savedOverHttp.size + savedByCli.length);
      for (const [id, content] of savedOverHttp) assert.equal(stored.get(id), content, id);
      for (const id of savedByCli) assert.ok(stored.has(id), id);
      const verified = await send(agent, serving, 'GET', '/v1/verify');
      assert.equal(verified.body.data?.valid, true);
    } finally {
      done = true;
      agent.destroy();
      serving.child.kill('SIGTERM');
      assert.equal((await serving.exited).code, 0);
    }
  });
});
