import type { VersionBody } from '../store/entity-store';
import { SEARCHABLE_TYPES } from '../types';
import { tokenize } from './tokenizer';

/** The terms one entity contributes to the full-text index, column by column. */
export interface SearchDocument {
  content: string[];
  /** Distinct stemmed tag terms. */
  tags: string[];
  /** Title, heading path, category, status, source path, questions. */
  meta: string[];
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join('\n');
  return '';
}

export function documentFor(body: VersionBody): SearchDocument | null {
  if (!(SEARCHABLE_TYPES as readonly string[]).includes(body.type)) return null;
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
