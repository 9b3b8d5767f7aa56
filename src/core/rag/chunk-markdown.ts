import type MarkdownItDefault from 'markdown-it';
import type { MarkdownIt, Token } from 'markdown-it';
import { parseDocument } from 'yaml';

import { lazy } from '../lazy';
import { pack, paragraphUnits } from './chunk-spans';
import { type Doc, trimLines } from './chunk-text';
import type { ChunkedDocument, Span, Unit } from './chunk-types';

/**
 * The Markdown chunker: block structure from markdown-it, so a chunk never
 * spans two sections, never cuts a fenced code block or a table, and carries
 * the heading path above it; YAML front matter becomes `frontMatter`.
 */

/**
 * markdown-it: CommonMark with GFM tables, every block token carrying its
 * line range. Only its block parser runs (inline parsing, the costly half,
 * is done for headings alone). Raw HTML is recognised so that an HTML block
 * is one block rather than odd paragraphs.
 */
const markdown = lazy((): MarkdownIt => {
  // Loaded on first use: the store's worker opens sooner without it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const create = require('markdown-it') as typeof MarkdownItDefault;
  return create({ html: true });
});

const ATOMIC = new Set(['fence', 'code_block', 'table']);
const CONTAINERS = new Set(['blockquote', 'bullet_list', 'ordered_list', 'list_item']);

interface Block {
  type: string;
  /** 0-based lines, end exclusive, from the token's map. */
  startLine: number;
  endLine: number;
  children: Block[];
  /** Heading level 1-6. */
  level?: number;
  /** A heading's inline source. */
  inline?: string;
}

interface FrontMatter {
  /** Offset where the body starts (after the closing delimiter line). */
  bodyStart: number;
  /** Line index of the first body line. */
  bodyLine: number;
  data?: Record<string, unknown>;
}

export function chunkMarkdown(doc: Doc, maxChars: number): ChunkedDocument {
  const { text } = doc;
  const front = frontMatter(text);
  const units: Unit[] = [];
  // Malformed front matter (invalid YAML, or not a mapping) is kept as a
  // plain chunk of its own rather than dropped, so no text is lost; it is
  // not parsed as Markdown either, where its closing `---` would turn the
  // YAML above it into a heading.
  if (front && !front.data) {
    const span = trimLines(text, 0, front.bodyStart);
    // A section of its own (-1): it does not pack with the text after it.
    if (span.end > span.start) units.push({ ...span, kind: 'leaf', section: -1, path: [] });
  }
  const bodyStart = front?.bodyStart ?? 0;

  let blocks: Block[];
  try {
    blocks = parseBlocks(front ? '\n'.repeat(front.bodyLine) + text.slice(bodyStart) : text);
  } catch {
    // Not expected from markdown-it, but a chunker must not fail a sync: fall back to paragraphs.
    blocks = [];
  }

  let section = 0;
  let title: string | undefined;
  const headings: { level: number; text: string }[] = [];
  let headingPath: string[] = [];

  const emit = (span: Span, kind: Unit['kind']): void => {
    const trimmed = trimLines(text, span.start, span.end);
    if (trimmed.end > trimmed.start) units.push({ ...trimmed, kind, section, path: headingPath });
  };

  const segment = (siblings: readonly Block[], start: number, end: number, top: boolean): void => {
    // Lines no block claims (link reference definitions make no token) stay
    // with the block before them; any before the first block form a leaf.
    const first = siblings[0];
    emit({ start, end: first ? Math.max(start, doc.offset(first.startLine)) : end }, 'leaf');
    siblings.forEach((block, i) => {
      const next = siblings[i + 1];
      const span = trimLines(
        text,
        Math.max(start, doc.offset(block.startLine)),
        next ? Math.min(end, doc.offset(next.startLine)) : end,
      );
      if (span.end <= span.start) return;
      if (top && block.type === 'heading') {
        const heading = headingText(block.inline ?? '');
        const level = block.level ?? 1;
        while (headings.length && headings.at(-1)!.level >= level) headings.pop();
        headings.push({ level, text: heading });
        section++;
        headingPath = headings.map((h) => h.text).filter((h) => h !== '');
        if (level === 1 && title === undefined && heading !== '') title = heading;
        emit(span, 'heading');
      } else if (ATOMIC.has(block.type)) {
        emit(span, 'atomic');
      } else if (span.end - span.start <= maxChars) {
        emit(span, CONTAINERS.has(block.type) ? 'block' : 'leaf');
      } else if (CONTAINERS.has(block.type) && block.children.length > 0) {
        segment(block.children, span.start, span.end, false);
      } else {
        emit(span, 'leaf');
      }
    });
  };

  if (blocks.length > 0) segment(blocks, bodyStart, text.length, true);
  else units.push(...paragraphUnits(text, bodyStart, text.length));

  const fmTitle = front?.data?.title;
  const result: ChunkedDocument = { chunks: doc.chunks(pack(text, units, maxChars), []) };
  if (front?.data) result.frontMatter = front.data;
  if (typeof fmTitle === 'string' && fmTitle.trim()) result.title = fmTitle.trim();
  else if (typeof fmTitle === 'number') result.title = String(fmTitle);
  else if (title !== undefined) result.title = title;
  return result;
}

/** Block tokens as a tree, each with its line range. */
function parseBlocks(source: string): Block[] {
  const tokens: Token[] = [];
  const parser = markdown();
  parser.block.parse(source, parser, {}, tokens);
  const roots: Block[] = [];
  const stack: Block[] = [];
  for (const token of tokens) {
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    const parent = stack.at(-1);
    if (token.type === 'inline') {
      if (parent?.type === 'heading') parent.inline = token.content;
      continue;
    }
    const block: Block = {
      type: token.type.replace(/_open$/, ''),
      startLine: token.map?.[0] ?? -1,
      endLine: token.map?.[1] ?? -1,
      children: [],
    };
    if (block.type === 'heading') block.level = Number(token.tag.slice(1)) || 1;
    if (block.startLine >= 0) (parent ? parent.children : roots).push(block);
    if (token.nesting === 1) stack.push(block);
  }
  return roots;
}

/** A heading's text without its markup: `**Install** `npm`` → `Install npm`. */
function headingText(source: string): string {
  try {
    const parts: string[] = [];
    const walk = (tokens: readonly Token[]): void => {
      for (const token of tokens) {
        if (token.type === 'text' || token.type === 'code_inline' || token.type === 'text_special')
          parts.push(token.content);
        else if (token.type === 'softbreak' || token.type === 'hardbreak') parts.push(' ');
        if (token.children) walk(token.children);
      }
    };
    walk(markdown().parseInline(source, {}));
    return parts.join('').replace(/\s+/g, ' ').trim();
  } catch {
    return source.trim();
  }
}

/**
 * YAML front matter: a first line of `---`, then YAML up to a line of `---`
 * (or `...`). Without a closing line there is no front matter (a leading
 * thematic break). Parsed with the `yaml` package; `data` is set only for a
 * mapping without errors (an empty block counts as `{}`).
 */
function frontMatter(text: string): FrontMatter | undefined {
  if (!/^---[ \t]*(\n|$)/.test(text)) return undefined;
  const close = /^(?:---|\.\.\.)[ \t]*$/m;
  const firstNewline = text.indexOf('\n');
  if (firstNewline === -1) return undefined;
  const rest = text.slice(firstNewline + 1);
  const match = close.exec(rest);
  if (!match) return undefined;
  const yamlText = rest.slice(0, match.index);
  const closeEnd = firstNewline + 1 + match.index + match[0].length;
  const bodyStart = closeEnd < text.length ? closeEnd + 1 : text.length;
  // The body's first line is the one after the closing delimiter: count the line breaks before it.
  let bodyLine = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < closeEnd; i = text.indexOf('\n', i + 1)) bodyLine++;
  const result: FrontMatter = { bodyStart, bodyLine };
  try {
    const parsed = parseDocument(yamlText, { uniqueKeys: false, logLevel: 'silent', prettyErrors: false });
    if (parsed.errors.length > 0) return result;
    const data: unknown = parsed.toJS({ maxAliasCount: 100 });
    if (data === null || data === undefined) result.data = {};
    else if (typeof data === 'object' && !Array.isArray(data) && !(data instanceof Map)) {
      result.data = data as Record<string, unknown>;
    }
  } catch {
    // Too many aliases and the like: malformed.
  }
  return result;
}
