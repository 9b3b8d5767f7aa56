// False positives of the instruction flag (issue: Trust). Runs
// looksLikeInstruction over text nobody wrote to steer a model: every
// paragraph of the Markdown and README files under node_modules and of this
// repository's own documents, and the memory contents the tests save. Prints
// how many were flagged and lists each with the phrase that matched, so a
// change to the patterns can be judged by reading them.
// Run: node bench/instruction-flags.mjs (no build needed: tsx loads the module from src/).
import * as fs from 'node:fs';
import * as path from 'node:path';

import { tsImport } from 'tsx/esm/api';

const { looksLikeInstruction } = await tsImport('../src/core/trust/instructions.ts', import.meta.url);

const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..');

function collect(dir, accept, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) collect(full, accept, out);
    else if (entry.isFile() && accept(entry.name)) out.push(full);
  }
  return out;
}

const isDocument = (name) => /\.(md|markdown|txt|rst)$/i.test(name) || /^readme/i.test(name);
const documents = [
  ...collect(path.join(ROOT, 'node_modules'), isDocument, []),
  ...collect(path.join(ROOT, 'docs'), isDocument, []),
  ...collect(path.join(ROOT, 'samples'), isDocument, []),
  path.join(ROOT, 'README.md'),
];
const paragraphs = documents.flatMap((file) =>
  fs
    .readFileSync(file, 'utf8')
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph.trim())
    .map((text) => ({ where: path.relative(ROOT, file), text })),
);

// What the tests store: the string after every `content:` in test/unit.
const memories = collect(path.join(ROOT, 'test', 'unit'), (name) => name.endsWith('.ts'), [])
  .filter((file) => !file.endsWith('trust-instructions.test.ts'))
  .flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(/content:\s*(['"`])((?:\\.|(?!\1).)*)\1/g)].map((match) => ({
      where: path.relative(ROOT, file),
      text: match[2],
    })),
  );

const start = performance.now();
const flag = (items) =>
  items.flatMap((item) => {
    const phrase = looksLikeInstruction(item.text);
    return phrase ? [{ ...item, phrase }] : [];
  });
const flaggedParagraphs = flag(paragraphs);
const flaggedMemories = flag(memories);
const ms = performance.now() - start;
const flaggedFiles = new Set(flaggedParagraphs.map((item) => item.where));
const percent = (part, whole) => `${((100 * part) / whole).toFixed(3)}%`;
const megabytes = paragraphs.reduce((sum, paragraph) => sum + paragraph.text.length, 0) / 1e6;

console.log(
  `${documents.length} documents, ${paragraphs.length} paragraphs (${megabytes.toFixed(1)} MB), ${memories.length} test memories: checked in ${ms.toFixed(0)} ms`,
);
console.log(
  `documents: ${flaggedParagraphs.length} paragraphs flagged (${percent(flaggedParagraphs.length, paragraphs.length)}), in ${flaggedFiles.size} documents (${percent(flaggedFiles.size, documents.length)})`,
);
// Some tests store injections on purpose (recall and operations framing): those are meant to be flagged.
console.log(`test memories: ${flaggedMemories.length} flagged`);
for (const item of [...flaggedParagraphs, ...flaggedMemories]) {
  console.log(`\n${item.where}: "${item.phrase}"\n  ${item.text.trim().slice(0, 300).replace(/\n/g, '\n  ')}`);
}
