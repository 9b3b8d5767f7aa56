import * as fs from 'node:fs';
import * as path from 'node:path';

// Timing helpers shared by the benchmark scripts.

/** The p-th percentile (0..100) of a list of numbers. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `fn(i)` `count` times, one after another; returns each run's milliseconds. */
export async function timeEach(count, fn) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

/** Every Markdown file under `dir`, recursively (the READMEs of node_modules, say). */
export function markdownFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) markdownFiles(full, out);
    else if (entry.isFile() && /\.(md|markdown)$/i.test(entry.name)) out.push(full);
  }
  return out;
}
