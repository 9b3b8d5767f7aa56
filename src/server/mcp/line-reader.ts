import { TopLevelIdScanner } from './top-level-id';

const NEWLINE = 0x0a;

/** One newline-delimited frame of the stdio transport. */
export type Frame =
  | { kind: 'line'; bytes: Buffer }
  /** A line over the limit: its bytes were dropped as they came; `id` is its top-level id if one was seen. */
  | { kind: 'oversized'; size: number; id: string | number | undefined };

/**
 * Splits a byte stream into lines of at most `maxLineBytes`, holding no
 * more than that. A longer line is not buffered until its newline comes
 * (the SDK's ReadBuffer did, then threw and closed the transport): once
 * it passes the limit, its bytes are only counted and scanned for the id,
 * and it comes out as one `oversized` frame at its newline.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while the current line is over the limit and being skipped. */
  private skipping: TopLevelIdScanner | undefined;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) break;
      frames.push(this.endLine());
      start = newline + 1;
    }
    return frames;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.skipping) {
      this.skipping.push(piece);
      return;
    }
    if (this.size <= this.maxLineBytes) {
      this.parts.push(piece);
      return;
    }
    // Over the limit: scan what was held, drop it, and skip the rest of the line.
    this.skipping = new TopLevelIdScanner();
    for (const part of this.parts) this.skipping.push(part);
    this.skipping.push(piece);
    this.parts = [];
  }

  private endLine(): Frame {
    const [only, ...more] = this.parts;
    const frame: Frame = this.skipping
      ? { kind: 'oversized', size: this.size, id: this.skipping.id() }
      : { kind: 'line', bytes: only && more.length === 0 ? only : Buffer.concat(this.parts) };
    this.parts = [];
    this.size = 0;
    this.skipping = undefined;
    return frame;
  }
}
