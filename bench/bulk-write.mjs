// Bulk-write benchmark (issue #18, H2): memories of 20–120 words drawn from a
// large Zipf vocabulary, one agent, `saveMany` in batches of 1,000, and in the
// same run a bare FTS5 table (the store's tokenizer settings, SQLite's own
// tokenizing, nothing else) fed the same documents in the same batches, one
// transaction per batch. The two are interleaved batch by batch, so load from
// other processes on a shared machine hits both alike; the ratio is the figure
// to read, the absolute rates are noisy.
//
// Run: npm run build && node bench/bulk-write.mjs
// Options (environment):
//   BENCH_TOTAL      entities in all (100000)
//   BENCH_BATCH      entities per saveMany / per bare transaction (1000)
//   BENCH_VOCAB      distinct words in the vocabulary (50000)
//   BENCH_ZIPF_S     the Zipf exponent (1.1)
//   BENCH_SEED       the generator's seed (18)
//   BENCH_CORE       comma-separated core bundles to compare, each as
//                    label=path or path (../dist/core.js): all are interleaved
//                    with each other and with the bare table, batch by batch
//   BENCH_FTS_DETAIL the bare table's `detail` option (full, FTS5's default; the
//                    store's tables use column)
//   BENCH_PROFILE    1: CPU-profile the run and print where the store's time goes,
//                    per source file and per SQLite statement (needs source maps
//                    next to the bundles for file names)
//   BENCH_FLOOR      1: afterwards replay the first store's rows with SQLite alone
//                    (the store's statements, schema and pragmas, no JavaScript work
//                    but binding: what bench/replay.mjs does), batch by batch,
//                    interleaved with a fresh bare table: the store's ceiling here
// A core bundle patched with timing hooks that add milliseconds to
// globalThis.__h2 (a Map from label to ms) gets those sums printed per entity.
import * as fs from 'node:fs';
import { createRequire, SourceMap } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

import { random, zipf } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));

const TOTAL = Number(process.env.BENCH_TOTAL ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const VOCAB = Number(process.env.BENCH_VOCAB ?? 50_000);
const ZIPF_S = Number(process.env.BENCH_ZIPF_S ?? 1.1);
const SEED = Number(process.env.BENCH_SEED ?? 18);
const DETAIL = process.env.BENCH_FTS_DETAIL ?? 'full';
const PROFILE = process.env.BENCH_PROFILE === '1';
const FLOOR = process.env.BENCH_FLOOR === '1';
const CORES = (process.env.BENCH_CORE ?? path.join(here, '../dist/core.js')).split(',').map((spec, i) => {
  const [label, file] = spec.includes('=') ? spec.split('=') : [i === 0 ? 'store' : `store-${i}`, spec];
  return { label, file: path.resolve(file) };
});

const SYLLABLES =
  'ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko la le li lo ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi vo za ze zi zo'.split(
    ' ',
  );

/** `size` distinct lower-case words of two to four syllables, most frequent first. */
function vocabulary(rng, size) {
  const words = new Set();
  while (words.size < size) {
    const n = 2 + Math.floor(rng() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(rng() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/** The documents: 20–120 Zipf-drawn words each, cut into sentences, the same every run. */
function corpus() {
  const rng = random(SEED);
  const words = vocabulary(rng, VOCAB);
  const next = zipf(rng, words.length, ZIPF_S);
  return (count) =>
    Array.from({ length: count }, () => {
      const length = 20 + Math.floor(rng() * 101);
      let text = '';
      for (let i = 0; i < length; i++) {
        const word = words[next()];
        text += i === 0 ? word[0].toUpperCase() + word.slice(1) : i % 12 === 0 ? `. ${word}` : ` ${word}`;
      }
      return `${text}.`;
    });
}

/** A bare FTS5 table with the store's pragmas and tokenizer settings. */
function bareFts(dir) {
  const db = new DatabaseSync(path.join(dir, 'bare.db'));
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32000;
    PRAGMA mmap_size = 268435456; PRAGMA wal_autocheckpoint = 8000; PRAGMA journal_size_limit = 67108864`);
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(content, detail = ${DETAIL},
    tokenize = "unicode61 remove_diacritics 0 tokenchars '_'")`);
  const insert = db.prepare('INSERT INTO docs (content) VALUES (?)');
  return {
    label: `bare FTS5 (detail=${DETAIL})`,
    write(texts) {
      db.exec('BEGIN IMMEDIATE');
      for (const text of texts) insert.run(text);
      db.exec('COMMIT');
    },
    close: () => db.close(),
  };
}

async function storeTarget(core, dir) {
  const { Memory } = require(core.file);
  const memory = await Memory.open({ dir });
  return {
    label: core.label,
    file: path.join(dir, 'memory.db'),
    async write(texts) {
      const results = await memory.memories.saveMany(
        texts.map((content) => ({ agentId: 'agent', userId: 'user', input: { content } })),
      );
      if (results.length !== texts.length) throw new Error('saveMany returned too few results');
    },
    close: () => memory.close(),
  };
}

// The statements src/core/store/entity-store.ts and search/fts-index.ts run for a new entity (as bench/replay.mjs).
const REPLAY = {
  object: 'INSERT OR IGNORE INTO objects (seq, hash, data) VALUES (?, ?, ?)',
  commit: `INSERT INTO commits (seq, hash, entity_id, parent_seq, object_seq, time, author, message, op)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  doc: `INSERT INTO search_docs (rowid, entity_id, type, agent_id, user_id, length, content, tags, meta)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  fts: 'INSERT INTO fts_memory (rowid, content, tags, meta) VALUES (?, ?, ?, ?)',
  ref: `INSERT INTO refs (id, type, agent_id, user_id, head_seq, object_seq, deleted, created_at, updated_at,
      conversation_id, source, search_rowid)
    VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
    ON CONFLICT(id) DO UPDATE SET agent_id = excluded.agent_id, user_id = excluded.user_id,
      head_seq = excluded.head_seq, object_seq = excluded.object_seq, deleted = 0,
      created_at = excluded.created_at, updated_at = excluded.updated_at,
      conversation_id = excluded.conversation_id, source = excluded.source, search_rowid = excluded.search_rowid`,
};

/**
 * "SQLite alone": a fresh store (schema and pragmas as the store makes them)
 * that takes the rows a store wrote, batch by batch, with the store's own
 * statements and no JavaScript work besides binding them. Whatever the
 * store's code does, it cannot write faster than this.
 */
async function sqliteAlone(core, storeFile, dir) {
  const source = new DatabaseSync(storeFile, { readOnly: true });
  const rows = (sql) => source.prepare(sql).all();
  const objects = rows('SELECT seq, hash, data FROM objects ORDER BY seq');
  const commits = rows('SELECT * FROM commits ORDER BY seq');
  const docs = rows('SELECT * FROM search_docs ORDER BY rowid');
  const refs = rows('SELECT * FROM refs ORDER BY head_seq');
  source.close();
  const { Memory } = require(core.file);
  await (await Memory.open({ dir })).close();
  const db = new DatabaseSync(path.join(dir, 'memory.db'));
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32000;
    PRAGMA mmap_size = 268435456; PRAGMA wal_autocheckpoint = 8000; PRAGMA journal_size_limit = 67108864`);
  const st = Object.fromEntries(Object.entries(REPLAY).map(([key, sql]) => [key, db.prepare(sql)]));
  let next = 0;
  return {
    label: 'SQLite alone (replay)',
    write(texts) {
      db.exec('BEGIN IMMEDIATE');
      for (const end = next + texts.length; next < end; next++) {
        const o = objects[next];
        st.object.run(o.seq, o.hash, o.data);
        const c = commits[next];
        st.commit.run(c.seq, c.hash, c.entity_id, c.parent_seq, c.object_seq, c.time, c.author, c.message, c.op);
        const d = docs[next];
        st.doc.run(d.rowid, d.entity_id, d.type, d.agent_id, d.user_id, d.length, d.content, d.tags, d.meta);
        st.fts.run(d.rowid, d.content, d.tags, d.meta);
        const r = refs[next];
        st.ref.run(
          r.id,
          r.type,
          r.agent_id,
          r.user_id,
          r.head_seq,
          r.object_seq,
          r.created_at,
          r.updated_at,
          r.conversation_id,
          r.source,
          r.search_rowid,
        );
      }
      db.exec('COMMIT');
    },
    close: () => db.close(),
  };
}

/** Wall and CPU time of one call, in µs. */
async function timed(fn) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const { user, system } = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) * 1000, cpu: user + system };
}

// ---- profiling: self time per original source file, SQLite time per calling statement ----

const sourceMaps = new Map();
function sourceMapOf(url) {
  if (!sourceMaps.has(url)) {
    let map = null;
    try {
      const file = fileURLToPath(url);
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // No map: the bundle's own name is used.
    }
    sourceMaps.set(url, map);
  }
  return sourceMaps.get(url);
}

/** Where a profile node's function comes from: an original source file, or the bundle, or native code. */
function origin(frame) {
  if (!frame.url) return { file: `(native) ${frame.functionName || '(program)'}`, line: 0 };
  const map = frame.url.startsWith('file:') ? sourceMapOf(frame.url) : null;
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry?.originalSource) {
    const file = entry.originalSource.replace(/^.*?\/(src|node_modules)\//, '$1/');
    return { file, line: entry.originalLine + 1 };
  }
  return { file: frame.url.replace(/^.*\//, ''), line: frame.lineNumber + 1 };
}

// Database's and FtsIndex's statement wrappers: the frame that owns a statement is above them.
const WRAPPERS = new Set(['run', 'get', 'all', 'iterate', 'exec', 'guarded', 'statement']);

/**
 * Sums self time over the nodes under the store's saveMany: by original
 * source file, and the time inside SQLite's statements by the nearest frame
 * in the store's code that ran them (file:line).
 */
function summarize(profile, entities) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
  const byFile = new Map();
  const byLine = new Map();
  const bySql = new Map();
  let total = 0;
  for (const [id, us] of self) {
    // Only time spent under a store bundle's code counts (not the bare table, not the generator).
    const chain = [];
    for (let n = id; n !== undefined; n = parent.get(n)) chain.push(nodes.get(n).callFrame);
    if (!chain.some((frame) => CORES.some((core) => frame.url.endsWith(path.basename(core.file))))) continue;
    total += us;
    const own = origin(chain[0]);
    byFile.set(own.file, (byFile.get(own.file) ?? 0) + us);
    const line = `${own.file}:${own.line} ${chain[0].functionName}`;
    byLine.set(line, (byLine.get(line) ?? 0) + us);
    if (!chain[0].url) {
      // The statement's owner: the first frame of the store's code above the generic wrappers.
      const frame = chain
        .slice(1)
        .find(
          (f) =>
            !WRAPPERS.has(f.functionName) &&
            origin(f).file.startsWith('src/') &&
            !origin(f).file.endsWith('database.ts'),
        );
      const caller = frame && { ...origin(frame), line: `${origin(frame).line} ${frame.functionName}` };
      const key = `${own.file} <- ${caller ? `${caller.file}:${caller.line}` : '?'}`;
      bySql.set(key, (bySql.get(key) ?? 0) + us);
    }
  }
  const table = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([key, us]) => `  ${(us / entities).toFixed(1).padStart(7)} µs/entity  ${key}`)
      .join('\n');
  console.log(`\nprofile: ${(total / entities).toFixed(1)} µs/entity under the store's code (all bundles)`);
  console.log(`by source file (self time):\n${table(byFile)}`);
  console.log(`by function (self time):\n${table(byLine)}`);
  console.log(`native calls by the store's frame that made them:\n${table(bySql)}`);
}

// ---- the run ----

/** Feeds every target the same batches, interleaved; returns each one's summed times. */
async function race(targets) {
  const nextDocs = corpus();
  const times = targets.map(() => ({ wall: 0, cpu: 0, segments: [] }));
  let words = 0;
  for (let offset = 0, k = 0; offset < TOTAL; offset += BATCH, k++) {
    const texts = nextDocs(Math.min(BATCH, TOTAL - offset));
    for (const text of texts) words += text.split(' ').length;
    // Alternate the order, so neither side always runs right after the other's commit.
    const order = targets.map((_, i) => i);
    if (k % 2 === 1) order.reverse();
    for (const i of order) {
      const t = await timed(() => targets[i].write(texts));
      times[i].wall += t.wall;
      times[i].cpu += t.cpu;
      const s = Math.floor(offset / SEGMENT);
      times[i].segments[s] = (times[i].segments[s] ?? 0) + t.wall;
    }
  }
  return { times, words };
}

const SEGMENT = Math.max(BATCH, Math.ceil(TOTAL / 10 / BATCH) * BATCH);

/** The figures of one race: a row per target, the bare table (last) as the reference. */
function report(targets, times) {
  const bare = times[times.length - 1];
  const rows = targets.map((target, i) => {
    const t = times[i];
    return {
      target: target.label,
      'entities/s': Math.round(TOTAL / (t.wall / 1e6)),
      'per CPU-s': Math.round(TOTAL / (t.cpu / 1e6)),
      'µs/entity': +(t.wall / TOTAL).toFixed(1),
      'CPU µs/entity': +(t.cpu / TOTAL).toFixed(1),
      'rate vs bare': +(bare.wall / t.wall).toFixed(3),
      'CPU vs bare': +(bare.cpu / t.cpu).toFixed(3),
    };
  });
  console.table(rows);
  console.log('µs per entity by tenth of the run (does it grow with the store?):');
  for (const [i, target] of targets.entries())
    console.log(
      `  ${target.label.padEnd(26)} ${times[i].segments.map((us) => (us / SEGMENT).toFixed(0).padStart(5)).join(' ')}`,
    );
  return rows;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bulk-'));
let session;
try {
  const stores = [];
  for (const [i, core] of CORES.entries()) {
    fs.mkdirSync(path.join(dir, `s${i}`));
    stores.push(await storeTarget(core, path.join(dir, `s${i}`)));
  }
  fs.mkdirSync(path.join(dir, 'bare'));
  const targets = [...stores, bareFts(path.join(dir, 'bare'))];
  if (PROFILE) {
    const { Session } = await import('node:inspector/promises');
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  const { times, words } = await race(targets);
  const profile = PROFILE ? (await session.post('Profiler.stop')).profile : null;

  console.log(
    `${TOTAL.toLocaleString('en')} memories of 20–120 words (mean ${(words / TOTAL).toFixed(1)}), ` +
      `vocabulary ${VOCAB.toLocaleString('en')} (Zipf s=${ZIPF_S}), batches of ${BATCH}, one agent; ` +
      `${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}: figures are noisy, read the ratios`,
  );
  const rows = report(targets, times);
  const half = Math.round(TOTAL / (times[times.length - 1].wall / 1e6) / 2);
  console.log(
    `target (issue #18): half the bare rate = ${half} entities/s; ` +
      stores.map((s, i) => `${s.label} ${rows[i]['rate vs bare'] >= 0.5 ? 'reaches it' : 'does not'}`).join(', '),
  );
  if (profile) summarize(profile, TOTAL * stores.length);
  // A bundle instrumented with timing hooks (a patched copy whose hooks add their milliseconds
  // to globalThis.__h2, a Map from label to ms) leaves its sums here.
  if (globalThis.__h2) {
    console.log('timing hooks of the instrumented bundle (ms summed over its run, as µs per entity):');
    for (const [key, ms] of [...globalThis.__h2].sort((a, b) => b[1] - a[1]))
      console.log(`  ${((ms * 1000) / TOTAL).toFixed(1).padStart(7)} µs/entity  ${key}`);
  }
  for (const target of targets) await target.close();

  if (FLOOR) {
    // Second race: the first store's rows written by SQLite alone, against a fresh bare table.
    fs.mkdirSync(path.join(dir, 'floor'));
    fs.mkdirSync(path.join(dir, 'bare2'));
    const floorTargets = [
      await sqliteAlone(CORES[0], stores[0].file, path.join(dir, 'floor')),
      bareFts(path.join(dir, 'bare2')),
    ];
    console.log(
      `\nSQLite alone: ${stores[0].label}'s rows replayed in the same batches, interleaved with a fresh bare table`,
    );
    report(floorTargets, (await race(floorTargets)).times);
    for (const target of floorTargets) target.close();
  }
} finally {
  session?.disconnect();
  fs.rmSync(dir, { recursive: true, force: true });
}
