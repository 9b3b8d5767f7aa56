// Query-side expansion of developer abbreviations and synonyms. Documents are
// indexed as written; a query for "db" also looks for "database" and one for
// "database" also looks for "db", so either spelling finds the other.
import { normalize, splitWords, tokenize } from './tokenizer';

/** A word, abbreviation or phrase mapped to its equivalents (each possibly several words). */
export type SynonymMap = Record<string, string[]>;

/**
 * Curated developer vocabulary. Every entry also works backwards, so there is
 * no need to list `typescript: ['ts']` next to `ts: ['typescript']`. Plurals
 * need no entries of their own: words are compared by their terms, which are
 * stemmed ("repos" finds "repo"). `api` is deliberately absent: expanding it to
 * "application programming interface" would match any text about applications
 * or programs, for a spelling that nobody searches for.
 */
export const DEFAULT_SYNONYMS: SynonymMap = {
  ts: ['typescript'],
  js: ['javascript'],
  py: ['python'],
  md: ['markdown'],
  k8s: ['kubernetes'],
  db: ['database'],
  repo: ['repository'],
  config: ['configuration'],
  cfg: ['configuration', 'config'],
  conf: ['configuration', 'config'],
  env: ['environment'],
  'env var': ['environment variable'],
  auth: ['authentication', 'authorization'],
  authn: ['authentication'],
  authz: ['authorization'],
  dep: ['dependency'],
  pr: ['pull request'],
  mr: ['merge request'],
  ci: ['continuous integration'],
  cd: ['continuous deployment', 'continuous delivery'],
  impl: ['implementation'],
  dir: ['directory'],
  msg: ['message'],
  err: ['error'],
  fn: ['function'],
  func: ['function'],
  param: ['parameter'],
  arg: ['argument'],
  var: ['variable'],
  str: ['string'],
  int: ['integer'],
  bool: ['boolean'],
  obj: ['object'],
  attr: ['attribute'],
  prop: ['property'],
  num: ['number'],
  idx: ['index'],
  ctx: ['context'],
  req: ['request'],
  resp: ['response'],
  lib: ['library'],
  pkg: ['package'],
  src: ['source'],
  tmp: ['temporary'],
  ver: ['version'],
  id: ['identifier'],
  ui: ['user interface'],
  ux: ['user experience'],
  gui: ['graphical user interface'],
  cli: ['command line interface', 'command line'],
  ide: ['integrated development environment'],
  sdk: ['software development kit'],
  perf: ['performance'],
  doc: ['documentation'],
  e2e: ['end to end', 'end-to-end'],
  os: ['operating system'],
  vm: ['virtual machine'],
  npm: ['node package manager'],
  gh: ['github'],
  vscode: ['visual studio code'],
  mcp: ['model context protocol'],
  infra: ['infrastructure'],
  prod: ['production'],
  dev: ['development'],
  init: ['initialize', 'initialization'],
  async: ['asynchronous'],
  sync: ['synchronous', 'synchronize'],
  regex: ['regular expression'],
  regexp: ['regular expression', 'regex'],
  llm: ['large language model'],
  ai: ['artificial intelligence'],
  ml: ['machine learning'],
  i18n: ['internationalization'],
  l10n: ['localization'],
  a11y: ['accessibility'],
  qa: ['quality assurance'],
  wip: ['work in progress'],
  admin: ['administrator'],
  mgmt: ['management'],
};

/**
 * Spellings of one thing, each finding every other: a query for "sign in"
 * also finds "login", "logon", "signin" and "sign-in". Unlike the map above,
 * which links a word to its long forms only, every spelling here is linked to
 * every other (the map cannot: "auth" means authentication or authorization,
 * which must not find each other).
 *
 * `words` are one word each, written whole or hyphenated; as equivalents they
 * add their whole term only ("sign_in", not "sign"). `phrases` are loose words
 * whose terms alone mean other things ("log" is any log file, "sign" a
 * signature): a query holding the phrase finds every spelling, but they are
 * never added to another spelling's query, so "login" does not look for logs.
 * The extra synonyms of the settings add to these; they do not take them away.
 */
export const DEFAULT_SPELLINGS: readonly { words: readonly string[]; phrases: readonly string[] }[] = [
  { words: ['login', 'logon', 'signin', 'sign-in', 'log-in'], phrases: ['log in', 'log on', 'sign in'] },
  { words: ['logout', 'logoff', 'signout', 'sign-out', 'log-out'], phrases: ['log out', 'log off', 'sign out'] },
];

// Separates the per-word keys of a phrase; tokenizer terms never contain it.
const WORD_SEPARATOR = '|';

/**
 * Expands queries with a synonym map, in both directions. Query words are
 * matched against the map by their tokenizer terms (normalized, stemmed), so
 * "Databases" matches "database"; a phrase in the map ("pull request") is
 * recognized by greedy longest match.
 */
export class QueryExpander {
  /** Key of a word or phrase (its words' terms) -> terms of all its equivalents. */
  private readonly equivalents = new Map<string, string[]>();
  private readonly longestPhrase: number;

  /**
   * @param extra Entries added to the defaults; an entry whose key is already
   *   there replaces the default one (an empty list removes it).
   */
  constructor(extra?: SynonymMap) {
    // Keyed by normalized spelling, so an extra "PR" replaces the default
    // "pr". The key as written is kept for its terms as an equivalent, where
    // case splits identifiers ("getUser" gives "user").
    const entries = new Map<string, { key: string; equivalents: string[] }>();
    for (const map of [DEFAULT_SYNONYMS, extra ?? {}]) {
      for (const [key, values] of Object.entries(map)) {
        // The extra map usually comes from user settings: tolerate junk in it.
        const equivalents = Array.isArray(values) ? values.filter((value) => typeof value === 'string') : [];
        entries.set(splitWords(normalize(key)).join(' '), { key, equivalents });
      }
    }
    let longest = 1;
    for (const { key, equivalents } of entries.values()) {
      for (const equivalent of equivalents) {
        longest = Math.max(longest, this.link(key, equivalent), this.link(equivalent, key));
      }
    }
    for (const { words, phrases } of DEFAULT_SPELLINGS) {
      for (const from of [...words, ...phrases]) {
        // A phrase also looks for the other phrases' loose words; a word looks for whole words only.
        const targets = phrases.includes(from) ? [...words, ...phrases] : words;
        for (const to of targets) {
          if (to !== from) longest = Math.max(longest, this.link(from, to, words.includes(to)));
        }
      }
    }
    this.longestPhrase = longest;
  }

  /**
   * One group per query word (or recognized phrase): the word's own terms
   * first, then the terms of its equivalents, without duplicates. Stopwords
   * are dropped, unless the query has nothing else. Never throws.
   */
  expand(query: string): string[][] {
    const words = splitWords(query).map((word) => ({
      text: word,
      own: tokenize(word, { stopwordFallback: false }),
      key: wordKey(word),
    }));
    // A query of stopwords only searches for them after all, as `tokenize` does.
    const onlyStopwords = words.every((word) => word.own.length === 0);
    const groups: string[][] = [];
    for (let start = 0; start < words.length;) {
      const phrase = this.longestMatch(words, start);
      const own = new Set<string>();
      for (const word of words.slice(start, start + phrase.length)) {
        for (const term of onlyStopwords ? tokenize(word.text) : word.own) own.add(term);
      }
      // The first term stands for the word and takes its equivalents; the
      // rest (the parts of an identifier, the other words of a phrase) are
      // terms of their own, scored as such.
      const [first, ...rest] = [...own];
      const equivalents = phrase.equivalents.filter((term) => !own.has(term));
      if (first !== undefined) groups.push([first, ...equivalents]);
      else if (equivalents.length) groups.push(equivalents);
      for (const term of rest) groups.push([term]);
      start += phrase.length;
    }
    return groups;
  }

  /** The longest phrase in the map starting at `start`, or the single word there. */
  private longestMatch(words: readonly { key: string }[], start: number): { length: number; equivalents: string[] } {
    for (let length = Math.min(this.longestPhrase, words.length - start); length > 0; length--) {
      const key = words
        .slice(start, start + length)
        .map((word) => word.key)
        .join(WORD_SEPARATOR);
      const equivalents = this.equivalents.get(key);
      if (equivalents !== undefined) return { length, equivalents };
    }
    return { length: 1, equivalents: [] };
  }

  /**
   * Records that `from` also means `to` (only its whole term when `whole`:
   * "sign-in" without its part "sign"); returns how many words `from` has.
   */
  private link(from: string, to: string, whole = false): number {
    const keys = splitWords(from).map(wordKey);
    const terms = tokenize(to, { stopwordFallback: false }).slice(0, whole ? 1 : undefined);
    if (keys.length === 0 || keys.includes('') || terms.length === 0) return 1;
    const key = keys.join(WORD_SEPARATOR);
    this.equivalents.set(key, [...new Set([...(this.equivalents.get(key) ?? []), ...terms])]);
    return keys.length;
  }
}

/**
 * What identifies a word in the map: the terms of its case-folded form, so
 * "TypeScript" matches "typescript" and "Databases" matches "database". It
 * keeps stopwords, so "end to end" is still three words.
 */
function wordKey(word: string): string {
  return tokenize(normalize(word)).join(' ');
}
