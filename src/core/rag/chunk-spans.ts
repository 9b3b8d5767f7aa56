import { isBlank, isSpace, trimLines } from './chunk-text';
import type { Packed, Span, Unit } from './chunk-types';

/**
 * Span packing: where a window is cut, the `fixed` windows, cutting an
 * oversized span, packing units into chunks, and paragraphs as units.
 */

/** Where a window may be cut at a boundary: its last 20%. */
const CUT_REGION = 0.2;

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
export function fixedSpans(text: string, maxChars: number, overlap: number): Span[] {
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
export function splitSpan(text: string, span: Span, maxChars: number, firstBudget = maxChars): Span[] {
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
export function pack(text: string, units: readonly Unit[], maxChars: number): Packed[] {
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
export function paragraphUnits(
  text: string,
  start: number,
  end: number,
  section = 0,
  headingPath: string[] = [],
): Unit[] {
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
