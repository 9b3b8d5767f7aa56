// Search while another process writes (issue #19, item 10), and what
// memory-mapping buys (issue #18, "Footprint"). Builds a 100,000-memory store
// once (cached under BENCH_CACHE), then, on a fresh copy for every segment,
// times searches and recalls in this process (one every BENCH_PAUSE_MS) while
// a second process does nothing (idle), burns one core (cpu: the 2-core share
// alone, no SQLite), commits a one-row change every millisecond (touch: what
// dropping the reader's page cache after each foreign commit costs), bulk-saves
// (bulk: saveMany in batches) or saves one memory per transaction (single).
// Besides wall-clock percentiles it prints each search's CPU time on this
// thread: it rises when a search does more work, not when it waits for a core
// or a lock. Variants (settings of the reader and the writer) are measured
// interleaved, round by round.
//
//   npm exec -- node bench/search-under-load.mjs        (about 1.5 minutes, plus building the store once)
//   BENCH_SECONDS=8 BENCH_PHASES=idle,bulk BENCH_VARIANTS=current,mmap0 npm exec -- node bench/search-under-load.mjs
//   npm exec -- node bench/search-under-load.mjs --rss  (resident memory and search time by mmap_size)
//
// Environment: BENCH_SIZE (100000), BENCH_SECONDS per segment (12), BENCH_ROUNDS (1),
// BENCH_PHASES (idle,cpu,touch,bulk,single), BENCH_VARIANTS (names in VARIANTS, comma-separated;
// default "current"), BENCH_BATCH (bulk batch size, 1000), BENCH_PAUSE_MS (between
// searches, 10), BENCH_CACHE (/tmp/wm-bench-cache), BENCH_DIAGNOSE=1 (time per statement kind),
// BENCH_MMAP (--rss: mmap sizes in bytes, comma-separated).
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { percentile } from './measure.mjs';
import { realisticCorpus } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require(process.env.BENCH_CORE ?? '../dist/core.js');

const SIZE = Number(process.env.BENCH_SIZE ?? 100000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const PHASES = (process.env.BENCH_PHASES ?? 'idle,cpu,touch,bulk,single').split(',');
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 10);
const CACHE = process.env.BENCH_CACHE ?? path.join(os.tmpdir(), 'wm-bench-cache');
const DIAGNOSE = process.env.BENCH_DIAGNOSE === '1';
const MB = 1024 * 1024;

/**
 * Settings tried on top of the store's own. `reader`/`writer`: pragmas run on
 * that process's connection after it opens; `checkpoint`: the writer runs
 * `PRAGMA wal_checkpoint(<mode>)` after each batch; `yieldMs`: it sleeps that
 * long between batches.
 */
const VARIANTS = {
  current: {},
  mmap0: { reader: ['PRAGMA mmap_size = 0'], writer: ['PRAGMA mmap_size = 0'] },
  mmap32: { reader: ['PRAGMA mmap_size = 33554432'], writer: ['PRAGMA mmap_size = 33554432'] },
  mmap64: { reader: ['PRAGMA mmap_size = 67108864'], writer: ['PRAGMA mmap_size = 67108864'] },
  mmap0cache64: {
    reader: ['PRAGMA mmap_size = 0', 'PRAGMA cache_size = -64000'],
    writer: ['PRAGMA mmap_size = 0'],
  },
  readerCache8: { reader: ['PRAGMA cache_size = -8000'] },
  autockpt1000: { writer: ['PRAGMA wal_autocheckpoint = 1000'] },
  passive: { checkpoint: 'PASSIVE' },
  restart: { checkpoint: 'RESTART' },
  truncate: { checkpoint: 'TRUNCATE' },
  yield5: { yieldMs: 5 },
  batch200: { batch: 200 },
  batch5000: { batch: 5000 },
  queryOnly: { reader: ['PRAGMA query_only = 1'] },
};

const variantNames = (process.env.BENCH_VARIANTS ?? 'current').split(',');
for (const name of variantNames) if (!VARIANTS[name]) throw new Error(`unknown variant ${name}`);

/** The store's SQLite connection (a private field of Memory: benchmarks only). */
const connection = (memory) => memory.db;

function applyPragmas(memory, pragmas = []) {
  for (const pragma of pragmas) connection(memory).exec(pragma);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function newInputs(corpus, from, count) {
  return Array.from({ length: count }, (_, i) => ({
    agentId: 'agent',
    userId: 'user',
    input: corpus.memory(from + i),
  }));
}

/** The cached store: SIZE memories and 200 skills, as bench/search.mjs builds them, checkpointed into one file. */
async function cachedStore() {
  const dir = path.join(CACHE, `store-${SIZE}`);
  const file = path.join(dir, 'memory.db');
  if (fs.existsSync(path.join(dir, 'complete'))) return file;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const corpus = realisticCorpus(SIZE);
  const memory = await Memory.open({ dir });
  const start = performance.now();
  for (let offset = 0; offset < SIZE; offset += 5000)
    await memory.memories.saveMany(newInputs(corpus, offset, Math.min(5000, SIZE - offset)));
  for (let i = 0; i < 200; i++)
    await memory.skills.save('agent', undefined, { content: corpus.memory(SIZE + i).content });
  connection(memory).exec('PRAGMA wal_checkpoint(TRUNCATE)');
  await memory.close();
  fs.writeFileSync(path.join(dir, 'complete'), '');
  console.log(`built ${SIZE.toLocaleString('en')} memories in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return file;
}

/** Child process: the writer (bulk or single) or a CPU burner, until told to stop. */
async function child(mode, dir, variantName) {
  const variant = VARIANTS[variantName];
  if (mode === 'cpu') {
    process.send({ ready: true });
    let stop = false;
    process.on('message', (m) => (stop = m === 'stop'));
    let x = 0;
    while (!stop) {
      const until = performance.now() + 50;
      while (performance.now() < until) x = (x * 31 + 7) % 1000003;
      await new Promise(setImmediate);
    }
    process.send({ done: true, x }, () => process.disconnect());
    return;
  }
  const memory = await Memory.open({ dir });
  applyPragmas(memory, variant.writer);
  if (mode === 'touch') {
    // Commits that change one row outside the search tables, every millisecond:
    // what it costs readers that their page cache is dropped after each foreign commit.
    connection(memory).exec('CREATE TABLE IF NOT EXISTS bench_touch (x INTEGER)');
    let stop = false;
    let commits = 0;
    process.on('message', (m) => (stop = m === 'stop'));
    process.send({ ready: true });
    const start = performance.now();
    while (!stop) {
      connection(memory).exec('INSERT INTO bench_touch VALUES (1)');
      commits++;
      await sleep(1);
    }
    await memory.close();
    process.send({ done: true, perSec: Math.round(commits / ((performance.now() - start) / 1000)) }, () =>
      process.disconnect(),
    );
    return;
  }
  const corpus = realisticCorpus(SIZE + 12345);
  let stop = false;
  process.on('message', (m) => (stop = m === 'stop'));
  process.send({ ready: true });
  let written = 0;
  const commits = [];
  const checkpoints = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  const batch = mode === 'single' ? 1 : (variant.batch ?? BATCH);
  while (!stop) {
    const t = performance.now();
    if (mode === 'single') {
      for (let i = 0; i < 20 && !stop; i++) {
        const s = performance.now();
        await memory.memories.save('agent', 'user', corpus.memory(SIZE + written));
        commits.push(performance.now() - s);
        written++;
      }
    } else {
      await memory.memories.saveMany(newInputs(corpus, SIZE + written, batch));
      commits.push(performance.now() - t);
      written += batch;
    }
    if (variant.checkpoint) {
      const c = performance.now();
      connection(memory).exec(`PRAGMA wal_checkpoint(${variant.checkpoint})`);
      checkpoints.push(performance.now() - c);
    }
    if (variant.yieldMs) await sleep(variant.yieldMs);
    else await new Promise(setImmediate); // lets the stop message in
  }
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  await memory.close();
  process.send(
    {
      done: true,
      written,
      perSec: Math.round(written / seconds),
      cpuShare: (user + system) / 1e6 / seconds,
      commitP50: percentile(commits, 50),
      commitMax: Math.max(...commits),
      checkpointMax: checkpoints.length ? Math.max(...checkpoints) : undefined,
    },
    () => process.disconnect(),
  );
}

function startChild(mode, dir, variantName) {
  const proc = fork(new URL(import.meta.url).pathname, ['--child', mode, dir, variantName], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages = [];
  let waiter;
  proc.on('message', (m) => {
    messages.push(m);
    waiter?.();
  });
  const next = async (key) => {
    for (;;) {
      const found = messages.find((m) => m[key]);
      if (found) return found;
      await new Promise((resolve) => (waiter = resolve));
    }
  };
  return { proc, next };
}

/** Wraps the connection's statements to add up the time spent in each kind of query. */
function instrument(memory) {
  const db = connection(memory);
  const kinds = {};
  const kindOf = (sql) =>
    sql === 'BEGIN' || sql === 'COMMIT'
      ? 'begin/commit'
      : /search_stats/.test(sql)
        ? 'stats (first read: snapshot)'
        : /fts_vocab/.test(sql)
          ? 'fts_vocab (df)'
          : /MATCH/.test(sql)
            ? 'fts match'
            : /search_pending/.test(sql)
              ? 'pending rows'
              : /FROM refs|access/.test(sql)
                ? 'entities'
                : 'other';
  for (const method of ['get', 'all', 'run']) {
    const original = db[method].bind(db);
    db[method] = (sql, ...params) => {
      const t = performance.now();
      try {
        return original(sql, ...params);
      } finally {
        const kind = kindOf(sql);
        kinds[kind] = (kinds[kind] ?? 0) + performance.now() - t;
      }
    };
  }
  // read() runs BEGIN through the statement cache, not through run().
  const statement = db.statement.bind(db);
  db.statement = (sql) => {
    const s = statement(sql);
    if (sql !== 'BEGIN' && sql !== 'COMMIT') return s;
    return {
      run: (...a) => {
        const t = performance.now();
        try {
          return s.run(...a);
        } finally {
          kinds['begin/commit'] = (kinds['begin/commit'] ?? 0) + performance.now() - t;
        }
      },
    };
  };
  return kinds;
}

const fileMb = (file) => (fs.existsSync(file) ? fs.statSync(file).size / MB : 0);

/** One segment: a fresh copy of the store, this process searching, a child doing `phase`. */
async function segment(source, phase, variantName, questions) {
  const variant = VARIANTS[variantName];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-load-'));
  fs.copyFileSync(source, path.join(dir, 'memory.db'));
  const memory = await Memory.open({ dir });
  applyPragmas(memory, variant.reader);
  let q = 0;
  const ask = () => questions[q++ % questions.length];
  for (let i = 0; i < 30; i++) await memory.memories.search('agent', 'user', ask(), 10); // warm up
  for (let i = 0; i < 5; i++) await memory.recall('agent', 'user', ask());
  const kinds = DIAGNOSE ? instrument(memory) : undefined;
  const worker = phase === 'idle' ? undefined : startChild(phase, dir, variantName);
  if (worker) await worker.next('ready');
  await sleep(300); // let the child get going
  const searches = [];
  const recalls = [];
  const searchCpus = [];
  let walMax = 0;
  let errors = 0;
  if (kinds) for (const k of Object.keys(kinds)) delete kinds[k];
  const cpu = process.cpuUsage();
  const end = performance.now() + SECONDS * 1000;
  while (performance.now() < end) {
    const question = ask();
    const recall = q % 5 === 0;
    const t = performance.now();
    const c = process.threadCpuUsage();
    try {
      if (recall) await memory.recall('agent', 'user', question);
      else await memory.memories.search('agent', 'user', question, 10);
    } catch (error) {
      errors++;
      if (errors === 1) console.error(error);
    }
    (recall ? recalls : searches).push(performance.now() - t);
    if (!recall) {
      const used = process.threadCpuUsage(c);
      searchCpus.push((used.user + used.system) / 1000);
    }
    walMax = Math.max(walMax, fileMb(path.join(dir, 'memory.db-wal')));
    if (PAUSE_MS) await sleep(PAUSE_MS);
  }
  const searchCpu = process.cpuUsage(cpu);
  let other = {};
  if (worker) {
    worker.proc.send('stop');
    other = await worker.next('done');
    await new Promise((resolve) => worker.proc.once('exit', resolve));
  }
  await memory.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const searchMs = searches.reduce((a, b) => a + b, 0);
  return {
    phase,
    variant: variantName,
    n: searches.length,
    p50: percentile(searches, 50),
    p95: percentile(searches, 95),
    p99: percentile(searches, 99),
    max: Math.max(...searches),
    // CPU time of this thread per search: rises when the search does more work, not when it waits.
    cpuP50: percentile(searchCpus, 50),
    cpuP95: percentile(searchCpus, 95),
    recallP50: percentile(recalls, 50),
    recallP99: percentile(recalls, 99),
    // CPU time of this process over the time spent searching and recalling
    // (the rest is the pause between them): near 1 means it ran, lower means it waited.
    searchCpuShare: (searchCpu.user + searchCpu.system) / 1000 / (searchMs + recalls.reduce((a, b) => a + b, 0)),
    walMaxMb: walMax,
    errors,
    writerPerSec: other.perSec,
    writerCpu: other.cpuShare,
    commitP50: other.commitP50,
    commitMax: other.commitMax,
    checkpointMax: other.checkpointMax,
    kinds: kinds
      ? Object.fromEntries(
          Object.entries(kinds).map(([k, v]) => [k, +(v / (searches.length + recalls.length)).toFixed(2)]),
        )
      : undefined,
  };
}

/** Child mode for --rss: open the store with one mmap_size, run 200 searches, report memory and latency. */
async function rssChild(dir, mmap) {
  const status = () => {
    const text = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
  };
  const corpus = realisticCorpus(SIZE);
  const questions = Array.from({ length: 240 }, () => corpus.question());
  globalThis.gc?.();
  const before = status();
  const memory = await Memory.open({ dir });
  // "<mmap_size>" or "<mmap_size>:<cache_size>" (cache_size as the pragma takes it: -16000 is 16 MB).
  const [mmapSize, cacheSize] = mmap.split(':');
  if (mmapSize !== 'default') connection(memory).exec(`PRAGMA mmap_size = ${mmapSize}`);
  if (cacheSize) connection(memory).exec(`PRAGMA cache_size = ${cacheSize}`);
  const times = [];
  let cpu;
  for (let i = 0; i < 240; i++) {
    if (i === 40) cpu = process.threadCpuUsage();
    const t = performance.now();
    await memory.memories.search('agent', 'user', questions[i], 10);
    if (i >= 40) times.push(performance.now() - t);
  }
  const used = process.threadCpuUsage(cpu);
  globalThis.gc?.();
  const after = status();
  await memory.close();
  process.stdout.write(
    JSON.stringify({
      addedMb: after.rss - before.rss,
      anonMb: after.anon - before.anon,
      fileMb: after.file - before.file,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      // CPU time of the 200 searches, ms: what the setting costs, whatever else runs on the machine.
      cpuMs: (used.user + used.system) / 1000,
    }),
  );
}

/** "67108864:-16000" as "64 MB, cache 16 MB". */
function label(setting) {
  const [mmapSize, cacheSize] = setting.split(':');
  const mapped = mmapSize === 'default' ? 'default' : `${Number(mmapSize) / MB} MB`;
  return cacheSize ? `${mapped}, cache_size ${Math.round(-Number(cacheSize) / 1000)} MB` : mapped;
}

async function rss(source) {
  const { execFileSync } = await import('node:child_process');
  const sizes = (process.env.BENCH_MMAP ?? '0,33554432,67108864,268435456').split(',');
  const rows = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-rss-'));
  fs.copyFileSync(source, path.join(dir, 'memory.db'));
  for (let round = 0; round < Math.max(ROUNDS, 3); round++)
    for (const mmap of sizes) {
      const out = execFileSync(
        process.execPath,
        ['--expose-gc', new URL(import.meta.url).pathname, '--rss-child', dir, mmap],
        { encoding: 'utf8', env: process.env },
      );
      rows.push({ mmap, ...JSON.parse(out) });
    }
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(
    `\n| mmap_size (page cache 32 MB unless said) | resident added, MB (anonymous + file-backed) | search p50 / p95, ms | CPU for 200 searches, ms | CPU ÷ ${label(sizes[0])}'s in the same round |`,
  );
  console.log('|---|---:|---:|---:|---:|');
  // The settings run one after another in each round: comparing each round's CPU with the first
  // setting's in that round cancels most of what other work on the machine does to both.
  const first = rows.filter((r) => r.mmap === sizes[0]);
  for (const mmap of sizes) {
    const mine = rows.filter((r) => r.mmap === mmap);
    const med = (key) =>
      percentile(
        mine.map((r) => r[key]),
        50,
      );
    const ratio = percentile(
      mine.map((r, round) => r.cpuMs / first[round].cpuMs),
      50,
    );
    console.log(
      `| ${label(mmap)} | ${med('addedMb').toFixed(0)} (${med('anonMb').toFixed(0)} + ${med('fileMb').toFixed(0)}) | ${med('p50').toFixed(1)} / ${med('p95').toFixed(1)} | ${med('cpuMs').toFixed(0)} | ${ratio.toFixed(2)} |`,
    );
  }
}

const fmt = (v, digits = 1) => (v === undefined ? '' : typeof v === 'number' ? v.toFixed(digits) : String(v));

async function main() {
  console.log(
    `Workspace Memory search under write load — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${os.loadavg()[0].toFixed(2)}`,
  );
  const source = await cachedStore();
  if (process.argv.includes('--rss')) return rss(source);
  const corpus = realisticCorpus(SIZE + 1);
  const questions = Array.from({ length: 2000 }, () => corpus.question());
  const results = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const phase of PHASES)
      for (const variant of variantNames) {
        const row = await segment(source, phase, variant, questions);
        results.push(row);
        console.log(JSON.stringify(row));
      }
  console.log(
    `\n${SIZE.toLocaleString('en')} memories, ${SECONDS} s per segment, a search or recall every ${PAUSE_MS} ms; bulk = saveMany of ${BATCH}; times in ms`,
  );
  console.log(
    '| other process | variant | searches | search p50 / p95 / p99 / max | its CPU p50 / p95 | recall p50 / p99 | searcher CPU share | WAL max, MB | writer, memories/s |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results)
    console.log(
      `| ${r.phase} | ${r.variant} | ${r.n} | ${fmt(r.p50)} / ${fmt(r.p95)} / ${fmt(r.p99)} / ${fmt(r.max, 0)} | ${fmt(r.cpuP50)} / ${fmt(r.cpuP95)} | ${fmt(r.recallP50)} / ${fmt(r.recallP99)} | ${fmt(r.searchCpuShare, 2)} | ${fmt(r.walMaxMb, 0)} | ${r.writerPerSec ?? ''} |`,
    );
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5]);
else if (process.argv[2] === '--rss-child') await rssChild(process.argv[3], process.argv[4]);
else await main();
