import { nodeCrypto } from '../crypto';

/**
 * Canonical JSON: object keys sorted at every depth, no whitespace, and
 * `undefined` members dropped. Two equal values always serialize to the same
 * bytes, which is what makes content addressing deduplicate.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

// Builds the sorted copy that JSON.stringify then serializes in one native
// pass. Arrays of plain values (tags, questions) are used as they are: only
// objects need their keys reordered, and copying every array was a third of
// the cost of hashing a memory.
function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.some(isObject) ? value.map(sortKeys) : value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) sorted[key] = sortKeys(member);
  }
  return sorted;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object';
}

/** Hex SHA-256 of the UTF-8 text (one-shot: no Hash object per call). */
export function sha256(text: string): string {
  return nodeCrypto().hash('sha256', text, 'hex');
}
