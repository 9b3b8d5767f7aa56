import type { Chunk, Span } from './chunk-types';

/** Normalised text with a line index: the document as every chunker sees it. */
export class Doc {
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

/** BOM stripped; CRLF and lone CR (both line breaks in an editor) become LF, so line numbers hold. */
export function normalize(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
}

export function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x3000 ||
    code === 0xfeff ||
    (code >= 0x2000 && code <= 0x200a)
  );
}

export function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/** The span less its leading and trailing blank lines (trailing spaces of its last line are kept). */
export function trimLines(text: string, start: number, end: number): Span {
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
