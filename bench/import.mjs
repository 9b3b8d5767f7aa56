// Import from other agent tools (issue #15): a generated 1,000-rule CLAUDE.md
// imported into a fresh store (target: at most 2 s), then imported again
// (nothing to write), then with every rule changed, then as a dry run.
// Run: node esbuild.js && node bench/import.mjs (the built library, dist/core.js).
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const { importFrom, Memory } = require('../dist/core.js');

const RULES = Number(process.env.BENCH_RULES ?? 1000);
const TARGET_MS = 2000;
const TOPICS = ['build', 'tests', 'style', 'errors', 'logging', 'security', 'api', 'database', 'deploy', 'review'];

/** A CLAUDE.md of `count` rules, each a section of a heading, a sentence and a short list, as people write them. */
function rulesFile(count, variant) {
  const sections = ['# Project rules', '', 'Conventions for everyone working on this repository.', ''];
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length];
    sections.push(
      `## Rule ${i + 1}: ${topic}`,
      '',
      `When changing ${topic} code (area ${i}), follow the ${variant} convention and keep the change small.`,
      '',
      `- Run \`pnpm ${topic}:check\` before pushing.`,
      `- Ask the ${topic} owners for review when unsure.`,
      '',
    );
  }
  return sections.join('\n');
}

async function time(label, work) {
  const start = performance.now();
  const report = await work();
  const ms = performance.now() - start;
  return { label, ms: Math.round(ms), created: report.created, updated: report.updated, unchanged: report.unchanged };
}

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-import-ws-'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-import-store-'));
const memory = await Memory.open({ dir });
try {
  const file = path.join(workspace, 'CLAUDE.md');
  fs.writeFileSync(file, rulesFile(RULES, 'usual'));
  const options = { format: 'claude', path: 'CLAUDE.md', workspaceRoot: workspace, agentId: 'bench' };
  console.log(
    `Workspace Memory import benchmark — Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${RULES} rules (${Math.round(fs.statSync(file).size / 1024)} KB)`,
  );
  const rows = [await time('first import', () => importFrom(memory, options))];
  rows.push(await time('again, unchanged', () => importFrom(memory, options)));
  fs.writeFileSync(file, rulesFile(RULES, 'revised'));
  rows.push(await time('dry run, all changed', () => importFrom(memory, { ...options, dryRun: true })));
  rows.push(await time('all changed', () => importFrom(memory, options)));
  for (const row of rows) console.log(JSON.stringify(row));
  const first = rows[0].ms;
  console.log(
    `\nfirst import of ${RULES} rules: ${first} ms (target ≤ ${TARGET_MS} ms: ${first <= TARGET_MS ? 'met' : 'MISSED'})`,
  );
  if (rows[0].created !== RULES + 1) throw new Error(`expected ${RULES + 1} items, got ${rows[0].created}`);
} finally {
  await memory.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(workspace, { recursive: true, force: true });
}
