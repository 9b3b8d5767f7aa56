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

// A larger, Zipf-distributed vocabulary for search benchmarks: real stores
// have thousands of distinct terms, a few very common and most rare, and
// query cost depends on exactly that.
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ter',
  'on',
  'ra',
  'vel',
  'dis',
  'pro',
  'gen',
  'cor',
  'tan',
  'sel',
  'bri',
  'mun',
  'fax',
  'zo',
  'plex',
  'qua',
  'nit',
  'hor',
  'sul',
  'dex',
  'vor',
];

export function vocabulary(rng, size = 6000) {
  const words = new Set();
  while (words.size < size) {
    const n = 2 + Math.floor(rng() * 2);
    let word = '';
    for (let i = 0; i < n; i++) word += pick(rng, SYLLABLES);
    words.add(word);
  }
  return [...words];
}

/** Picks index i with probability proportional to 1 / (i + 1)^s. */
export function zipf(rng, size, s = 1.07) {
  const weights = Array.from({ length: size }, (_, i) => 1 / (i + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w / total));
  return () => {
    const r = rng();
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const FRAMES = [
  (a, b, c) => `The ${a} service times out when ${b} retries ${c} requests.`,
  (a, b, c) => `We decided to move ${a} to ${b} because ${c} was too slow.`,
  (a, b, c) => `Run the ${a} migration before deploying ${b}; otherwise ${c} breaks.`,
  (a, b, c) => `${a} reads its config from ${b}.yaml, not from the ${c} environment.`,
  (a, b, c) => `Alice owns ${a}; ask her before changing ${b} or ${c}.`,
  (a, b, c) => `The ${a} cache is invalidated by ${b} events from ${c}.`,
  (a, b, c) => `Tests for ${a} need a local ${b} and the ${c} fixtures.`,
  (a, b, c) => `Use ${a} instead of ${b} for new ${c} code.`,
];

const QUESTIONS = [
  (a, b) => `why does the ${a} service time out with ${b}?`,
  (a, b) => `how do we configure ${a} for ${b}`,
  (a, b) => `what did we decide about ${a} and ${b}`,
  (a) => `who owns ${a}?`,
  (a, b) => `which ${a} tests need ${b} fixtures`,
  (a, b) => `where does ${a} read its ${b} config from`,
];

export function realisticCorpus(seed) {
  const rng = random(seed);
  const words = vocabulary(rng);
  const nextWord = zipf(rng, words.length);
  const word = () => words[nextWord()];
  return {
    memory(i) {
      const parts = [pick(rng, FRAMES)(word(), word(), word())];
      if (rng() < 0.6) parts.push(pick(rng, FRAMES)(word(), word(), word()));
      const tags = [...new Set([word(), word()])].map((w) => w.slice(0, 12));
      return { content: `${parts.join(' ')} (#${i})`, tags, category: pick(rng, CATEGORIES) };
    },
    question() {
      return pick(rng, QUESTIONS)(word(), word());
    },
  };
}
