// Deterministic synthetic workspace memories for the benchmarks: developer
// sentences built from a fixed vocabulary with a seeded generator, so every
// run measures the same data.

const SUBJECTS = [
  'The build',
  'Our API gateway',
  'The login page',
  'CI',
  'The database migration',
  'The cache layer',
  'The payment service',
  'Webpack',
  'The test suite',
  'The deploy script',
  'The search index',
  'Docker compose',
  'The TypeScript config',
  'The auth middleware',
  'Kubernetes',
  'The logging pipeline',
  'The React app',
  'Postgres',
];
const VERBS = [
  'fails when',
  'needs',
  'was switched to',
  'must not use',
  'is slow because of',
  'depends on',
  'should be run with',
  'breaks after',
  'now supports',
  'was rewritten to use',
  'times out without',
  'prefers',
];
const OBJECTS = [
  'strict mode',
  'a warm cache',
  'the staging cluster',
  'Node 22',
  'connection pooling',
  'feature flags',
  'the retry policy',
  'an index on user_id',
  'ESM imports',
  'the new logger',
  'rate limiting',
  'pnpm workspaces',
  'incremental builds',
  'the read replica',
  'OpenTelemetry tracing',
  'the monorepo layout',
  'JWT rotation',
  'WAL mode',
];
const TAILS = [
  '',
  ' on Mondays',
  ' in production',
  ' since the last release',
  ' for large payloads',
  ' according to the team',
  ' after the upgrade',
  ' when memory is low',
];
const TAGS = [
  'build',
  'api',
  'frontend',
  'ci',
  'database',
  'cache',
  'payments',
  'testing',
  'deploy',
  'search',
  'infra',
  'typescript',
  'auth',
  'k8s',
  'logging',
  'react',
  'postgres',
  'performance',
  'security',
  'decision',
];
const CATEGORIES = ['fact', 'decision', 'issue', 'task', 'correction'];

/** mulberry32: a tiny seeded PRNG. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (rng, list) => list[Math.floor(rng() * list.length)];

export function sentence(rng) {
  return `${pick(rng, SUBJECTS)} ${pick(rng, VERBS)} ${pick(rng, OBJECTS)}${pick(rng, TAILS)}.`;
}

/** A memory input of two or three sentences, two or three tags. */
export function memoryInput(rng, i) {
  const parts = [sentence(rng), sentence(rng)];
  if (rng() < 0.5) parts.push(sentence(rng));
  const tags = [...new Set([pick(rng, TAGS), pick(rng, TAGS), pick(rng, TAGS)])].slice(0, 2 + Math.floor(rng() * 2));
  return { content: `${parts.join(' ')} (#${i})`, tags, category: pick(rng, CATEGORIES) };
}
