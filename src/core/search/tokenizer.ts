// The one tokenizer behind full-text search: documents are indexed with it and
// queries are cut with it, so both sides always agree on what a term is. Its
// output is fed to SQLite FTS5 pre-tokenized, as space-separated terms, through
// the `unicode61` tokenizer with `tokenchars '_'`; every term therefore uses
// letters, digits and `_` only, so FTS5 keeps it as exactly one token.
import { stopwords as englishStopwords } from '@orama/stopwords/english';
import { stopwords as spanishStopwords } from '@orama/stopwords/spanish';
import { stemmer } from 'stemmer';

/**
 * Longer terms are dropped rather than truncated: a truncated term would match
 * every other long token sharing its first 64 characters, and what runs that
 * long (hashes, base64, minified code) is not worth searching for anyway.
 */
export const MAX_TERM_LENGTH = 64;

export interface TokenizeOptions {
  /**
   * When the text has no terms besides stopwords (a query such as "the"),
   * return the stopwords rather than nothing, so a search is never emptied by
   * stopword removal alone. Default true; the query expander turns it off to
   * look at one word at a time.
   */
  stopwordFallback?: boolean;
}

// Spanish words that the shipped Spanish list treats as stopwords but that
// carry meaning in English or developer text (DOS, OS, IR, "final", "total",
// "ver" for version, ...), plus its lone consonants, which are variable names
// and language names (C, R) here. Lone a/e/o/u/y stay stopwords: they are
// Spanish conjunctions and prepositions.
const SPANISH_NOT_STOPWORDS = new Set([
  ...'bcdfghijklmnpqrstvwxz',
  'dos',
  'ex',
  'ir',
  'os',
  'ver',
  'era',
  'son',
  'van',
  'sea',
  'dice',
  'primer',
  'solo',
  'fin',
  'mal',
  'final',
  'general',
  'total',
  'usa',
]);

// The English list spells contractions with an ASCII apostrophe ("don't");
// words are looked up in that spelling, before apostrophes are removed, so
// "she'll" is a stopword while "shell" is not.
const STOPWORDS: ReadonlySet<string> = new Set([
  ...englishStopwords,
  ...spanishStopwords.filter((word) => !SPANISH_NOT_STOPWORDS.has(word)),
]);

// Analysing a word (regexes, and above all stemming) dominates the cost of
// tokenizing, and a workspace's vocabulary is small and repetitive, so each
// word's terms, stems included, are memoized. When full, the cache starts
// afresh: that bounds memory at no cost, whereas evicting the oldest entries
// one by one leaves V8's Map scanning ever more deleted slots.
const WORD_CACHE_LIMIT = 50_000;
let wordCache = new Map<string, WordTerms>();

interface WordTerms {
  readonly terms: readonly string[];
  /** Set when the word is a stopword: its term, kept for the stopword fallback. */
  readonly stopword?: string;
}

// The sequence of letters, digits and underscores that makes a word, possibly
// joined by single dots, hyphens or apostrophes (`os.path`, `utf-8`, `don't`).
// A joiner must be followed by a word character, so a sentence's final period
// or a trailing hyphen is not part of the word. The joiners are disjoint from
// the word characters, which keeps matching linear on any input.
const WORD = /[\p{L}\p{N}_]+(?:['’.-][\p{L}\p{N}_]+)*/gu;
const CJK_RUN = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]+/u;
const CJK_RUNS = new RegExp(CJK_RUN.source, 'gu');
// Any UTF-16 code unit above ASCII (surrogates included).
const NON_ASCII = /[\u0080-\uffff]/;
const MARKS = /\p{M}+/gu;
const APOSTROPHES = /['’]/g;
// Case folding beyond lower-casing: a word-final sigma is folded to the plain
// one, as FTS5 folds it, so the term is the same here as in the index.
const FINAL_SIGMA = /ς/g;
const JOINERS = /[._-]+/;
const HAS_JOINER = /[._-]/;
// A word needs splitting into parts if it mixes letters and digits, or has an
// upper-case letter after a lower-case one ("getUser"), or an upper-case run
// followed by a lower-case letter ("HTTPServer"). Otherwise it is one part.
const ONE_PART = /^(?:[\p{Lu}\p{Lt}]?[^\p{Lu}\p{Lt}\p{N}]*|[^\p{Ll}\p{N}]*(?:[\p{Lu}\p{Lt}]s)?|\p{N}+)$/u;
// The parts of a word without joiners, in order of preference: an acronym in
// the plural ("APIs", which must not become "AP" + "Is"), an acronym ("HTTP"
// in "HTTPServer": it gives back its last capital to the next part), a
// capitalised part, a lower-case (or caseless script) part, a number.
const PARTS =
  /[\p{Lu}\p{Lt}]{2,}s(?![^\p{Lu}\p{Lt}\p{N}])|[\p{Lu}\p{Lt}]+(?![^\p{Lu}\p{Lt}\p{N}])|[\p{Lu}\p{Lt}][^\p{Lu}\p{Lt}\p{N}]*|[^\p{Lu}\p{Lt}\p{N}]+|\p{N}+/gu;
// Only English is stemmed, with the Porter stemmer. The small library that
// ships both an English and a Spanish stemmer (Orama's) gets English wrong
// ("connection" -> "connec" but "connected" -> "connect"), and Spanish alone
// is not worth a second dependency. Words with letters beyond a-z (accented
// Spanish, other scripts) are indexed as written rather than mangled by
// English rules; unaccented Spanish words get the English rules, which mostly
// just strip a plural -s. The choice is made per word, never per text, so a
// word is stemmed the same way in a document and in a one-word query.
const STEMMABLE = /^[a-z]{3,}$/;

/** Unicode NFKC normalization and case folding, as applied to every term. */
export function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(FINAL_SIGMA, 'σ');
}

/**
 * The terms of a text, in order and with repetitions (term frequency counts):
 * stemmed words without stopwords, identifiers both whole and split, numbers
 * and versions, and character bigrams (plus unigrams) for CJK.
 */
export function tokenize(text: string, options?: TokenizeOptions): string[] {
  const terms: string[] = [];
  const stopped: string[] = [];
  for (const word of splitWords(text)) {
    // After splitWords a word is either all CJK or has none: its first
    // character tells, and the cheap code check spares ASCII text the regex.
    if (word.charCodeAt(0) >= 0x1100 && CJK_RUN.test(word)) {
      addCjkTerms(word, terms);
      continue;
    }
    const analysis = analyzeWord(word);
    if (analysis.stopword !== undefined) stopped.push(analysis.stopword);
    for (const term of analysis.terms) terms.push(term);
  }
  return terms.length > 0 || options?.stopwordFallback === false ? terms : stopped;
}

/**
 * The words that `tokenize` cuts a text into, NFKC-normalized but with their
 * case (which marks identifier boundaries) kept. A CJK run is a word of its own.
 */
export function splitWords(text: string): string[] {
  let prepared = text;
  // ASCII is unchanged by NFKC, and most text is ASCII: skip the work.
  if (NON_ASCII.test(text)) {
    prepared = text
      .normalize('NFKC')
      // Combining marks that NFKC could not fold into a letter (and emoji
      // variation selectors) would break the letters-and-digits-only alphabet.
      .replace(MARKS, '')
      // Spaces around CJK runs separate them from adjoining Latin words.
      .replace(CJK_RUNS, ' $& ');
  }
  return prepared.match(WORD) ?? [];
}

// Every character is a term and so is every pair of neighbours. Bigrams give
// multi-character queries their precision; the unigrams are needed because a
// one-character query ("京") must still find the character inside a longer run
// ("東京都"), and query and document go through the same function. Interleaving
// them (東, 東京, 京, 京都, 都) keeps any substring's terms consecutive, so
// phrase queries still line up.
function addCjkTerms(run: string, terms: string[]): void {
  let previous = '';
  for (const char of run) {
    if (previous) terms.push(previous + char);
    terms.push(char);
    previous = char;
  }
}

// A plain number is its own term, cheaper to return than to look up, and
// numbers (ids, counts, line numbers) are the tokens that would otherwise
// fill the cache and push real words out of it.
const PLAIN_NUMBER = /^[0-9]{1,64}$/;

function analyzeWord(word: string): WordTerms {
  if (PLAIN_NUMBER.test(word)) return { terms: [word] };
  const cached = wordCache.get(word);
  if (cached !== undefined) return cached;
  const analysis = wordTerms(word);
  // Long words (minified code, data) rarely repeat and would bloat the cache.
  if (word.length > MAX_TERM_LENGTH) return analysis;
  if (wordCache.size >= WORD_CACHE_LIMIT) wordCache = new Map();
  wordCache.set(detached(word), analysis);
  return analysis;
}

// A word is a slice of the text it was cut from, and V8 keeps that whole text
// (up to megabytes) alive for as long as the slice lives; the cache must hold a
// copy instead. Concatenating and slicing again yields one, made from a
// flattened string of the word alone. (The terms are new strings already.)
function detached(word: string): string {
  return (' ' + word).slice(1);
}

function wordTerms(word: string): WordTerms {
  let stopwordForm: string | undefined;
  if (word.includes("'") || word.includes('’')) {
    stopwordForm = lower(word).replace(APOSTROPHES, "'");
    word = word.replace(APOSTROPHES, '');
  }
  if (!HAS_JOINER.test(word) && ONE_PART.test(word)) return plainWordTerms(lower(word), stopwordForm);
  const segments = word.split(JOINERS).filter((segment) => segment !== '');
  const [only] = segments;
  if (segments.length === 1 && only !== undefined && ONE_PART.test(only)) {
    return plainWordTerms(lower(only), stopwordForm);
  }
  // An identifier, dotted name or version: the whole, unstemmed, with its
  // joiners as `_` (`os.path` -> `os_path`, `1.2.3` -> `1_2_3`), so an exact
  // query finds it; then each part stemmed like a word, so `retry` finds
  // `max_retry_count`. In a dotted name, a segment that is itself compound
  // (`showInformationMessage`) is also kept whole.
  const lowered = segments.map(lower);
  const terms: string[] = [];
  pushWhole(terms, lowered.join('_'));
  segments.forEach((segment, index) => {
    const plain = lowered[index] ?? '';
    if (ONE_PART.test(segment)) {
      pushPart(terms, plain);
      return;
    }
    if (segments.length > 1) pushWhole(terms, plain);
    for (const part of segment.match(PARTS) ?? []) pushPart(terms, lower(part));
  });
  return { terms };
}

function plainWordTerms(plain: string, stopwordForm: string | undefined): WordTerms {
  if (STOPWORDS.has(stopwordForm ?? plain)) return { terms: [], stopword: stem(plain) };
  return { terms: plain.length <= MAX_TERM_LENGTH ? [stem(plain)] : [] };
}

function pushWhole(terms: string[], term: string): void {
  if (term !== '' && term.length <= MAX_TERM_LENGTH) terms.push(term);
}

// Parts lose their stopwords as words do ("isValid" gives "valid"), and
// one-character parts ("1" of "ALDH1", "p" of "PrP", "3" of "1.2.3") are
// dropped: as terms they match nearly everything and mostly add noise. The
// identifier as written stays findable through its whole.
function pushPart(terms: string[], part: string): void {
  if (part.length > 1 && !STOPWORDS.has(part) && part.length <= MAX_TERM_LENGTH) terms.push(stem(part));
}

// Lower-casing can itself add a combining mark ("İ" becomes "i" + U+0307),
// which is dropped again.
function lower(text: string): string {
  const lowered = text.toLowerCase();
  return NON_ASCII.test(lowered) ? lowered.replace(FINAL_SIGMA, 'σ').replace(MARKS, '') : lowered;
}

function stem(word: string): string {
  return STEMMABLE.test(word) ? stemmer(word) || word : word;
}
