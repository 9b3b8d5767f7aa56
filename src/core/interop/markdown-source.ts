import { chunkDocument } from '../rag/chunkers';
import { LIMITS } from '../validation';
import { FrontMatterProblem, readFrontMatter } from './front-matter';
import { type BlockItemRead, blockItems, findBlock } from './generated-block';

/**
 * A Markdown source (a rules file, an instructions file, a memory note) as
 * sections: one per heading, the text before the first heading one of its
 * own, a file without headings one in all. Sections come from the document
 * chunker's Markdown parse with no size limit short of a memory's, so a
 * section is never cut, a fenced block never split, and a heading with
 * nothing under it goes with the section below it; one with nothing below
 * at all is dropped. Front matter and a generated Workspace Memory block are
 * read apart, their lines kept blank so line numbers stay the file's.
 */

export interface Section {
  /** The section's text as written, its heading line(s) included. */
  text: string;
  headingPath: string[];
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The heading path and how many sections before it had the same one: stable while other sections change. */
  key: string;
}

export interface MarkdownRead {
  front: Record<string, unknown>;
  sections: Section[];
  /** The items of a generated block in the file, and whether it was edited by hand since it was written. */
  block?: { items: BlockItemRead[]; edited: boolean };
  /** Lines that could not be read (a generated item's comment); the rest still is. */
  problems: { line: number; message: string }[];
}

/** A file that cannot be imported at all: its front matter, or generated block markers that do not make one block. */
export class MarkdownProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const HEADING_LINE = /^ {0,3}#{1,6}(?:[ \t]|$)/;

export function readMarkdown(text: string): MarkdownRead {
  const lines = text.split('\n');
  let front: Record<string, unknown> = {};
  let frontLines = 0;
  try {
    const read = readFrontMatter(text);
    if (read) ({ data: front, lines: frontLines } = read);
  } catch (error) {
    if (error instanceof FrontMatterProblem) throw new MarkdownProblem(error.message, error.line);
    throw error;
  }
  const found = findBlock(lines);
  if (found.kind === 'broken') throw new MarkdownProblem(`The file ${found.message}.`, found.line);
  const blank = (from: number, to: number) => {
    for (let index = from; index < to; index++) lines[index] = '';
  };
  blank(0, frontLines);
  let block: MarkdownRead['block'];
  const problems: MarkdownRead['problems'] = [];
  if (found.kind === 'block') {
    const read = blockItems(lines, found.begin, found.end);
    block = { items: read.items, edited: found.edited };
    problems.push(...read.problems);
    blank(found.begin, found.end + 1);
  }
  return { front, sections: sectionsOf(lines.join('\n')), block, problems };
}

function sectionsOf(text: string): Section[] {
  const { chunks } = chunkDocument(text, 'source.md', { strategy: 'markdown', maxChars: LIMITS.maxContentBytes });
  const seen = new Map<string, number>();
  return chunks.flatMap((chunk) => {
    if (chunk.text.split('\n').every((line) => line.trim() === '' || HEADING_LINE.test(line))) return [];
    const path = chunk.headingPath.join('\u001f');
    const occurrence = seen.get(path) ?? 0;
    seen.set(path, occurrence + 1);
    return [
      {
        text: chunk.text,
        headingPath: chunk.headingPath,
        startLine: chunk.startLine,
        endLine: chunk.endLine,
        key: `${path}#${occurrence}`,
      },
    ];
  });
}
