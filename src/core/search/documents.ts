import type { VersionBody } from '../store/entity-store';
import { SEARCHABLE_TYPES } from '../types';
import { tokenize } from './tokenizer';

/** The terms one entity contributes to the full-text index, column by column. */
export interface SearchDocument {
  content: string[];
  /** Distinct stemmed tag terms. */
  tags: string[];
  /** Title, heading path, category, status, source path, questions, the content's label. */
  meta: string[];
}

/**
 * A label that opens a text: one to three capitalised words and a colon, as in
 * "Caroline: I went to the support group" or "Decision: we ship on Fridays".
 * It says who is speaking or what the text is about, like a title, so it is
 * indexed with the metadata: a speaker's own messages then rank above other
 * people's messages that merely mention the speaker's name.
 */
const LEADING_LABEL = /^\s*(\p{Lu}[\p{L}\p{N}'’-]*(?: \p{Lu}[\p{L}\p{N}'’-]*){0,2}):\s/u;

/** The content without its leading label, and the label ('' when there is none). */
function splitLabel(content: string): { label: string; body: string } {
  const match = LEADING_LABEL.exec(content);
  return match ? { label: match[1]!, body: content.slice(match[0].length) } : { label: '', body: content };
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join('\n');
  return '';
}

export function documentFor(body: VersionBody): SearchDocument | null {
  if (!(SEARCHABLE_TYPES as readonly string[]).includes(body.type)) return null;
  const { label, body: content } = splitLabel(text(body.content));
  const meta = [
    body.title,
    text(body.headingPath),
    body.category,
    body.status,
    body.source,
    text(body.questions),
    label,
  ].map(text);
  return {
    content: tokenize(content),
    tags: [...new Set(tokenize(text(body.tags)))],
    meta: tokenize(meta.join('\n')),
  };
}

/** A document's length for BM25: its searchable terms (scope tokens excluded). */
export function documentLength(doc: SearchDocument): number {
  return doc.content.length + doc.tags.length + doc.meta.length;
}
