// Secret guard benchmark (issue #12): what scanning every write for secrets
// costs. The same work runs on two stores side by side, one with the guard on
// (`secrets: 'redact'`, the default) and one with it off (`allow`), in turns,
// so load from other processes on a shared machine hits both alike: the
// ratios (medians of per-turn ratios) are the figures to read. BENCH_AA=1
// turns the guard off on both, to show the noise floor. Target: each within 15% (ratio ≤ 1.15).
//   saveMany   BENCH_BULK memories (bench/store.mjs's) in batches of 1,000
//   save       BENCH_SINGLE single saves
//   doc sync   a full ingest of the Markdown under node_modules (as bench/rag.mjs), BENCH_RUNS times each
// Run: npm run build && node bench/secret-guard.mjs
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { memoryInput, random } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');
const BULK = Number(process.env.BENCH_BULK ?? 40000);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 2000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const NODE_MODULES = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules');

// bench/store.mjs's memories: engineering sentences with tags and a category.
const next = random(12);
let made = 0;
const input = () => memoryInput(next, made++);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-guard-'));

async function open(name, secrets) {
  return Memory.open({ dir: path.join(work, name), secrets });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function ratio(on, off) {
  return `${(on / off).toFixed(3)}×`;
}

try {
  const on = await open('on', process.env.BENCH_AA ? 'allow' : 'redact');
  const off = await open('off', 'allow');
  // Each pair of turns (the same work on both stores) gives one ratio; the
  // median of those ignores the bursts a shared machine has.
  const pairs = async (count, work) => {
    const time = { on: 0, off: 0 };
    const ratios = [];
    for (let i = 0; i < count; i++) {
      const job = work();
      const turn = {};
      for (const [label, memory] of i % 2
        ? [
            ['off', off],
            ['on', on],
          ]
        : [
            ['on', on],
            ['off', off],
          ]) {
        const started = performance.now();
        await job(memory);
        turn[label] = performance.now() - started;
        time[label] += turn[label];
      }
      ratios.push(turn.on / turn.off);
    }
    return { time, ratio: median(ratios) };
  };
  const bulk = await pairs(BULK / 1000, () => {
    const items = Array.from({ length: 1000 }, () => ({ agentId: 'a', input: input() }));
    return (memory) => memory.memories.saveMany(items);
  });
  console.log(`saveMany  ${BULK} memories in batches of 1,000`);
  console.log(
    `  guard off ${((BULK / bulk.time.off) * 1000).toFixed(0)}/s   guard on ${((BULK / bulk.time.on) * 1000).toFixed(0)}/s   on/off ${bulk.ratio.toFixed(3)}× (median of ${BULK / 1000} batch pairs)`,
  );
  const single = await pairs(SINGLE / 50, () => {
    const inputs = Array.from({ length: 50 }, input);
    return async (memory) => {
      for (const one of inputs) await memory.memories.save('a', undefined, one);
    };
  });
  console.log(`save      ${SINGLE} single saves`);
  console.log(
    `  guard off ${((SINGLE / single.time.off) * 1000).toFixed(0)}/s   guard on ${((SINGLE / single.time.on) * 1000).toFixed(0)}/s   on/off ${single.ratio.toFixed(3)}× (median of ${SINGLE / 50} pairs of 50)`,
  );
  await on.close();
  await off.close();

  const docs = path.join(work, 'docs');
  let files = 0;
  (function copy(dir) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) copy(full);
      else if (entry.isFile() && /\.(md|markdown)$/i.test(entry.name)) {
        const target = path.join(docs, path.relative(NODE_MODULES, full).replace(/node_modules/g, 'deps'));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(full, target);
        files++;
      }
    }
  })(NODE_MODULES);
  const ingest = { on: [], off: [] };
  let chunks = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const label of run % 2 ? ['off', 'on'] : ['on', 'off']) {
      const store = await open(`sync-${label}-${run}`, label === 'on' ? 'redact' : 'allow');
      const started = performance.now();
      const report = await store.rag.sync(docs, 'docs');
      ingest[label].push(performance.now() - started);
      chunks = report.chunks.added;
      await store.close();
    }
  }
  console.log(`doc sync  full ingest of ${files} Markdown files (${chunks} chunks), median of ${RUNS}`);
  console.log(
    `  guard off ${(median(ingest.off) / 1000).toFixed(2)} s   guard on ${(median(ingest.on) / 1000).toFixed(2)} s   on/off ${ratio(median(ingest.on), median(ingest.off))}`,
  );
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
