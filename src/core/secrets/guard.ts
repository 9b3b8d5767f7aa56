import { MemoryError } from '../errors';
import { namedValueKind } from './assignments';
import { scanSecrets } from './scan';
import { type FieldFinding, SECRET_POLICIES, type SecretFinding, type SecretPolicy } from './types';

/**
 * The secret guard every write goes through: the text (or each string of an
 * entity's body) is scanned, and under the policy a secret is replaced by
 * `[redacted: <kind>]`, refused with MemoryError 'SECRET_DETECTED', or kept.
 * A message never holds the secret itself, only its kind and place.
 */

export { scanSecrets } from './scan';
export type { FieldFinding, SecretFinding, SecretPolicy } from './types';

export interface GuardedText {
  /** The text with every secret redacted (under `redact`), else as given. */
  text: string;
  /** What was found; empty under `allow`, which does not scan. */
  findings: SecretFinding[];
}

export interface GuardedFields<T> {
  /**
   * The body with its secrets redacted (under `redact`), copied only along
   * the paths to a redacted string; the input is never modified, and is what
   * comes back when nothing was redacted.
   */
  body: T;
  findings: FieldFinding[];
}

/**
 * `text` under `policy`. `where` names the text in a refusal ('content',
 * 'the session transcript'...).
 */
export function guardText(text: string, policy: SecretPolicy, where = 'the text'): GuardedText {
  checkSecretPolicy(policy);
  if (policy === 'allow') return { text, findings: [] };
  const findings = scanSecrets(text);
  if (findings.length === 0) return { text, findings };
  if (policy === 'block') {
    throw refusal(
      ` in ${where}`,
      findings.map((finding) => `${finding.kind} on line ${finding.line}`),
    );
  }
  return { text: redact(text, findings), findings };
}

/**
 * Every string of an entity's body under `policy`: top-level fields, the
 * strings of arrays (tags) and of nested plain objects (metadata), each
 * scanned on its own. A value whose key is a sensitive name
 * (`{"apiKey": "..."}`) is judged as an assignment would be. Findings name
 * the field by its path. The body has been validated (its depth is bounded)
 * before it gets here.
 */
export function guardFields<T extends object>(body: T, policy: SecretPolicy): GuardedFields<T> {
  checkSecretPolicy(policy);
  if (policy === 'allow') return { body, findings: [] };
  const findings: FieldFinding[] = [];
  const guarded = guardObject(body, '', findings) as T;
  if (policy === 'block' && findings.length > 0) {
    throw refusal(
      '',
      findings.map((finding) => `${finding.kind} in ${finding.field} on line ${finding.line}`),
    );
  }
  return { body: policy === 'redact' ? guarded : body, findings };
}

/** `value` with its strings redacted, copied only where something changed; findings are added to `findings`. */
function guardValue(value: unknown, path: string, key: string | undefined, findings: FieldFinding[]): unknown {
  if (typeof value === 'string') {
    const found = key === undefined ? undefined : namedValueKind(key, value);
    const spans: SecretFinding[] = found ? [{ kind: found, line: 1, start: 0, end: value.length }] : scanSecrets(value);
    for (const span of spans) findings.push({ ...span, field: path });
    return spans.length > 0 ? redact(value, spans) : value;
  }
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let copy: unknown[] | undefined;
    items.forEach((item, index) => {
      const guarded = guardValue(item, `${path}[${index}]`, undefined, findings);
      if (guarded !== item) (copy ??= [...items])[index] = guarded;
    });
    return copy ?? items;
  }
  // Inside the body only plain objects are walked: a Date is kept as it is.
  return isPlainObject(value) ? guardObject(value, path, findings) : value;
}

/** `guardValue` for each of an object's own fields, the field's name judging its value. */
function guardObject(value: object, path: string, findings: FieldFinding[]): object {
  let copy: Record<string, unknown> | undefined;
  for (const [name, item] of Object.entries(value)) {
    const guarded = guardValue(item, path ? `${path}.${name}` : name, name, findings);
    if (guarded !== item) (copy ??= { ...value })[name] = guarded;
  }
  return copy ?? value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** `text` with each finding's span replaced by `[redacted: <kind>]`; overlapping spans become one. */
function redact(text: string, findings: readonly SecretFinding[]): string {
  const sorted = [...findings].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (let i = 0; i < sorted.length;) {
    const first = sorted[i]!;
    let end = first.end;
    for (i++; i < sorted.length && sorted[i]!.start < end; i++) end = Math.max(end, sorted[i]!.end);
    out += `${text.slice(at, first.start)}[redacted: ${first.kind}]`;
    at = end;
  }
  return out + text.slice(at);
}

/** The error for a refused write: `where` (' in content', or '') and each secret's kind and place, never the secret. */
function refusal(where: string, places: string[]): MemoryError {
  const what = places.length === 1 ? 'A secret was found' : `${places.length} secrets were found`;
  const fix = places.length === 1 ? 'Remove it' : 'Remove them';
  return new MemoryError('SECRET_DETECTED', `${what}${where}: ${places.join(', ')}. ${fix} and try again.`);
}

/** Refuses (INVALID_INPUT) anything but one of the three policies. */
export function checkSecretPolicy(policy: unknown): asserts policy is SecretPolicy {
  if (!SECRET_POLICIES.includes(policy as SecretPolicy)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `The secret policy must be one of ${SECRET_POLICIES.join(', ')}, got ${JSON.stringify(policy)}.`,
    );
  }
}

/** The kinds of secret redacted in a text, as its `[redacted: <kind>]` marks say, each once. */
export function redactedKinds(text: string): string[] {
  if (!text.includes('[redacted: ')) return [];
  return [...new Set([...text.matchAll(/\[redacted: ([a-z0-9-]+)\]/g)].map((match) => match[1]!))];
}
