// False positives of the secret scanner (issue: Trust, "Secret guard"). Runs
// scanSecrets over every README*.md under node_modules, chunked as document
// sync chunks them (chunkDocument with the default options), and prints how
// many files and chunks were flagged, then each finding with its kind and
// its line, the secret masked (its first four characters and its length),
// so every one can be read and judged. Target: under 0.5% of the files, and
// none of the flagged ones plain prose.
// Files with the same content (one package installed in several trees) count once.
// Run: node bench/secrets-false-positives.mjs (no build needed: tsx loads the modules from src/).
// BENCH_ROOTS=<folder>,<folder>... scans the READMEs under those folders instead of the
// project's node_modules and, where they are installed, those of code-server
// (.vscode-test) and Stryker (.cache).
import * as fs from 'node:fs';
import * as path from 'node:path';

import { tsImport } from 'tsx/esm/api';

const { scanSecrets } = await tsImport('../src/core/secrets/guard.ts', import.meta.url);
const { chunkDocument } = await tsImport('../src/core/rag/chunkers.ts', import.meta.url);

const PROJECT = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const ROOTS = (
  process.env.BENCH_ROOTS?.split(',') ??
  ['node_modules', '.vscode-test/code-server/node_modules', '.cache/stryker/node_modules'].map((folder) =>
    path.join(PROJECT, folder),
  )
)
  .map((folder) => path.resolve(folder))
  .filter((folder) => fs.existsSync(folder));

function collect(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) collect(full, out);
    else if (entry.isFile() && /^readme.*\.md$/i.test(entry.name)) out.push(full);
  }
  return out;
}

/** The finding's line, the secret replaced by its first four characters, an ellipsis and its length. */
function maskedLine(text, finding) {
  const lineStart = text.lastIndexOf('\n', finding.start - 1) + 1;
  const lineEnd = text.indexOf('\n', finding.end);
  const secret = text.slice(finding.start, finding.end);
  const masked = `«${secret.slice(0, 4)}…(${secret.length})»`;
  const line =
    text.slice(lineStart, finding.start) + masked + text.slice(finding.end, lineEnd < 0 ? undefined : lineEnd);
  return line.replace(/\s+/g, ' ').trim().slice(0, 200);
}

const seen = new Set();
const files = ROOTS.flatMap((root) => collect(root, []).sort())
  .map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }))
  .filter(({ text }) => !seen.has(text) && seen.add(text));
let chunks = 0;
let bytes = 0;
let scanMs = 0;
const flagged = [];
for (const { file, text } of files) {
  bytes += Buffer.byteLength(text);
  for (const chunk of chunkDocument(text, file).chunks) {
    chunks++;
    const start = performance.now();
    const findings = scanSecrets(chunk.text);
    scanMs += performance.now() - start;
    for (const finding of findings) {
      flagged.push({
        file: path.relative(PROJECT, file),
        line: chunk.startLine + finding.line - 1,
        kind: finding.kind,
        shown: maskedLine(chunk.text, finding),
        chunk: chunk.index,
      });
    }
  }
}

const flaggedFiles = new Set(flagged.map((item) => item.file));
const flaggedChunks = new Set(flagged.map((item) => `${item.file}#${item.chunk}`));
const percent = (part, whole) => `${((100 * part) / whole).toFixed(2)}%`;
const byKind = new Map();
for (const item of flagged) byKind.set(item.kind, (byKind.get(item.kind) ?? 0) + 1);

console.log(
  `README files:   ${files.length} distinct (${(bytes / 1024 / 1024).toFixed(1)} MB) under ${ROOTS.join(', ')}`,
);
console.log(`chunks:         ${chunks}`);
console.log(`flagged files:  ${flaggedFiles.size} (${percent(flaggedFiles.size, files.length)})`);
console.log(`flagged chunks: ${flaggedChunks.size} (${percent(flaggedChunks.size, chunks)})`);
console.log(
  `findings:       ${flagged.length} (${[...byKind].map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none'})`,
);
console.log(`scan time:      ${scanMs.toFixed(0)} ms (${((scanMs * 1000) / chunks).toFixed(1)} µs per chunk)`);
if (flagged.length > 0) console.log('\nfile:line  kind  the line, secret masked');
for (const item of flagged) console.log(`${item.file}:${item.line}  ${item.kind}  ${item.shown}`);
