// What the secret guard costs per text (issue: Trust, "Secret guard"), to
// judge its share of a save. For each set of texts: the mean cost of
// scanSecrets, of guardFields on a memory's body ({content, tags, category},
// what the store will guard on every write) under 'redact', and, as a floor,
// of one plain case-insensitive regular expression test over the same text.
// Sets: the memories bench/store.mjs saves (synthetic.mjs), technical notes
// with paths, commands, identifiers, hashes and URLs (the texts that get past
// the scanner's prefilter), paragraphs of the READMEs under node_modules, and
// the technical notes again with a fake credential in each (the worst case).
// Rounds are interleaved so load from other processes hits every figure
// alike; the median round is printed.
// Run: node bench/secrets-throughput.mjs (no build needed: tsx loads the modules from src/).
// Options (environment): BENCH_TEXTS texts per set (5000), BENCH_ROUNDS (7).
import * as fs from 'node:fs';
import * as path from 'node:path';

import { tsImport } from 'tsx/esm/api';

import { memoryInput, random } from './synthetic.mjs';

const { guardFields, scanSecrets } = await tsImport('../src/core/secrets/guard.ts', import.meta.url);

const TEXTS = Number(process.env.BENCH_TEXTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROOT = path.join(path.dirname(new URL(import.meta.url).pathname), '..');

const pick = (rng, list) => list[Math.floor(rng() * list.length)];
const hex = (rng, length) => Array.from({ length }, () => '0123456789abcdef'[Math.floor(rng() * 16)]).join('');
const alnum = (rng, length) =>
  Array.from(
    { length },
    () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(rng() * 62)],
  ).join('');

/** Notes as developers write them to a memory: paths, commands, identifiers, versions, hashes, URLs. */
const NOTES = [
  () => `Run \`npm run build\` before \`node bench/store.mjs\`; the bundle in dist/core.js is what it loads.`,
  (rng) => `The deploy failed at commit ${hex(rng, 40)}; reverted in ${hex(rng, 7)} after the smoke test.`,
  () => `Config lives in src/extension/docsync/SyncScheduler.ts and reads workspaceMemory.docSync.debounceMs.`,
  () => `Request ${crypto.randomUUID()} timed out against https://api.internal.example.com/v2/orders?limit=50.`,
  () => `Use DATABASE_URL from the environment; never commit .env files. See docs/deploy.md#secrets.`,
  (rng) => `Image digest sha256:${hex(rng, 64)} is the last good build of the payment service.`,
  () =>
    `Upgraded TypeScript to 5.9.3 and @types/node to 22.20.7; fix strictPropertyInitialization errors in OrderRepositoryImpl.`,
  () => `git log --oneline origin/main..HEAD shows the three commits that touch src/core/store/entity-store.ts.`,
  () => `The flaky test is test/unit/searchUnderLoad.test.ts: it waits 250 ms for the worker's first answer.`,
  () => `Set NODE_OPTIONS=--max-old-space-size=4096 when running the migration on the staging cluster.`,
  () => `Alice prefers small PRs; label them needs-review and ping #team-platform on Slack.`,
  (rng) => `Cache keys look like user:${Math.floor(rng() * 1e6)}:profile:v3 and expire after 3600 s.`,
];

/** One fake credential of a kind the scanner knows, built from parts. */
const SECRETS = [
  (rng) => `AWS_ACCESS_KEY_ID=${'AKIA'}${alnum(rng, 16).toUpperCase()}`,
  (rng) => `token ${'ghp_'}${alnum(rng, 36)}`,
  (rng) => `password = "${alnum(rng, 6)}#${alnum(rng, 6)}"`,
  (rng) => `SLACK_BOT_TOKEN=${'xoxb-'}${Math.floor(rng() * 1e12)}-${Math.floor(rng() * 1e12)}-${alnum(rng, 24)}`,
  (rng) => `db: postgres://app:${alnum(rng, 16)}@db.internal:5432/orders`,
];

function technical(count, seed, withSecret) {
  const rng = random(seed);
  return Array.from({ length: count }, () => {
    const parts = [pick(rng, NOTES)(rng), pick(rng, NOTES)(rng)];
    if (withSecret) parts.splice(1, 0, pick(rng, SECRETS)(rng));
    return parts.join(' ');
  });
}

function readmeParagraphs(count) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= count) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/^readme.*\.md$/i.test(entry.name)) {
        for (const paragraph of fs.readFileSync(full, 'utf8').split(/\n\s*\n/)) {
          if (paragraph.trim().length >= 40 && out.length < count) out.push(paragraph.slice(0, 600));
        }
      }
    }
  };
  walk(path.join(ROOT, 'node_modules'));
  return out;
}

const rng = random(12);
const storeMemories = Array.from({ length: TEXTS }, (_, i) => memoryInput(rng, i));
const sets = [
  { label: 'store.mjs memories', bodies: storeMemories },
  { label: 'technical notes', texts: technical(TEXTS, 7, false) },
  { label: 'README paragraphs', texts: readmeParagraphs(TEXTS) },
  { label: 'notes with a secret', texts: technical(TEXTS, 9, true) },
].map((set) => {
  const bodies =
    set.bodies ?? set.texts.map((content, i) => ({ content, tags: ['deploy', `t${i % 7}`], category: 'fact' }));
  return { label: set.label, bodies, texts: bodies.map((body) => body.content) };
});

const FLOOR = /password|secret|token|api[_-]?key|akia/i;
const measures = {
  floor: (set) => {
    let hits = 0;
    for (const text of set.texts) if (FLOOR.test(text)) hits++;
    return hits;
  },
  scanSecrets: (set) => {
    let found = 0;
    for (const text of set.texts) found += scanSecrets(text).length;
    return found;
  },
  guardFields: (set) => {
    let found = 0;
    for (const body of set.bodies) found += guardFields(body, 'redact').findings.length;
    return found;
  },
};

// Warm-up: the rules load on first use, and the JIT settles.
for (const set of sets) for (const measure of Object.values(measures)) measure(set);

const times = new Map();
for (let round = 0; round < ROUNDS; round++) {
  for (const set of sets) {
    for (const [name, measure] of Object.entries(measures)) {
      const start = performance.now();
      measure(set);
      const perText = ((performance.now() - start) * 1000) / set.texts.length;
      const key = `${set.label}\0${name}`;
      times.set(key, [...(times.get(key) ?? []), perText]);
    }
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`${TEXTS} texts per set, median of ${ROUNDS} rounds, µs per text\n`);
console.log('set                    mean chars  flagged   floor regex  scanSecrets  guardFields');
for (const set of sets) {
  const chars = set.texts.reduce((sum, text) => sum + text.length, 0) / set.texts.length;
  const flagged = set.texts.filter((text) => scanSecrets(text).length > 0).length;
  const cell = (name) =>
    median(times.get(`${set.label}\0${name}`))
      .toFixed(2)
      .padStart(11);
  console.log(
    `${set.label.padEnd(22)} ${chars.toFixed(0).padStart(10)}  ${`${((100 * flagged) / set.texts.length).toFixed(1)}%`.padStart(7)}  ${cell('floor')}  ${cell('scanSecrets')}  ${cell('guardFields')}`,
  );
}
