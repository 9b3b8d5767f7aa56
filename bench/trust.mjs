// Trust benchmark (issue #12): how long undoing one writer's writes takes.
//
// A store with BENCH_BACKGROUND memories written by a person, then one MCP
// client writes BENCH_WRITES times: half new memories, half updates of the
// person's. `revert({ by: 'mcp' })` then deletes the new ones and gives the
// updated ones their earlier version back, all as new commits in one
// transaction. Beside it, in the same run, the floor: deleting as many
// entities with one deleteMany (the cheapest write of as many commits).
// Target: revert of 1,000 writes in at most 2 s.
//
// Run: npm run build && node bench/trust.mjs
// Options (environment): BENCH_WRITES (1000), BENCH_BACKGROUND (10000), BENCH_RUNS (3)
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const { Memory, withProvenance } = require('../dist/core.js');

const WRITES = Number(process.env.BENCH_WRITES ?? 1000);
const BACKGROUND = Number(process.env.BENCH_BACKGROUND ?? 10000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CLIENT = { kind: 'mcp', name: 'bench-client', version: '1.0' };

const words =
  'deploy cache database port token release branch review docker helm queue worker index search memory'.split(' ');
const sentence = (i) => Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ') + ` ${i}`;

async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-trust-'));
  const memory = await Memory.open({ dir, review: 'immediate' });
  try {
    const background = await memory.memories.saveMany(
      Array.from({ length: BACKGROUND }, (_, i) => ({ agentId: 'a', input: { content: sentence(i) } })),
    );
    const ids = background.map((result) => result[0].id);
    const half = Math.floor(WRITES / 2);
    await withProvenance(CLIENT, async () => {
      await memory.memories.saveMany(
        Array.from({ length: WRITES - half }, (_, i) => ({ agentId: 'a', input: { content: `agent ${sentence(i)}` } })),
      );
      for (let i = 0; i < half; i++) await memory.memories.update(ids[i], { content: `changed ${sentence(i)}` });
    });
    let started = performance.now();
    const report = await memory.revert({ by: 'mcp', name: 'bench-client' });
    const revertMs = performance.now() - started;
    if (report.commits.length !== WRITES) throw new Error(`reverted ${report.commits.length}, expected ${WRITES}`);
    started = performance.now();
    await memory.memories.deleteMany(ids.slice(half, half + WRITES));
    const floorMs = performance.now() - started;
    if (!(await memory.verify()).valid) throw new Error('the store is not valid after the revert');
    return { revertMs, floorMs };
  } finally {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (let i = 0; i < RUNS; i++) results.push(await run());
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const revert = median(results.map((r) => r.revertMs));
const floor = median(results.map((r) => r.floorMs));
console.log(
  `revert of ${WRITES} writes (${WRITES - Math.floor(WRITES / 2)} creates, ${Math.floor(WRITES / 2)} updates) in a store of ${BACKGROUND}:`,
);
console.log(`  revert        ${revert.toFixed(0)} ms   (median of ${RUNS}; target ≤ 2000 ms)`);
console.log(`  floor         ${floor.toFixed(0)} ms   (deleteMany of ${WRITES}: the cheapest ${WRITES} commits)`);
console.log(`  ratio         ${(revert / floor).toFixed(2)}×`);
