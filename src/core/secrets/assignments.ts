import type { SecretSpan } from './types';

/**
 * Our own check, beside secretlint's rules (which know providers' token
 * formats): a value that looks random, assigned to a name such as
 * `password`, `client_secret` or `API_KEY`, in the ways text writes that
 * down: `password = "x8#kfP2q..."`, `"apiKey": "..."`, `TOKEN=...` in an env
 * file, `secret: ...` in YAML, `--password=...` on a command line.
 *
 * What keeps it from flagging documentation is what a placeholder lacks: a
 * minimum length, a digit or a symbol, enough Shannon entropy, and none of
 * the marks of a placeholder (`changeme`, `<your-token>`, `${TOKEN}`,
 * `process.env.X`, `xxxx`, `...`). A value written without quotes counts only
 * where it cannot be code (`token = accessToken`): at the start of a line
 * (env files, YAML) or after `--`.
 */

/** Shorter values are never flagged: `hunter2` is a weak password, but an example of one far more often. */
const MIN_LENGTH = 8;
/** Longer values are prose, data or a PEM block (which secretlint's private key rule finds). */
const MAX_LENGTH = 512;
/**
 * Bits per character. Eight distinct characters give exactly 3, so a short
 * value must have no repeat; random keys of 16 or more characters have 3.5
 * or more, English words and identifiers rarely reach 3.
 */
const MIN_ENTROPY = 3;

/** Cheap test before the assignment pattern (and the name's parts): no name we look for lacks one of these. */
const HINT = /pass|pwd|secret|token|key|credential/i;

/**
 * A name, possibly quoted, an assignment, and a value: quoted, or bare up to
 * whitespace or punctuation that ends a value. The name check is done on the
 * match (see kindOfName), which is simpler than spelling every name here.
 */
const ASSIGNMENT =
  /(?<![\w$.])(["'`]?)([A-Za-z_$][\w$.-]{0,80})\1[ \t]*(:=|=>|=|:)[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`|([^\s"'`,;]+))/g;

/** Before a bare value's name on its line: nothing, `export `, a YAML list's `- ` or `set `... */
const LINE_PREFIX = /^[ \t]*(?:export[ \t]+|-[ \t]+|set[ \t]+)?$/;
/** ...and after the value nothing but an optional comment. */
const LINE_SUFFIX = /^[ \t]*(?:(?:#|\/\/).*)?$/;
/** Or a command line flag: `--password=...`. */
const FLAG_PREFIX = /(?:^|\s)--$/;

/** Name parts that make a name sensitive, and the kind they give. */
const SENSITIVE_PARTS: ReadonlyMap<string, string> = new Map([
  ['password', 'password'],
  ['passwd', 'password'],
  ['passphrase', 'password'],
  ['pwd', 'password'],
  ['pass', 'password'],
  ['secret', 'secret'],
  ['token', 'token'],
  ['apikey', 'api-key'],
  ['credential', 'credential'],
  ['credentials', 'credential'],
]);
/** `<part>_key` (or `<part>Key`) names a key of this kind. */
const KEY_PARTS: ReadonlyMap<string, string> = new Map([
  ['api', 'api-key'],
  ['access', 'access-key'],
  ['private', 'private-key'],
  ['secret', 'secret'],
  ['auth', 'auth-key'],
  ['signing', 'signing-key'],
  ['encryption', 'encryption-key'],
  ['master', 'master-key'],
]);
/** A last name part that still names the value itself: `SECRET_KEY_BASE`, `api_key_value`, `token_b64`. */
const VALUE_SUFFIXES: ReadonlySet<string> = new Set(['value', 'base', 'b64', 'base64', 'hex', 'raw']);

/**
 * Marks of a placeholder, example or reference rather than a value: template
 * and environment syntax, angle brackets, ellipses, URLs and paths, runs of
 * one character, of the alphabet or of a keyboard row, and the words examples
 * use (checked with look-alike digits read as letters: `P@ssw0rd`).
 */
const PLACEHOLDER_SYNTAX =
  /^\$|\$\{|\{\{|\}\}|<|>|%\(|%[A-Za-z_]+%|\(|\[|\.\.\.|\*\*|(.)\1{3}|:\/\/|^(?:\.{0,2}\/|~\/|[A-Za-z]:\\)/;
const PLACEHOLDER_RUNS = /0123|1234|2345|3456|4567|5678|6789|abcd|bcde|qwer|asdf/i;
const PLACEHOLDER_WORDS =
  /your|example|sample|placeholder|dummy|change_?me|redacted|replace|fixme|todo|xxx|secret|passw|token/;
/** A bare value that is code: a member expression (`process.env.X`, `config.apiKey`) or a word made of letters. */
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$|^[A-Za-z_$]+$/;

/** The secrets our own check finds in `text`: each a value assigned to a sensitive name. */
export function assignmentSpans(text: string): SecretSpan[] {
  if (!HINT.test(text)) return [];
  const spans: SecretSpan[] = [];
  for (const match of text.matchAll(ASSIGNMENT)) {
    const kind = kindOfName(match[2]!);
    if (kind === undefined) continue;
    const quoted = match[4] ?? match[5] ?? match[6];
    const value = quoted ?? match[7]!;
    const start = match.index + match[0].length - value.length - (quoted === undefined ? 0 : 1);
    const end = start + value.length;
    if (quoted === undefined && !bareValueCounts(text, match.index, match[3]!, end, value)) continue;
    if (looksLikeSecret(value)) spans.push({ kind, start, end });
  }
  return spans;
}

/**
 * The kind of secret `value` is as the value of a field named `name` (a
 * metadata key), or undefined if the name is not a sensitive one or the value
 * does not look like a secret.
 */
export function namedValueKind(name: string, value: string): string | undefined {
  const kind = kindOfName(name);
  return kind !== undefined && looksLikeSecret(value) ? kind : undefined;
}

/**
 * The kind a name gives its value, if it is a sensitive name: its last part
 * (or the last two, as in `api_key`) must say so, so `password_hash`,
 * `max_tokens` and `tokenizer` are not. Parts are split at `_`, `-`, `.` and
 * camelCase humps.
 */
export function kindOfName(name: string): string | undefined {
  if (!HINT.test(name)) return undefined;
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((part) => part !== '');
  if (parts.length > 1 && VALUE_SUFFIXES.has(parts.at(-1)!)) parts.pop();
  const last = parts.at(-1);
  if (last === undefined) return undefined;
  if (last === 'key') return parts.length > 1 ? KEY_PARTS.get(parts.at(-2)!) : undefined;
  return SENSITIVE_PARTS.get(last) ?? (last.endsWith('key') ? KEY_PARTS.get(last.slice(0, -3)) : undefined);
}

/** Whether a bare (unquoted) value stands where a value, not code, is written (see LINE_PREFIX, FLAG_PREFIX). */
function bareValueCounts(text: string, matchStart: number, operator: string, end: number, value: string): boolean {
  if ((operator !== '=' && operator !== ':') || CODE_REFERENCE.test(value)) return false;
  const prefix = text.slice(text.lastIndexOf('\n', matchStart - 1) + 1, matchStart);
  if (FLAG_PREFIX.test(prefix)) return true;
  if (!LINE_PREFIX.test(prefix)) return false;
  const lineEnd = text.indexOf('\n', end);
  return LINE_SUFFIX.test(text.slice(end, lineEnd < 0 ? text.length : lineEnd));
}

/** Long enough, no whitespace, a digit or a symbol beside letters, random enough, and no placeholder. */
function looksLikeSecret(value: string): boolean {
  if (value.length < MIN_LENGTH || value.length > MAX_LENGTH || /\s/.test(value)) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]|[^\w./-]/.test(value)) return false;
  if (PLACEHOLDER_SYNTAX.test(value) || PLACEHOLDER_RUNS.test(value)) return false;
  if (PLACEHOLDER_WORDS.test(deLeet(value))) return false;
  const decoded = base64Text(value);
  if (decoded !== undefined && PLACEHOLDER_WORDS.test(deLeet(decoded))) return false;
  return entropy(value) >= MIN_ENTROPY;
}

/**
 * The text a base64 value encodes, if it encodes printable ASCII: an example
 * such as `bm90IGEgcmVhbCBwYXNzd29yZA==` says "not a real password". (A real
 * password encoded, as in a Kubernetes Secret, still counts.)
 */
function base64Text(value: string): string | undefined {
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const text = Buffer.from(value, 'base64').toString('latin1');
  return /^[\x20-\x7e]+$/.test(text) ? text : undefined;
}

/** The value lower-cased with look-alike digits and symbols read as the letters they stand for. */
function deLeet(value: string): string {
  return value.toLowerCase().replace(/[0134@$57]/g, (char) => LEET[char] ?? char);
}

const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '@': 'a',
  $: 's',
  '5': 's',
  '7': 't',
};

/** Shannon entropy of the value's characters, in bits per character. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  const length = [...value].length;
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
