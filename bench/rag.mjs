// Document sync benchmark (issue: RAG). Copies every Markdown file under the
// project's node_modules (thousands of READMEs nobody here wrote) into a
// temporary tree, then measures a full ingest, a re-sync with nothing
// changed, and a re-sync after one file changed, both by a full sync and by
// syncFiles (what the extension's file watcher runs). Run: npm run bench:rag
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { markdownFiles } from './measure.mjs';
import { sqliteFloor } from './replay.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');
const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules');

const sources = markdownFiles(ROOT);
// The project's own dependencies hold about 500 Markdown files; the targets
// are stated for 2,000, so the tree is copied as often as it takes.
const COPIES = Math.max(1, Math.ceil(Number(process.env.BENCH_RAG_FILES ?? 2000) / sources.length));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-rag-'));
const docs = path.join(work, 'docs');
for (let copy = 1; copy <= COPIES; copy++) {
  for (const file of sources) {
    // "node_modules" folders would be skipped by the loader: rename them in the copy.
    const target = path.join(docs, `copy-${copy}`, path.relative(ROOT, file).replace(/node_modules/g, 'deps'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}
const bytes = COPIES * sources.reduce((sum, file) => sum + fs.statSync(file).size, 0);

const memory = await Memory.open({ dir: path.join(work, 'store') });
try {
  let start = performance.now();
  const first = await memory.rag.sync(docs, 'docs');
  const ingestSeconds = (performance.now() - start) / 1000;
  // The same chunks written again by SQLite alone, in the sync's transactions
  // of at most 400 chunks: the ceiling for ingest on this machine.
  const floor = await sqliteFloor(path.join(work, 'store', 'memory.db'), 400);
  const firstChunksPerFile = first.chunks.added / first.added.length;

  start = performance.now();
  const again = await memory.rag.sync(docs, 'docs');
  const resyncMs = performance.now() - start;

  const touched = path.join(docs, first.added[Math.floor(first.added.length / 2)]);
  fs.appendFileSync(touched, '\n\n## Added by the benchmark\n\nOne more paragraph.\n');
  start = performance.now();
  const afterEdit = await memory.rag.sync(docs, 'docs');
  const oneChangeMs = performance.now() - start;

  // The watcher's path: only the changed file is looked at.
  const other = first.added[Math.floor(first.added.length / 3)];
  fs.appendFileSync(path.join(docs, other), '\n\n## Also added by the benchmark\n\nAnother paragraph.\n');
  start = performance.now();
  const targeted = await memory.rag.syncFiles(docs, 'docs', [other]);
  const syncFilesMs = performance.now() - start;

  start = performance.now();
  const answer = await memory.rag.query('docs', 'how do I configure the parser options?', { limit: 5 });
  const queryMs = performance.now() - start;

  const status = memory.rag.status('docs');
  await memory.close();
  const storeBytes = fs.statSync(path.join(work, 'store', 'memory.db')).size;
  const result = {
    markdownFiles: sources.length * COPIES,
    distinctFiles: sources.length,
    megabytes: +(bytes / 1024 / 1024).toFixed(1),
    ingested: first.added.length,
    skipped: first.skipped.length,
    ingestFilesPerSec: Math.round(first.added.length / ingestSeconds),
    ingestSqliteAloneFilesPerSec: Math.round(floor.perSec / firstChunksPerFile),
    resyncUnchangedMs: +resyncMs.toFixed(1),
    resyncUnchangedTouched: again.added.length + again.updated.length + again.removed.length,
    resyncOneChangeMs: +oneChangeMs.toFixed(1),
    resyncOneChangeUpdated: afterEdit.updated.length,
    syncFilesOneChangeMs: +syncFilesMs.toFixed(1),
    syncFilesOneChangeUpdated: targeted.updated.length,
    queryMs: +queryMs.toFixed(1),
    queryHits: answer.chunks.length,
    chunksPerFile: +(status.chunks / status.files).toFixed(2),
    storeMegabytes: +(storeBytes / 1024 / 1024).toFixed(1),
  };
  console.log(`Workspace Memory document sync benchmark — Node ${process.version}`);
  console.log(JSON.stringify(result));
  console.log('\n| metric | value |\n|---|---:|');
  for (const [key, value] of Object.entries(result)) console.log(`| ${key} | ${value} |`);
} finally {
  if (!memory.closed) await memory.close();
  fs.rmSync(work, { recursive: true, force: true });
}
