import type { SecretSpan } from './types';

/**
 * PEM private key blocks that secretlint's private key rule lets through: it
 * takes a key's base64 to start with `MI` (a DER sequence of 128 bytes or
 * more), so a P-256 EC key in SEC1 form (`MHc...`, 121 bytes) passes, and it
 * does not know `ENCRYPTED PRIVATE KEY`. Any block whose label ends in
 * PRIVATE KEY counts here, if its body is base64 long enough to be a key, so
 * `-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----` in
 * documentation does not.
 */

const BLOCK = /-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY)-----((?:[A-Za-z0-9+/=\s]|\\[nr]){1,20000}?)-----END \1-----/g;
/** The smallest key's base64 (an EC key on P-256, without its parameters) is about 160 characters. */
const MIN_BODY = 100;

export function pemSpans(text: string): SecretSpan[] {
  if (!text.includes('PRIVATE KEY-----')) return [];
  const spans: SecretSpan[] = [];
  for (const match of text.matchAll(BLOCK)) {
    // Line breaks, as they are or escaped inside a JSON string, are not part of the base64.
    const body = match[2]!.replace(/\s|\\[nr]/g, '');
    if (body.length >= MIN_BODY && /^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
      spans.push({ kind: 'private-key', start: match.index, end: match.index + match[0].length });
    }
  }
  return spans;
}
