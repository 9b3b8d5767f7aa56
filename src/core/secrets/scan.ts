import { assignmentSpans } from './assignments';
import { pemSpans } from './pem';
import { secretlintSpans } from './secretlint';
import { tokenSpans } from './tokens';
import type { SecretFinding, SecretSpan } from './types';

/**
 * Finding secrets in a text: secretlint's recommended rules (provider token
 * formats, private keys, credentials in URLs; see secretlint.ts), the private
 * keys they miss (pem.ts), Google API keys and API tokens in HTTP headers
 * (tokens.ts), and our own check for random values assigned to
 * names like `password` (assignments.ts).
 */

/** No shorter text holds a secret either check finds (`pwd=x8#kfP2q` is 12 characters). */
const SHORTEST = 12;

/** What the scanners find in `text`, in order, each a secret's kind, line and offsets. */
export function scanSecrets(text: string): SecretFinding[] {
  if (text.length < SHORTEST) return [];
  return withLines(
    text,
    merge([...secretlintSpans(text), ...pemSpans(text), ...tokenSpans(text)], assignmentSpans(text)),
  );
}

/**
 * The spans in text order, leaving out any that lies within another (a key
 * inside a service account's JSON), and any of our assignment check's that
 * overlaps one found by its format (`aws_secret_access_key = "..."`), whose
 * kind is the more precise. One pass after a sort, however many there are.
 */
function merge(formats: SecretSpan[], named: SecretSpan[]): SecretSpan[] {
  const all = [
    ...formats.map((span) => ({ span, named: false })),
    ...named.map((span) => ({ span, named: true })),
  ].sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end || Number(a.named) - Number(b.named));
  const kept: SecretSpan[] = [];
  let reach = -1;
  for (const { span, named } of all) {
    if (span.end <= reach || (named && span.start < reach)) continue;
    kept.push(span);
    reach = span.end;
  }
  return kept;
}

/** The spans (in text order) with the 1-based line each starts on. */
function withLines(text: string, spans: SecretSpan[]): SecretFinding[] {
  let line = 1;
  let at = 0;
  return spans.map((span) => {
    for (let newline = text.indexOf('\n', at); newline >= 0 && newline < span.start; newline = text.indexOf('\n', at)) {
      line++;
      at = newline + 1;
    }
    return { kind: span.kind, line, start: span.start, end: span.end };
  });
}
