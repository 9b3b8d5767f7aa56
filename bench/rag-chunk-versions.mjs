// How many chunk versions an edit of a document makes (issue #17: inserting
// one line at the top of a file gave all 58 of its chunks a new version).
// Syncs the 100 Markdown files under node_modules with the most chunks, then
// makes one kind of edit to every one of them and syncs again, counting the
// chunks written (a new version each), added and removed, and the time.
// Run: node bench/rag-chunk-versions.mjs (BENCH_CORE=<path to core.js> to compare builds)
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const { Memory } = require(process.env.BENCH_CORE ?? path.join(here, '..', 'dist', 'core.js'));
const ROOT = path.join(here, '..', 'node_modules');
const FILES = 100;

function collect(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) collect(full, out);
    else if (entry.isFile() && /\.md$/i.test(entry.name)) out.push(full);
  }
  return out;
}

// The biggest distinct files: the ones with many chunks, where the question matters.
const seen = new Set();
const sources = collect(ROOT, [])
  .map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }))
  .filter(({ text }) => !seen.has(text) && seen.add(text))
  .sort((a, b) => b.text.length - a.text.length)
  .slice(0, FILES);

/** Each edit, applied to a file's text. */
const EDITS = {
  appendSection: (text) => `${text}\n\n## Added by the benchmark\n\nOne more paragraph.\n`,
  insertSectionInMiddle: (text) => {
    const lines = text.split('\n');
    const at = lines.findIndex((line, i) => i >= lines.length / 2 && /^#{1,6} /.test(line));
    const where = at < 0 ? Math.floor(lines.length / 2) : at;
    return [
      ...lines.slice(0, where),
      '## Inserted by the benchmark',
      '',
      'A new section.',
      '',
      ...lines.slice(where),
    ].join('\n');
  },
  insertLineAtTop: (text) => `Inserted first line.\n${text}`,
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-rag-versions-'));
const results = [];
try {
  for (const [name, edit] of Object.entries(EDITS)) {
    const docs = path.join(work, name, 'docs');
    sources.forEach(({ text }, i) => {
      fs.mkdirSync(docs, { recursive: true });
      fs.writeFileSync(path.join(docs, `doc-${i}.md`), text);
    });
    const memory = await Memory.open({ dir: path.join(work, name, 'store') });
    try {
      const first = await memory.rag.sync(docs, 'docs');
      sources.forEach(({ text }, i) => fs.writeFileSync(path.join(docs, `doc-${i}.md`), edit(text)));
      const start = performance.now();
      const again = await memory.rag.sync(docs, 'docs');
      results.push({
        edit: name,
        files: again.updated.length,
        chunksBefore: first.chunks.added,
        newVersions: again.chunks.updated,
        added: again.chunks.added,
        removed: again.chunks.removed,
        resyncMs: +(performance.now() - start).toFixed(0),
      });
    } finally {
      await memory.close();
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`Workspace Memory chunk versions per edit — Node ${process.version}, ${FILES} files`);
console.log(
  '\n| edit | files | chunks | new versions | added | removed | re-sync ms |\n|---|---:|---:|---:|---:|---:|---:|',
);
for (const r of results) {
  console.log(
    `| ${r.edit} | ${r.files} | ${r.chunksBefore} | ${r.newVersions} | ${r.added} | ${r.removed} | ${r.resyncMs} |`,
  );
}
