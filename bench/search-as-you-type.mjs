// Search as you type from the extension host (issue: retrieval 2.0): a store
// of 100,000 entities (85,000 memories, 5,000 skills, 10,000 document chunks)
// plus 200 past conversations of 50 turns, opened in the store's worker
// thread as VS Code opens it; the Search command's query, one round trip
// (worker.searchAll: memories, skills, docs and turns ranked together), timed
// from this thread for each prefix of 200 questions as they are typed word by
// word. Beside it, in the same run: the same search called in the worker's
// process directly (no message), and an empty round trip (the message floor).
// Run: npm run build && node --import tsx bench/search-as-you-type.mjs
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { searchEverything } from '../src/core/collections/search-all.ts';
import { StoreClient } from '../src/extension/store/client.ts';
import { percentile } from './measure.mjs';
import { realisticCorpus } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

const MEMORIES = Number(process.env.BENCH_MEMORIES ?? 85_000);
const SKILLS = 5_000;
const CHUNKS = 10_000;
const SESSIONS = 200;
const TURNS = 50;
const QUESTIONS = 200;
const LIMIT = 30; // the Search command's RESULTS
const BATCH = 5_000;

const corpus = realisticCorpus(11);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-type-'));

async function saveInBatches(collection, count, input) {
  for (let first = 0; first < count; first += BATCH) {
    const n = Math.min(BATCH, count - first);
    await collection.saveMany(Array.from({ length: n }, (_, k) => input(first + k)));
  }
}

const load = performance.now();
const memory = await Memory.open({ dir, init: true });
await saveInBatches(memory.memories, MEMORIES, (i) => ({ agentId: 'agent', userId: 'user', input: corpus.memory(i) }));
await saveInBatches(memory.skills, SKILLS, (i) => ({ agentId: 'agent', input: { content: corpus.memory(i).content } }));
await saveInBatches(memory.knowledge, CHUNKS, (i) => ({
  agentId: 'agent',
  input: { content: corpus.memory(i).content, source: `docs/${i % 500}/page-${i}.md`, startLine: 1 },
}));
await memory.sessions.saveMany(
  Array.from({ length: SESSIONS }, (_, s) => ({
    agentId: 'agent',
    userId: 'user',
    input: {
      messages: Array.from({ length: TURNS }, (_, t) => ({
        role: t % 2 ? 'assistant' : 'user',
        content: corpus.memory(s * TURNS + t).content,
      })),
    },
  })),
);
const loadSeconds = (performance.now() - load) / 1000;

// What the user types: every word-boundary prefix of each question ("why", "why does", …).
const typed = Array.from({ length: QUESTIONS }, () => corpus.question()).flatMap((question) => {
  const words = question.split(' ');
  return words.map((_, i) => words.slice(0, i + 1).join(' '));
});

async function timed(label, search) {
  for (const query of typed.slice(0, 50)) await search(query); // warm up
  const times = [];
  for (const query of typed) {
    const started = performance.now();
    await search(query);
    times.push(performance.now() - started);
  }
  return { label, p50: percentile(times, 50), p95: percentile(times, 95), n: times.length };
}

await memory.close();

const client = await StoreClient.start(path.resolve('dist/worker.js'), { dir, options: {}, pollMs: 1_000 });
const rows = [];
try {
  rows.push(await timed('round trip, no work (message floor)', () => client.memory.dataVersion()));
  rows.push(
    await timed('worker.searchAll round trip', (query) =>
      client.memory.worker.searchAll('agent', 'user', query, LIMIT),
    ),
  );
} finally {
  await client.close();
}
// The same searches on this thread, the store opened afresh: what the message and the thread add.
const direct = await Memory.open({ dir });
try {
  rows.push(
    await timed('the same search in process (no worker)', (query) =>
      searchEverything(direct, 'agent', 'user', query, LIMIT),
    ),
  );
  console.log(
    `search as you type: ${MEMORIES.toLocaleString('en')} memories, ${SKILLS.toLocaleString('en')} skills, ${CHUNKS.toLocaleString('en')} chunks, ${SESSIONS} sessions × ${TURNS} turns, built in ${loadSeconds.toFixed(1)} s; ${typed.length} typed prefixes of ${QUESTIONS} questions, limit ${LIMIT}; node ${process.version}, load ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  for (const row of rows) {
    console.log(`  ${row.label.padEnd(40)} p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms`);
  }
  console.log('  target (worker.searchAll round trip): p50 <= 30 ms, p95 <= 80 ms');
} finally {
  await direct.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
