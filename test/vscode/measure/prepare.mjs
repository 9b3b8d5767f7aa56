// Prepares the `measure` run's workspace before VS Code starts: a 10k and a
// 100k memory store under `.bench/` (a hidden folder, so doc sync leaves it
// alone) and ~2,000 real Markdown files (the READMEs under node_modules) for
// a full doc sync. The run's settings point the extension at the 10k store.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { memoryInput, random } from '../../../bench/synthetic.mjs';

const require = createRequire(import.meta.url);
export const BENCH_AGENT = 'default';
export const BENCH_USER = 'bench';

async function fillStore(repoRoot, dir, size, log) {
  const { Memory } = require(path.join(repoRoot, 'dist/core.js'));
  const memory = await Memory.open({ dir, author: 'bench' });
  const rng = random(42);
  const started = performance.now();
  for (let offset = 0; offset < size; offset += 5000) {
    const items = Array.from({ length: Math.min(5000, size - offset) }, (_, i) => ({
      agentId: BENCH_AGENT,
      userId: BENCH_USER,
      input: memoryInput(rng, offset + i),
    }));
    await memory.memories.saveMany(items);
  }
  await memory.close();
  log(`[measure] prepared a store of ${size} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function copyDocs(repoRoot, target, wanted) {
  const root = path.join(repoRoot, 'node_modules');
  const sources = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.(md|markdown)$/i.test(entry.name)) sources.push(full);
    }
  };
  walk(root);
  let copied = 0;
  for (let copy = 1; copied < wanted; copy++) {
    for (const file of sources) {
      if (copied >= wanted) break;
      // The loader skips folders named node_modules: rename them in the copy.
      const relative = path.relative(root, file).replace(/node_modules/g, 'deps');
      const destination = path.join(target, `copy-${copy}`, relative);
      fs.mkdirSync(path.dirname(destination), { recursive: true });
      fs.copyFileSync(file, destination);
      copied++;
    }
  }
  return copied;
}

/** Called by run.mjs with the copied workspace folder; returns environment for the extension host. */
export async function prepareMeasure({ repoRoot, folder, log }) {
  await fillStore(repoRoot, path.join(folder, '.bench', 'store-10k'), 10_000, log);
  await fillStore(repoRoot, path.join(folder, '.bench', 'store-100k'), 100_000, log);
  const docs = copyDocs(repoRoot, path.join(folder, 'corpus'), Number(process.env.BENCH_VSCODE_DOCS ?? 2000));
  log(`[measure] copied ${docs} Markdown files into the workspace`);
  return { WORKSPACE_MEMORY_MEASURE_BIG_STORE: path.join(folder, '.bench', 'store-100k') };
}
