// Search and recall latency (issue: retrieval). Builds stores of 10k and 100k
// memories from a Zipf-distributed synthetic vocabulary, then times natural
// language queries. Run: npm run bench:search
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { percentile, timeEach } from './measure.mjs';
import { realisticCorpus } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES = 400;

async function run(size) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wm-search-${size}-`));
  const corpus = realisticCorpus(size);
  const memory = await Memory.open({ dir });
  try {
    const start = performance.now();
    for (let offset = 0; offset < size; offset += 5000) {
      const count = Math.min(5000, size - offset);
      await memory.memories.saveMany(
        Array.from({ length: count }, (_, i) => ({
          agentId: 'agent',
          userId: 'user',
          input: corpus.memory(offset + i),
        })),
      );
    }
    const saveManyRate = size / ((performance.now() - start) / 1000);
    for (let i = 0; i < 200; i++)
      await memory.skills.save('agent', undefined, { content: corpus.memory(size + i).content });
    const questions = Array.from({ length: QUERIES }, () => corpus.question());
    await timeEach(20, (i) => memory.memories.search('agent', 'user', questions[i], 10)); // warm up
    const search = await timeEach(QUERIES, (i) => memory.memories.search('agent', 'user', questions[i], 10));
    const recall = await timeEach(QUERIES / 2, (i) => memory.recall('agent', 'user', questions[i]));
    const hits = (
      await Promise.all(questions.slice(0, 50).map((q) => memory.memories.search('agent', 'user', q, 10)))
    ).filter((r) => r.length).length;
    const bytes = fs.statSync(path.join(dir, 'memory.db')).size;
    return {
      memories: size,
      saveManyIndexedPerSec: Math.round(saveManyRate),
      searchP50Ms: percentile(search, 50),
      searchP95Ms: percentile(search, 95),
      recallP50Ms: percentile(recall, 50),
      recallP95Ms: percentile(recall, 95),
      queriesWithResults: `${hits}/50`,
      bytesPerMemory: Math.round(bytes / size),
    };
  } finally {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `Workspace Memory search benchmark — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
);
const rows = [];
for (const size of SIZES) {
  const row = await run(size);
  rows.push(row);
  console.log(JSON.stringify(row));
}
const fmt = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : String(v));
console.log(`\n| metric | ${rows.map((r) => `${r.memories.toLocaleString('en')} memories`).join(' | ')} |`);
console.log(`|---|${rows.map(() => '---:').join('|')}|`);
for (const key of Object.keys(rows[0]).slice(1))
  console.log(`| ${key} | ${rows.map((r) => fmt(r[key])).join(' | ')} |`);
