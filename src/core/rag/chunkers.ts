import * as path from 'node:path';
import type { MarkdownIt, Token } from 'markdown-it';
import { parseDocument } from 'yaml';
import { MemoryError } from '../errors';
import { lazy } from '../lazy';

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

export type ChunkStrategy = 'fixed' | 'paragraph' | 'markdown';

export interface ChunkOptions {
  /** Default: by extension, see {@link strategyFor}. */
  strategy?: ChunkStrategy;
  /** Default 1500. Only a code block or table (with its heading) can be longer. */
  maxChars?: number;
  /**
   * About how many characters consecutive `fixed` chunks share (moved to the nearest word start).
   * Default 200 (at most a quarter of maxChars); must be < maxChars.
   */
  overlap?: number;
}

export interface Chunk {
  /** 0-based order in the file. */
  index: number;
  /** A verbatim slice of the document; for markdown never the front matter. */
  text: string;
  /** The headings this chunk sits under, outermost first (markdown); [] otherwise. */
  headingPath: string[];
  /** 1-based, inclusive, in the original file (front matter counted). */
  startLine: number;
  /** 1-based, inclusive. */
  endLine: number;
}

export interface ChunkedDocument {
  chunks: Chunk[];
  /** Markdown YAML front matter, when there is a well-formed one. */
  frontMatter?: Record<string, unknown>;
  /** Front matter `title`, else the first level 1 heading (markdown only). */
  title?: string;
}

export const DEFAULT_MAX_CHARS = 1500;
export const DEFAULT_OVERLAP = 200;
const MIN_MAX_CHARS = 10;
/** Where a window may be cut at a boundary: its last 20%. */
const CUT_REGION = 0.2;

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

// ---------------------------------------------------------------------------
// Shared machinery

interface Span {
  start: number;
  /** Exclusive. */
  end: number;
}

interface Packed extends Span {
  path: string[];
}

/**
 * What packing works on, in document order:
 * - `heading`: a section's heading line(s);
 * - `atomic`: a code block or table, never cut;
 * - `leaf`: text that may be cut where it must (a paragraph, an HTML block...);
 * - `block`: a list or quote that fits whole (a longer one is taken apart into its items).
 */
interface Unit extends Span {
  kind: 'heading' | 'atomic' | 'leaf' | 'block';
  /** Sections are numbered in order: units of different sections never share a chunk, but for headings alone. */
  section: number;
  path: string[];
}

/** Normalised text with a line index. */
class Doc {
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  /** Offset of the start of a 0-based line. */
  offset(line: number): number {
    return line < this.lineStarts.length ? this.lineStarts[line]! : this.text.length;
  }

  /** 1-based line of an offset; a '\n' belongs to the line it ends. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }

  chunks(spans: readonly (Span & { path?: string[] })[], headingPath: string[]): Chunk[] {
    return spans.map((span, index) => ({
      index,
      text: this.text.slice(span.start, span.end),
      headingPath: [...(span.path ?? headingPath)],
      startLine: this.lineOf(span.start),
      endLine: this.lineOf(Math.max(span.start, span.end - 1)),
    }));
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

/** BOM stripped; CRLF and lone CR (both line breaks in an editor) become LF, so line numbers hold. */
function normalize(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
}

function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x3000 ||
    code === 0xfeff ||
    (code >= 0x2000 && code <= 0x200a)
  );
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/** The span less its leading and trailing blank lines (trailing spaces of its last line are kept). */
function trimLines(text: string, start: number, end: number): Span {
  let s = start;
  while (s < end) {
    const newline = text.indexOf('\n', s);
    const lineEnd = newline === -1 || newline >= end ? end : newline;
    if (!isBlank(text, s, lineEnd)) break;
    s = lineEnd + 1;
  }
  if (s >= end) return { start: end, end };
  let e = end;
  for (;;) {
    const newline = text.lastIndexOf('\n', e - 1);
    const lineStart = newline < s ? s : newline + 1;
    if (!isBlank(text, lineStart, e)) break;
    e = newline < s ? s : newline;
  }
  return { start: s, end: e };
}

/**
 * Where to end a window [start, limit): just after the last line break at
 * or after `minCut`, else just after the last whitespace there, else just
 * after the last whitespace at or after `floor` (only a word too long for
 * the window is cut), else at `limit` (never between the halves of a
 * surrogate pair if avoidable).
 */
function findCut(text: string, start: number, limit: number, minCut: number, floor = start + 1): number {
  const from = Math.max(minCut, start + 1);
  const cut =
    lastCutAfter(text, start, from, limit, (code) => code === 10) ??
    lastCutAfter(text, start, from, limit, isSpace) ??
    lastCutAfter(text, start, floor, limit, isSpace);
  if (cut !== undefined) return cut;
  if (isHighSurrogate(text.charCodeAt(limit - 1)) && limit - 1 >= from) return limit - 1;
  return limit;
}

/** Just after the last character of (start, limit) that passes `test`, if that is at or after `from`. */
function lastCutAfter(
  text: string,
  start: number,
  from: number,
  limit: number,
  test: (code: number) => boolean,
): number | undefined {
  for (let i = limit - 1; i >= from - 1 && i > start; i--) if (test(text.charCodeAt(i))) return i + 1;
  return undefined;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `fixed`: windows of at most maxChars over the document (less its leading
 * blank lines and trailing whitespace), each ending after whitespace and
 * starting at a word about `overlap` characters before the previous one
 * ended; only a word too long for the window is cut.
 */
function fixedSpans(text: string, maxChars: number, overlap: number): Span[] {
  const bounds = trimLines(text, 0, text.length);
  let end = bounds.end;
  while (end > bounds.start && isSpace(text.charCodeAt(end - 1))) end--;
  const reach = Math.ceil(maxChars * CUT_REGION);
  const spans: Span[] = [];
  let start = bounds.start;
  let previousCut = start;
  while (start < end) {
    if (end - start <= maxChars) {
      spans.push({ start, end });
      break;
    }
    // Past the overlap and past the previous window's end (a window may start
    // up to `reach` before its target), so every window adds text.
    const floor = Math.max(start + overlap + 1, previousCut + 1);
    const minCut = Math.max(start + Math.ceil(maxChars * (1 - CUT_REGION)), floor);
    const cut = findCut(text, start, start + maxChars, minCut, floor);
    spans.push({ start, end: cut });
    previousCut = cut;
    start = nextStart(text, start, cut - overlap, cut, reach);
  }
  return spans;
}

/**
 * Where the window after one starting at `previous` and ending at `cut`
 * starts: at the word start nearest to `target` within `reach` of it (of two
 * equally near, the earlier, which shares more), never at or before
 * `previous` nor past the whitespace after `cut`. Without one (inside a long
 * word), at `target` itself, or one earlier (one later if that is taken)
 * rather than start inside a surrogate pair.
 */
function nextStart(text: string, previous: number, target: number, cut: number, reach: number): number {
  let last = cut;
  while (last < text.length && isSpace(text.charCodeAt(last))) last++;
  for (let distance = 0; distance <= reach; distance++) {
    const before = target - distance;
    if (before > previous && isWordStart(text, before)) return before;
    const after = target + distance;
    if (after <= last && isWordStart(text, after)) return after;
  }
  if (!isLowSurrogate(text.charCodeAt(target))) return target;
  return target - 1 > previous ? target - 1 : target + 1;
}

/** A non-space character right after whitespace. */
function isWordStart(text: string, offset: number): boolean {
  return !isSpace(text.charCodeAt(offset)) && isSpace(text.charCodeAt(offset - 1));
}

/**
 * Cuts a span of text into pieces of at most maxChars (the first at most
 * `firstBudget`), at line breaks or whitespace where it can, without overlap;
 * the whitespace at each cut is left out of both pieces.
 */
function splitSpan(text: string, span: Span, maxChars: number, firstBudget = maxChars): Span[] {
  const pieces: Span[] = [];
  let start = span.start;
  let budget = firstBudget;
  while (start < span.end) {
    if (span.end - start <= budget) {
      pieces.push({ start, end: span.end });
      break;
    }
    const cut = findCut(text, start, start + budget, start + Math.ceil(budget * (1 - CUT_REGION)));
    let end = cut;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
    if (end === start) end = cut;
    pieces.push({ start, end });
    start = cut;
    while (start < span.end && isSpace(text.charCodeAt(start))) start++;
    budget = maxChars;
  }
  return pieces;
}

/**
 * Packs units into chunks of at most maxChars: consecutive units of one
 * section share a chunk while they fit. A chunk holding only headings (an
 * empty section) is carried into the next chunk, whatever its section, so no
 * chunk is a bare heading unless headings are all that is left.
 */
function pack(text: string, units: readonly Unit[], maxChars: number): Packed[] {
  const out: Packed[] = [];
  let current: (Packed & { section: number; headingsOnly: boolean }) | undefined;

  const flush = (): void => {
    if (current) out.push({ start: current.start, end: current.end, path: current.path });
    current = undefined;
  };
  const open = (unit: Unit): void => {
    current = { ...unit, headingsOnly: unit.kind === 'heading' };
  };
  const extend = (unit: Unit): void => {
    if (!current) return open(unit);
    current.end = unit.end;
    current.section = unit.section;
    current.path = unit.path;
    current.headingsOnly &&= unit.kind === 'heading';
  };
  const splittable = (unit: Unit): boolean => unit.kind === 'leaf' || unit.kind === 'heading';

  const place = (unit: Unit): void => {
    if (current && (current.headingsOnly || unit.section === current.section)) {
      if (unit.end - current.start <= maxChars) return extend(unit);
      if (current.headingsOnly) {
        // A heading stays with its code block or table, even an oversized one.
        if (unit.kind === 'atomic') return extend(unit);
        const room = maxChars - (unit.start - current.start);
        if (splittable(unit) && room >= maxChars * CUT_REGION) {
          const [first, ...rest] = splitSpan(text, unit, maxChars, room);
          extend({ ...unit, ...first!, kind: 'leaf' });
          flush();
          for (const piece of rest) place({ ...unit, ...piece, kind: 'leaf' });
          return;
        }
      }
    }
    flush();
    if (splittable(unit) && unit.end - unit.start > maxChars) {
      for (const piece of splitSpan(text, unit, maxChars)) place({ ...unit, ...piece, kind: 'leaf' });
      return;
    }
    open(unit);
  };

  for (const unit of units) place(unit);
  flush();
  return out;
}

/** Runs of non-blank lines in [start, end), as leaf units of one section. */
function paragraphUnits(text: string, start: number, end: number, section = 0, headingPath: string[] = []): Unit[] {
  const units: Unit[] = [];
  let paragraphStart = -1;
  let lineStart = start;
  while (lineStart <= end) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 || newline > end ? end : newline;
    const blank = isBlank(text, lineStart, lineEnd);
    if (!blank && paragraphStart < 0) paragraphStart = lineStart;
    if (blank && paragraphStart >= 0) {
      units.push({ start: paragraphStart, end: lineStart - 1, kind: 'leaf', section, path: headingPath });
      paragraphStart = -1;
    }
    if (lineEnd >= end) {
      if (paragraphStart >= 0)
        units.push({ start: paragraphStart, end: lineEnd, kind: 'leaf', section, path: headingPath });
      break;
    }
    lineStart = lineEnd + 1;
  }
  return units.map((unit) => ({ ...unit, ...trimLines(text, unit.start, unit.end) })).filter((u) => u.end > u.start);
}

// ---------------------------------------------------------------------------
// Markdown

/**
 * markdown-it: CommonMark with GFM tables, every block token carrying its
 * line range. Only its block parser runs (inline parsing, the costly half,
 * is done for headings alone). Raw HTML is recognised so that an HTML block
 * is one block rather than odd paragraphs.
 */
const markdown = lazy((): MarkdownIt => {
  // Loaded on first use: the store's worker opens sooner without it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const create = require('markdown-it') as typeof import('markdown-it').default;
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

function chunkMarkdown(doc: Doc, maxChars: number): ChunkedDocument {
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

/** A heading's text without its markup: `**Install** \`npm\`` → `Install npm`. */
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
