// Document search on a real workspace (issue: retrieval 2.0): commander.js's
// own docs (from ../shared/datasets/repos, cloned into a temp folder) beside
// every Markdown file of this project's node_modules copied three times under
// different paths (about 1,500 READMEs nobody asked about, each in three
// places), synced as the extension syncs a workspace; then questions a user
// of commander asks, each with the README section that answers it. Prints,
// per question, where the first chunk of that section ranks (any copy of it),
// and hit@1, hit@5, MRR@10 and how many of the top 10 are distinct texts.
// Run: npm run build && node bench/docs-questions.mjs
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { markdownFiles } from './measure.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');
const HERE = path.dirname(new URL(import.meta.url).pathname);
const BUNDLE = path.resolve(HERE, '../../shared/datasets/repos/commander.js.bundle');
const MODULES = path.resolve(HERE, '../node_modules');
const COPIES = 3;

/** Questions as people type them, with the heading of the section that answers each. */
const QUESTIONS = [
  ['how to define a required option', 'Required option'],
  ['make an option mandatory', 'Required option'],
  ['option that takes multiple values', 'Variadic option'],
  ['how do I add a --version flag', 'Version option'],
  ['set a default value for an option', 'Default option value'],
  ['negate a boolean option with --no', 'Other option types, negatable boolean and boolean|value'],
  ['parse an option value as an integer', 'Custom option processing'],
  ['run code before every command action', 'Life cycle hooks'],
  ['subcommands in separate executable files', 'Stand-alone executable (sub)commands'],
  ['show help after an error', 'Display help after errors'],
  ['change the usage line in help', '.usage'],
  ['stop commander from calling process.exit', 'Override exit and output handling'],
  ['parse async action handlers', '.parse() and .parseAsync()'],
  ['add custom text to the help output', 'Custom help'],
  ['arguments of a command', 'Command-arguments'],
];

if (!fs.existsSync(BUNDLE)) {
  console.error(`bench/docs-questions.mjs needs ${BUNDLE} (the shared datasets).`);
  process.exit(1);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-docs-q-'));
const docs = path.join(work, 'workspace');
execFileSync('git', ['clone', '--quiet', BUNDLE, path.join(docs, 'commander')]);
fs.rmSync(path.join(docs, 'commander', '.git'), { recursive: true, force: true });
const modules = markdownFiles(MODULES);
for (let copy = 1; copy <= COPIES; copy++) {
  for (const file of modules) {
    // "node_modules" folders would be skipped by the loader: rename them in the copy.
    const target = path.join(docs, `vendor-${copy}`, path.relative(MODULES, file).replace(/node_modules/g, 'deps'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}

const memory = await Memory.open({ dir: path.join(work, 'store') });
try {
  const synced = await memory.rag.sync(docs, 'docs');
  const heading = (entity) => (entity.headingPath ?? []).at(-1)?.replace(/[`_*]/g, '') ?? '';
  const rows = [];
  for (const [question, answer] of QUESTIONS) {
    const results = await memory.knowledge.search('docs', question, 10);
    const rank = results.findIndex((result) => heading(result.entity) === answer) + 1;
    const distinct = new Set(results.map((result) => result.entity.content.trim())).size;
    const first = results[0] ? `${results[0].entity.source} › ${heading(results[0].entity)}` : '-';
    rows.push({ question, rank, distinct, first });
  }
  const hit = (k) => rows.filter((row) => row.rank > 0 && row.rank <= k).length / rows.length;
  const mrr = rows.reduce((sum, row) => sum + (row.rank ? 1 / row.rank : 0), 0) / rows.length;
  console.log(
    `docs questions: ${synced.added.length} files synced (commander.js docs + ${modules.length} Markdown files of node_modules × ${COPIES}), ${QUESTIONS.length} questions`,
  );
  for (const row of rows) {
    console.log(
      `  ${String(row.rank || '-').padStart(2)}  ${row.question.padEnd(44)} ${row.distinct}/10 distinct; first: ${row.first}`,
    );
  }
  console.log(
    `hit@1 ${hit(1).toFixed(2)}  hit@5 ${hit(5).toFixed(2)}  hit@10 ${hit(10).toFixed(2)}  MRR@10 ${mrr.toFixed(3)}`,
  );
} finally {
  await memory.close();
  // BENCH_KEEP=1 keeps the workspace and its store, to look into a ranking.
  if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
