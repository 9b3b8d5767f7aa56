// Store benchmark (issue: foundation). Builds synthetic stores of 10k and
// 100k memories and prints write throughput, open time, read latency,
// resident memory and bytes on disk. Run: npm run bench:store
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { percentile, timeEach } from './measure.mjs';
import { sqliteFloor } from './replay.mjs';
import { memoryInput, random } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const AGENTS = 10;

/**
 * CPU seconds this process used since `since` (a process.cpuUsage() reading):
 * throughput per CPU-second is what the code costs, which other processes on a
 * shared machine disturb far less than the wall clock.
 */
function cpuSeconds(since) {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1e6;
}

/** Child mode: open an existing store in a fresh process and report time and memory. */
async function childOpen(dir) {
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const start = process.hrtime.bigint();
  const memory = await Memory.open({ dir });
  const openMs = Number(process.hrtime.bigint() - start) / 1e6;
  await memory.memories.count('agent-0');
  const rssAfter = process.memoryUsage().rss;
  await memory.close();
  process.stdout.write(
    JSON.stringify({ openMs, rssDeltaMb: (rssAfter - rssBefore) / 1024 / 1024, rssMb: rssAfter / 1024 / 1024 }),
  );
}

async function run(size) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `wm-bench-${size}-`));
  const rng = random(size);
  const memory = await Memory.open({ dir });
  try {
    // saveMany: the whole store, in batches of 5,000 (one transaction each).
    const batchSize = 5000;
    let ids = [];
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (let offset = 0; offset < size; offset += batchSize) {
      const items = Array.from({ length: Math.min(batchSize, size - offset) }, (_, i) => ({
        agentId: `agent-${(offset + i) % AGENTS}`,
        userId: 'user',
        input: memoryInput(rng, offset + i),
      }));
      const results = await memory.memories.saveMany(items);
      ids.push(...results.map((r) => r[0].id));
    }
    const saveManyRate = size / ((performance.now() - start) / 1000);
    const saveManyCpuRate = size / cpuSeconds(cpuStart);
    // The same rows written again by SQLite alone: the ceiling for saveMany here.
    const floor = await sqliteFloor(path.join(dir, 'memory.db'), batchSize);

    // A tenth of the entities get a second version, so history has chains to walk.
    const updated = ids.filter((_, i) => i % 10 === 0);
    for (const id of updated.slice(0, 2000))
      await memory.memories.update(id, { content: `Updated: ${memoryInput(rng, 0).content}` });

    // Single saves, one transaction each: with the default synchronous=normal
    // (survives a killed process), then with synchronous=full (one WAL fsync
    // per save: survives a power cut too) on a second connection.
    const singles = 1000;
    const singleRate = async (target) => {
      const cpuSingleStart = process.cpuUsage();
      const singleStart = performance.now();
      for (let i = 0; i < singles; i++) await target.memories.save('agent-single', 'user', memoryInput(rng, size + i));
      return {
        wall: singles / ((performance.now() - singleStart) / 1000),
        cpu: singles / cpuSeconds(cpuSingleStart),
      };
    };
    const normal = await singleRate(memory);
    const full = await Memory.open({ dir, synchronous: 'full' });
    const fullRate = (await singleRate(full)).wall;
    await full.close();

    const sample = Array.from({ length: 2000 }, () => ids[Math.floor(rng() * ids.length)]);
    const getTimes = await timeEach(sample.length, (i) => memory.memories.get(sample[i]));
    const historyTimes = await timeEach(sample.length, (i) => memory.memories.history(sample[i]));
    const listTimes = await timeEach(200, (i) =>
      memory.memories.listPaginated(`agent-${i % AGENTS}`, 'user', { limit: 50 }),
    );
    const verifyStart = performance.now();
    const report = await memory.verify();
    const verifyMs = performance.now() - verifyStart;
    if (!report.valid) throw new Error(`verify failed: ${JSON.stringify(report.errors.slice(0, 3))}`);
    const snapshotStart = performance.now();
    await memory.snapshot('bench');
    const snapshotMs = performance.now() - snapshotStart;
    await memory.close();

    const entities = size + 2 * singles;
    const dbBytes =
      fs.statSync(path.join(dir, 'memory.db')).size +
      (fs.existsSync(path.join(dir, 'memory.db-wal')) ? fs.statSync(path.join(dir, 'memory.db-wal')).size : 0);
    const opens = Array.from({ length: 5 }, () =>
      JSON.parse(
        execFileSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, '--child-open', dir], {
          encoding: 'utf8',
        }),
      ),
    );
    return {
      entities,
      saveManyPerSec: Math.round(saveManyRate),
      saveManyPerCpuSec: Math.round(saveManyCpuRate),
      saveManySqliteAlonePerSec: floor.perSec,
      saveManySqliteAlonePerCpuSec: floor.perCpuSec,
      savesPerSec: Math.round(normal.wall),
      savesPerCpuSec: Math.round(normal.cpu),
      savesPerSecSyncFull: Math.round(fullRate),
      openMsP50: percentile(
        opens.map((o) => o.openMs),
        50,
      ),
      getP50Ms: percentile(getTimes, 50),
      getP99Ms: percentile(getTimes, 99),
      historyP50Ms: percentile(historyTimes, 50),
      listPage50P50Ms: percentile(listTimes, 50),
      verifyMs: Math.round(verifyMs),
      snapshotMs: Math.round(snapshotMs),
      rssAddedByOpenMb: percentile(
        opens.map((o) => o.rssDeltaMb),
        50,
      ),
      bytesPerEntity: Math.round(dbBytes / entities),
    };
  } finally {
    if (!memory.closed) await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child-open') {
  await childOpen(process.argv[3]);
} else {
  console.log(
    `Workspace Memory store benchmark — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
  );
  const rows = [];
  for (const size of SIZES) {
    const result = await run(size);
    rows.push(result);
    console.log(JSON.stringify(result));
  }
  const fmt = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v));
  const keys = Object.keys(rows[0]);
  console.log(`\n| metric | ${rows.map((r) => `${r.entities.toLocaleString('en')} entities`).join(' | ')} |`);
  console.log(`|---|${rows.map(() => '---:').join('|')}|`);
  for (const key of keys.slice(1)) console.log(`| ${key} | ${rows.map((r) => fmt(r[key])).join(' | ')} |`);
}
