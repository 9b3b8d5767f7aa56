import { entropy } from './assignments';
import type { SecretSpan } from './types';

/**
 * Credentials secretlint's preset lets through that turn up in notes about
 * APIs: Google API keys (`AIza` and 35 more characters, a fixed format) and
 * the token of an `Authorization: Bearer …` or `X-Api-Key: …` header as a
 * curl command or an HTTP log writes it. A header's value counts only when
 * it looks random (as assignments.ts judges values), so `Bearer <token>` and
 * `Bearer $TOKEN` in documentation do not.
 */

const GOOGLE_API_KEY = /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g;
const HEADER = /\b(?:authorization:\s*bearer|x-api-key:)\s*([A-Za-z0-9._~+/=-]{20,})/gi;
/** Below this (bits per character), a header value is a word or a placeholder, not a token. */
const MIN_ENTROPY = 3.5;

export function tokenSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  if (text.includes('AIza')) {
    for (const match of text.matchAll(GOOGLE_API_KEY)) {
      spans.push({ kind: 'google-api-key', start: match.index, end: match.index + match[0].length });
    }
  }
  if (/bearer|x-api-key/i.test(text)) {
    for (const match of text.matchAll(HEADER)) {
      const value = match[1]!;
      if (!/[0-9]/.test(value) || entropy(value) < MIN_ENTROPY) continue;
      const start = match.index + match[0].length - value.length;
      spans.push({ kind: 'bearer-token', start, end: start + value.length });
    }
  }
  return spans;
}
