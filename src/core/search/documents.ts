import type { VersionBody } from '../store/entity-store';
import type { EntityType } from '../types';
import { tokenize } from './tokenizer';

/** The terms one entity contributes to the full-text index, column by column. */
export interface SearchDocument {
  content: string[];
  /** Distinct stemmed tag terms. */
  tags: string[];
  /** Title, heading path, category, status, source path, questions. */
  meta: string[];
}

/**
 * What search and recall look in. Profiles are fetched by user and sessions
 * by conversation; indexing them would only skew the word statistics.
 */
export const SEARCHABLE_TYPES: readonly EntityType[] = ['memory', 'skill', 'knowledge'];

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join('\n');
  return '';
}

export function documentFor(body: VersionBody): SearchDocument | null {
  if (!SEARCHABLE_TYPES.includes(body.type)) return null;
  const meta = [body.title, text(body.headingPath), body.category, body.status, body.source, text(body.questions)].map(
    text,
  );
  return {
    content: tokenize(text(body.content)),
    tags: [...new Set(tokenize(text(body.tags)))],
    meta: tokenize(meta.join('\n')),
  };
}

/** A document's length for BM25: its searchable terms (scope tokens excluded). */
export function documentLength(doc: SearchDocument): number {
  return doc.content.length + doc.tags.length + doc.meta.length;
}
