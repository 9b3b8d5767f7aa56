// Where the extension host's resident memory goes, for the measure run: the
// process's resident set split into anonymous memory (JavaScript heaps,
// SQLite's page cache, malloc) and file-backed pages (code, and the store
// file's memory map), with the two JavaScript heaps that live in it (the
// host's and the store worker's) and the store file's mapped pages.
import * as fs from 'node:fs';

import type { StoreClient } from '../../../src/extension/store/client';

const MB = 1024 * 1024;

/** A JavaScript heap: bytes in use (live objects and garbage not yet collected), and pages held for it. */
export interface Heap {
  used: number;
  total: number;
}

export interface MemorySample {
  rss: number;
  anonymous: number;
  fileBacked: number;
  host: Heap;
  worker: Heap;
}

/** Bytes of one `Name:  123 kB` line of /proc/self/status. */
function statusField(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** The worker's heap, or nothing while it restarts (its heap is not there to ask). */
async function workerHeap(client: () => Promise<StoreClient>): Promise<Heap> {
  try {
    const { used_heap_size: used, total_heap_size: total } = await (await client()).workerHeapStatistics();
    return { used, total };
  } catch {
    return { used: 0, total: 0 };
  }
}

export async function sample(client: () => Promise<StoreClient>): Promise<MemorySample> {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  return {
    rss: process.memoryUsage.rss(),
    anonymous: statusField(status, 'RssAnon'),
    fileBacked: statusField(status, 'RssFile') + statusField(status, 'RssShmem'),
    host: { used: process.memoryUsage().heapUsed, total: process.memoryUsage().heapTotal },
    worker: await workerHeap(client),
  };
}

/** The process's mappings with their resident bytes, from /proc/self/smaps. */
function mappings(): { header: string; size: number; resident: number }[] {
  const found: { header: string; size: number; resident: number }[] = [];
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    // A mapping's header starts with its address range; its fields follow, one per line.
    const range = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (range) found.push({ header: line, size: parseInt(range[2]!, 16) - parseInt(range[1]!, 16), resident: 0 });
    else if (line.startsWith('Rss:') && found.length > 0)
      found.at(-1)!.resident = Number(/(\d+)/.exec(line)![1]) * 1024;
  }
  return found;
}

/**
 * Where the resident memory is, by kind of mapping: the store file's map,
 * V8's heap pages (256 KB mappings of their own, the host's and the
 * worker's together), malloc's arenas (SQLite's page cache and the rest of
 * native memory: one arena per thread that allocated, kept after the thread
 * ends), and all other.
 */
export function byMapping(): string {
  let store = 0;
  let v8 = 0;
  let arenas = 0;
  let other = 0;
  for (const { header, size, resident } of mappings()) {
    const anonymous = /\s0\s*$/.test(header) || header.endsWith('[heap]');
    if (header.includes('memory.db')) store += resident;
    else if (anonymous && size === 256 * 1024) v8 += resident;
    else if (anonymous && (header.endsWith('[heap]') || size >= 1024 * 1024)) arenas += resident;
    else other += resident;
  }
  const mb = (bytes: number) => (bytes / MB).toFixed(0);
  return `store file mapped ${mb(store)}, V8 heap pages ${mb(v8)}, malloc arenas and other large anonymous maps ${mb(arenas)}, the rest ${mb(other)} MB`;
}

export function describe(sampled: MemorySample): string {
  const mb = (bytes: number) => (bytes / MB).toFixed(0);
  return (
    `${mb(sampled.rss)} MB (anonymous ${mb(sampled.anonymous)}, file-backed ${mb(sampled.fileBacked)}; ` +
    `JavaScript heaps, used of held: host ${mb(sampled.host.used)} of ${mb(sampled.host.total)}, ` +
    `store worker ${mb(sampled.worker.used)} of ${mb(sampled.worker.total)})`
  );
}

/**
 * Samples while `work` runs: resident memory every 50 ms (cheap), the
 * worker's heap every 250 ms (a message to its thread). Returns the sample
 * at the resident peak, with the worker heap's own peak.
 */
export async function peakDuring<T>(
  client: () => Promise<StoreClient>,
  work: () => Promise<T>,
): Promise<{ value: T; peak: MemorySample; workerHeapPeak: Heap }> {
  let peak = await sample(client);
  const workerHeapPeak = { ...peak.worker };
  const resident = setInterval(() => {
    if (process.memoryUsage.rss() <= peak.rss) return;
    void sample(client).then((sampled) => {
      if (sampled.rss > peak.rss) peak = sampled;
    });
  }, 50);
  const heap = setInterval(() => {
    void workerHeap(client).then(({ used, total }) => {
      workerHeapPeak.used = Math.max(workerHeapPeak.used, used);
      workerHeapPeak.total = Math.max(workerHeapPeak.total, total);
    });
  }, 250);
  try {
    const value = await work();
    return { value, peak, workerHeapPeak };
  } finally {
    clearInterval(resident);
    clearInterval(heap);
  }
}
