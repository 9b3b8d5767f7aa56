/** The chunkers' public types, and the spans they work on inside. */

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

export interface Span {
  start: number;
  /** Exclusive. */
  end: number;
}

export interface Packed extends Span {
  path: string[];
}

/**
 * What packing works on, in document order:
 * - `heading`: a section's heading line(s);
 * - `atomic`: a code block or table, never cut;
 * - `leaf`: text that may be cut where it must (a paragraph, an HTML block...);
 * - `block`: a list or quote that fits whole (a longer one is taken apart into its items).
 */
export interface Unit extends Span {
  kind: 'heading' | 'atomic' | 'leaf' | 'block';
  /** Sections are numbered in order: units of different sections never share a chunk, but for headings alone. */
  section: number;
  path: string[];
}
