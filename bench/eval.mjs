// Retrieval evaluation through the public library API.
//   npm run eval -- beir <folder>     a folder in BEIR layout: corpus.jsonl, queries.jsonl, qrels.tsv;
//                                     prints nDCG@10, Recall@100 and MRR@10 over the judged queries
//   npm run eval -- locomo <file> [mode]
//                                     LoCoMo evidence recall (see bench/eval-locomo.mjs); mode: turns
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { evaluateLocomo, LOCOMO_MODES, printLocomo } from './eval-locomo.mjs';
import { median, mrr, ndcg, recall } from './eval-metrics.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

const AGENT = 'beir';

function readJsonl(file) {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

function readQrels(file) {
  const qrels = new Map();
  const lines = fs.readFileSync(file, 'utf8').split('\n').slice(1);
  for (const line of lines) {
    const [query, doc, score] = line.trim().split('\t');
    if (!query || !doc || !(Number(score) > 0)) continue;
    if (!qrels.has(query)) qrels.set(query, new Map());
    qrels.get(query).set(doc, Number(score));
  }
  return qrels;
}

export async function evaluateBeir(folder, options = {}) {
  const corpus = readJsonl(path.join(folder, 'corpus.jsonl'));
  const queries = readJsonl(path.join(folder, 'queries.jsonl'));
  const qrels = readQrels(path.join(folder, 'qrels.tsv'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-beir-'));
  const memory = await Memory.open({ dir, ...options.memory });
  try {
    const loadStart = performance.now();
    for (let i = 0; i < corpus.length; i += 2000) {
      await memory.knowledge.saveMany(
        corpus.slice(i, i + 2000).map((doc) => ({
          agentId: AGENT,
          // The title is part of the text (as BEIR's "flat" runs index it) and
          // also the knowledge title, which search weighs like metadata.
          input: {
            content: [doc.title, doc.text].filter(Boolean).join('\n\n'),
            ...(doc.title ? { title: doc.title } : {}),
            source: String(doc._id),
          },
        })),
      );
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const judged = queries.filter((query) => qrels.has(String(query._id)));
    const totals = { ndcg10: 0, recall100: 0, mrr10: 0 };
    const times = [];
    for (const query of judged) {
      const relevant = qrels.get(String(query._id));
      const start = performance.now();
      const results = await memory.knowledge.search(AGENT, query.text, 100);
      times.push(performance.now() - start);
      const ranked = results.map((result) => result.entity.source);
      totals.ndcg10 += ndcg(ranked, relevant, 10);
      totals.recall100 += recall(ranked, relevant, 100);
      totals.mrr10 += mrr(ranked, relevant, 10);
    }
    const n = judged.length;
    return {
      dataset: path.basename(path.resolve(folder)),
      documents: corpus.length,
      queries: n,
      'nDCG@10': totals.ndcg10 / n,
      'Recall@100': totals.recall100 / n,
      'MRR@10': totals.mrr10 / n,
      loadDocsPerSec: Math.round(corpus.length / loadSeconds),
      searchP50Ms: median(times),
    };
  } finally {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function printBeir(result) {
  for (const [key, value] of Object.entries(result)) {
    console.log(
      `${key.padEnd(16)} ${typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(4) : value}`,
    );
  }
}

/** Each kind of evaluation: how to run it from the command line's arguments, and how to print it. */
const KINDS = {
  beir: { usage: 'beir <folder>', run: (folder) => evaluateBeir(folder), print: printBeir },
  locomo: {
    usage: `locomo <file> [${Object.keys(LOCOMO_MODES).join('|')}]`,
    run: (file, mode) => evaluateLocomo(file, mode),
    print: printLocomo,
  },
};

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [kind, target, ...rest] = process.argv.slice(2);
  const chosen = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  if (!chosen || !target) {
    const usages = Object.values(KINDS).map((each) => `npm run eval -- ${each.usage}`);
    console.error(`usage: ${usages.join('\n   or: ')}`);
    process.exit(2);
  }
  chosen.print(await chosen.run(target, ...rest));
}
