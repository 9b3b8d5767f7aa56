import * as path from 'node:path';

import { MemoryError } from '../errors';
import { chunkMarkdown } from './chunk-markdown';
import { fixedSpans, pack, paragraphUnits } from './chunk-spans';
import { Doc, normalize } from './chunk-text';
import type { ChunkedDocument, ChunkOptions, ChunkStrategy } from './chunk-types';

export type { Chunk, ChunkedDocument, ChunkOptions, ChunkStrategy } from './chunk-types';

/**
 * Splits a document into chunks for retrieval. Every chunk's text is a
 * verbatim slice of the document (after CRLF → LF), so its line numbers
 * point at the file as the user sees it.
 *
 * - `fixed` (source code, anything unknown): windows of at most `maxChars`
 *   cut at word boundaries: each ends at a line break or else at whitespace
 *   in its last 20%, else at the last whitespace in it, and starts at the
 *   word nearest to `overlap` characters before the previous one ended
 *   (within 20% of `maxChars`). Only a word too long for the window is cut.
 * - `paragraph` (.txt, .rst, .adoc): paragraphs (split on blank lines)
 *   packed up to `maxChars`; a longer paragraph is cut like `fixed`, without
 *   overlap.
 * - `markdown`: block structure from markdown-it; a chunk never spans two
 *   sections, never cuts a fenced code block or a table, and carries the
 *   heading path above it. YAML front matter becomes `frontMatter`.
 */

export const DEFAULT_MAX_CHARS = 1500;
export const DEFAULT_OVERLAP = 200;
const MIN_MAX_CHARS = 10;

const MARKDOWN_EXTENSIONS = new Set(['.md', '.mdx', '.markdown']);
const PARAGRAPH_EXTENSIONS = new Set(['.txt', '.rst', '.adoc']);

/** `markdown` for .md/.mdx/.markdown, `paragraph` for .txt/.rst/.adoc, `fixed` for everything else (source code). */
export function strategyFor(fileName: string): ChunkStrategy {
  const extension = path.extname(String(fileName)).toLowerCase();
  if (MARKDOWN_EXTENSIONS.has(extension)) return 'markdown';
  if (PARAGRAPH_EXTENSIONS.has(extension)) return 'paragraph';
  return 'fixed';
}

/**
 * Splits `text` (the contents of `fileName`, which picks the strategy unless
 * `options.strategy` is given). Empty or blank text gives no chunks; odd text
 * (unclosed fences, a 1 MB line, NULs) never throws. Bad options are
 * MemoryError 'INVALID_INPUT'. Fields of `options` other than its own are
 * ignored, so a sync can pass its whole options object.
 */
export function chunkDocument(text: string, fileName: string, options: ChunkOptions = {}): ChunkedDocument {
  if (typeof text !== 'string') throw new MemoryError('INVALID_INPUT', 'The document text must be a string.');
  const { strategy, maxChars, overlap } = settingsFrom(options, fileName);
  const doc = new Doc(normalize(text));
  switch (strategy) {
    case 'fixed':
      return { chunks: doc.chunks(fixedSpans(doc.text, maxChars, overlap), []) };
    case 'paragraph':
      return { chunks: doc.chunks(pack(doc.text, paragraphUnits(doc.text, 0, doc.text.length), maxChars), []) };
    case 'markdown':
      return chunkMarkdown(doc, maxChars);
  }
}

/** Checks chunk options without chunking anything (MemoryError 'INVALID_INPUT'), so a sync refuses bad ones before it starts, not only when a file needs chunking. */
export function checkChunkOptions(options: ChunkOptions): void {
  settingsFrom(options, '');
}

function settingsFrom(
  options: ChunkOptions,
  fileName: string,
): { strategy: ChunkStrategy; maxChars: number; overlap: number } {
  const strategy = options.strategy ?? strategyFor(fileName);
  if (strategy !== 'fixed' && strategy !== 'paragraph' && strategy !== 'markdown') {
    throw new MemoryError(
      'INVALID_INPUT',
      `Unknown chunk strategy "${String(strategy)}": use fixed, paragraph or markdown.`,
    );
  }
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
    throw new MemoryError(
      'INVALID_INPUT',
      `maxChars must be a whole number of at least ${MIN_MAX_CHARS}, got ${String(maxChars)}.`,
    );
  }
  // The default shrinks with a small maxChars rather than make it invalid.
  const overlap = options.overlap ?? Math.min(DEFAULT_OVERLAP, Math.floor(maxChars / 4));
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= maxChars) {
    throw new MemoryError(
      'INVALID_INPUT',
      `overlap must be a whole number from 0 to less than maxChars (${maxChars}), got ${String(overlap)}.`,
    );
  }
  return { strategy, maxChars, overlap };
}
