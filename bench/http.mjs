// Search over HTTP (issue #15): `workspace-memory serve` on a store of
// BENCH_SIZE memories (10,000), timed from a client with a kept-alive
// connection. Beside it, two floors that make the HTTP cost visible: the same
// memory_search operation run in-process on the same store (what the server
// does for each request), and a GET /health round trip (HTTP, the guards and
// the routing, no store). Latency is one request at a time; throughput is
// BENCH_CONCURRENCY clients (8) at once. Target: search p50 ≤ 10 ms.
//
//   npm run build && node bench/http.mjs
//   BENCH_SIZE=100000 BENCH_QUERIES=1000 node bench/http.mjs
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { percentile, timeEach } from './measure.mjs';
import { realisticCorpus } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory, runOperation } = require('../dist/core.js');
const CLI = new URL('../dist/cli.js', import.meta.url).pathname;

const SIZE = Number(process.env.BENCH_SIZE ?? 10000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SCOPE = { agentId: 'agent', userId: 'user' };

async function buildStore(dir, corpus) {
  const memory = await Memory.open({ dir });
  try {
    for (let offset = 0; offset < SIZE; offset += 5000) {
      const count = Math.min(5000, SIZE - offset);
      await memory.memories.saveMany(
        Array.from({ length: count }, (_, i) => ({ ...SCOPE, input: corpus.memory(offset + i) })),
      );
    }
  } finally {
    await memory.close();
  }
}

/** `workspace-memory serve` on `dir`; resolves once it listens. */
function serve(dir) {
  const child = spawn(process.execPath, [
    CLI,
    'serve',
    '--dir',
    dir,
    '--port',
    '0',
    '--json',
    '--print-token',
    '--agent',
    SCOPE.agentId,
    '--user',
    SCOPE.userId,
  ]);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      try {
        resolve({ child, ...JSON.parse(stdout) });
      } catch {
        // Not all of it yet.
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

function client(server, agent) {
  return (method, route) =>
    new Promise((resolve, reject) => {
      const outgoing = http.request(new URL(route, server.url), {
        method,
        agent,
        headers: { Authorization: `Bearer ${server.token}` },
      });
      outgoing.on('response', (incoming) => {
        if (incoming.statusCode !== 200) reject(new Error(`${route}: ${incoming.statusCode}`));
        incoming.resume();
        incoming.on('end', resolve);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
}

/** Requests per second with `CONCURRENCY` clients sending `count` requests in all. */
async function throughput(count, send) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await send(next++);
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

const ms = (value) => value.toFixed(2);

async function main() {
  console.log(
    `Workspace Memory HTTP benchmark — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-http-bench-'));
  try {
    const corpus = realisticCorpus(SIZE);
    await buildStore(dir, corpus);
    const questions = Array.from({ length: QUERIES }, () => corpus.question());
    const server = await serve(dir);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    let memory;
    try {
      // The floor: the same operation the route runs, in this process, on the same store.
      memory = await Memory.open({ dir });
      const send = client(server, agent);
      const query = (i) => questions[i % questions.length];
      const local = (i) => runOperation({ store: memory, scope: SCOPE }, 'memory_search', { query: query(i) });
      const remote = (i) => send('GET', `/v1/memory_search?query=${encodeURIComponent(query(i))}`);
      for (let i = 0; i < 20; i++) await Promise.all([local(i), remote(i)]); // warm up
      // Interleaved, query by query, so both see the same machine (other processes come and go).
      const [search, inProcess, health] = [[], [], []];
      for (let i = 0; i < QUERIES; i++) {
        inProcess.push(...(await timeEach(1, () => local(i))));
        search.push(...(await timeEach(1, () => remote(i))));
        health.push(...(await timeEach(1, () => send('GET', '/health'))));
      }
      const localRate = QUERIES / (inProcess.reduce((sum, time) => sum + time, 0) / 1000);
      const searchRate = await throughput(QUERIES, remote);
      const healthRate = await throughput(QUERIES * 5, () => send('GET', '/health'));
      const rows = [
        ['memory_search over HTTP', search, searchRate],
        ['memory_search in-process (floor)', inProcess, localRate],
        ['GET /health over HTTP (floor)', health, healthRate],
      ];
      console.log(
        `\n${SIZE.toLocaleString('en')} memories, ${QUERIES} queries; req/s with ${CONCURRENCY} clients (in-process: one after another)\n`,
      );
      console.log('| | p50 ms | p95 ms | req/s |');
      console.log('|---|---:|---:|---:|');
      for (const [name, times, rate] of rows) {
        console.log(`| ${name} | ${ms(percentile(times, 50))} | ${ms(percentile(times, 95))} | ${Math.round(rate)} |`);
      }
      const cost = percentile(search, 50) - percentile(inProcess, 50);
      console.log(
        `\nHTTP cost at p50: ${ms(cost)} ms per search (target: search p50 ≤ 10 ms: ${percentile(search, 50) <= 10 ? 'met' : 'MISSED'})`,
      );
    } finally {
      await memory?.close();
      agent.destroy();
      server.child.removeAllListeners('exit');
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.on('exit', resolve));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
