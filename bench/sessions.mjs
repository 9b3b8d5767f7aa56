// Search of past conversations, turn by turn (issue: retrieval 2.0): a store
// of BENCH_SESSIONS sessions (default 10,000) of 50 turns each, written from
// the synthetic vocabulary the search bench uses, then natural-language
// questions timed through sessions.search, without and with a time in the
// question (two searches then: the turns said then, and the rest).
// Run: npm run build && node bench/sessions.mjs
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { percentile, timeEach } from './measure.mjs';
import { realisticCorpus } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const TURNS = 50;
const QUERIES = 400;
const BATCH = 200;
const DAY_MS = 24 * 60 * 60 * 1000;

const corpus = realisticCorpus(7);
const questions = Array.from({ length: QUERIES }, () => corpus.question());

/** Session `i`: TURNS turns between two people, a day apart from the session before. */
function session(i) {
  const start = Date.UTC(2024, 0, 1) + i * DAY_MS;
  return {
    conversationId: `c${Math.floor(i / 20)}`,
    startedAt: new Date(start).toISOString(),
    messages: Array.from({ length: TURNS }, (_, turn) => ({
      role: turn % 2 ? 'assistant' : 'user',
      name: turn % 2 ? 'Ben' : 'Ana',
      content: corpus.memory(i * TURNS + turn).content,
      timestamp: new Date(start + turn * 60_000).toISOString(),
    })),
  };
}

async function timed(label, search) {
  await timeEach(20, (i) => search(questions[i])); // warm up
  const times = await timeEach(QUERIES, (i) => search(questions[i]));
  const found = (await Promise.all(questions.slice(0, 50).map(search))).filter((hits) => hits.length).length;
  return { label, p50: percentile(times, 50), p95: percentile(times, 95), found };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-sessions-'));
const memory = await Memory.open({ dir, init: true });
try {
  const load = performance.now();
  for (let first = 0; first < SESSIONS; first += BATCH) {
    const count = Math.min(BATCH, SESSIONS - first);
    await memory.sessions.saveMany(
      Array.from({ length: count }, (_, k) => ({ agentId: 'agent', userId: 'user', input: session(first + k) })),
    );
  }
  const loadSeconds = (performance.now() - load) / 1000;
  const rows = [
    await timed('session search (turns)', (q) => memory.sessions.search('agent', 'user', q, 10)),
    await timed('same, with a time in the question', (q) =>
      memory.sessions.search('agent', 'user', `${q} in March 2024`, 10),
    ),
  ];
  console.log(
    `session search: ${SESSIONS.toLocaleString('en')} sessions × ${TURNS} turns (${(SESSIONS * TURNS).toLocaleString('en')} turns), saved in ${loadSeconds.toFixed(1)} s; ${QUERIES} questions; node ${process.version}, load ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  for (const row of rows) {
    console.log(
      `  ${row.label.padEnd(36)} p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms (target p50 <= 20 ms); ${row.found}/50 questions found something`,
    );
  }
  console.log(`  store: ${(fs.statSync(path.join(dir, 'memory.db')).size / 1024 / 1024).toFixed(0)} MB`);
} finally {
  await memory.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
