import type { Entity } from '../types';
import type { SearchResult } from './searcher';

/** Where an entity's text lives, for a reader: a document chunk's file and line, anything else its id. */
export function placeOf(entity: Entity): string {
  return entity.type === 'knowledge' && entity.source ? `${entity.source}:${entity.startLine ?? 1}` : entity.id;
}

/**
 * The results with each text once: a result whose content is the same as a
 * better one's (a README copied into several folders, a vendored licence) is
 * left out, and its place is added to the better one's `copies`. Results
 * stay in their order; none given is changed.
 */
export function collapseCopies<E extends Entity>(results: readonly SearchResult<E>[]): SearchResult<E>[] {
  const first = new Map<string, SearchResult<E>>();
  const once: SearchResult<E>[] = [];
  for (const result of results) {
    const text = result.entity.content.trim();
    const kept = first.get(text);
    if (kept) {
      kept.copies = [...(kept.copies ?? []), placeOf(result.entity)];
      continue;
    }
    const copy = { ...result };
    first.set(text, copy);
    once.push(copy);
  }
  return once;
}
