import { z } from 'zod';

import { LIMITS } from '../validation';

/**
 * Tags as a model writes them, made storable: trimmed, lower-cased, without
 * blanks, over-long entries or repeats, and no more than the store allows.
 * Normalizing instead of rejecting spares a retry over something cosmetic.
 */
export function normalizeTags(tags: readonly string[]): string[] {
  const cleaned = tags.map((tag) => tag.trim().toLowerCase()).filter((tag) => tag && tag.length <= LIMITS.maxTagLength);
  return [...new Set(cleaned)].slice(0, LIMITS.maxTags);
}

/** A tag list in a model's reply; missing means none. */
export const tagListSchema = z.array(z.string()).default([]).transform(normalizeTags);
