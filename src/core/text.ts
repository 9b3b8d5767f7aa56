import type { Entity } from './types';

/** Runs of whitespace as one space: text for a single line. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Text on one line (runs of whitespace become one space), cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 80): string {
  const line = flat(text);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * `text` cut to at most `max` characters at a word boundary, with an
 * ellipsis; mid-word only when a single word fills more than half of it.
 * `rest` is what was cut off (empty when it all fits), so a second line can
 * go on where the first stopped. Line breaks are kept: callers wanting one
 * line flatten first.
 */
export function cutAtWord(text: string, max: number): { head: string; rest: string } {
  const trimmed = text.trim();
  if (trimmed.length <= max) return { head: trimmed, rest: '' };
  // The last space within `max` ends the head: the ellipsis takes the place of that space.
  const space = trimmed.slice(0, max).search(/\s\S*$/);
  const end = space > max / 2 ? space : max - 1;
  return { head: `${trimmed.slice(0, end).replace(/[\s,;:.]+$/, '')}…`, rest: trimmed.slice(end).trim() };
}

/**
 * One line of Markdown as the plain text it reads as, for one-line previews
 * (titles, a quick pick's detail): a blockquote's `>`s and a heading's `#`s
 * at its start, emphasis, inline code's backticks and link targets dropped.
 * Underscores inside words (snake_case) and lone asterisks stay.
 */
export function plainMarkdown(line: string): string {
  return line
    .replace(/^\s*(?:>\s?)+/, '')
    .replace(/^\s*#+\s*/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(`+)(.+?)\1/g, '$2')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])/g, '$2');
}

/** `text`'s lines as plain text (see plainMarkdown) on one line. */
function plainLine(text: string): string {
  return flat(text.split('\n').map(plainMarkdown).join(' '));
}

/**
 * An entity's name for people, on one line: a document chunk's file and
 * heading, anything else its first non-blank line, cut at a word boundary;
 * Markdown markup is dropped (see plainMarkdown). `rest` is the content the
 * title does not already say, on one line: what a second line (a quick
 * pick's detail) shows.
 */
export function entityTitle(entity: Entity, max: number): { title: string; rest: string } {
  if (entity.type === 'knowledge' && entity.source) {
    const heading = entity.headingPath?.at(-1);
    const place = heading ? `${entity.source} › ${plainMarkdown(heading)}` : entity.source;
    return { title: cutAtWord(flat(place), max).head, rest: plainLine(entity.content) };
  }
  const lines = entity.content.split('\n');
  const first = lines.findIndex((line) => plainMarkdown(line).trim());
  if (first === -1) return { title: entity.id, rest: '' };
  const { head, rest } = cutAtWord(flat(plainMarkdown(lines[first]!)), max);
  return { title: head, rest: flat(`${rest} ${plainLine(lines.slice(first + 1).join('\n'))}`) };
}

/**
 * Why JSON.parse refused a text, as a clause to end a sentence with: V8
 * quotes the input back (`Unexpected token 'g', "garbage…" is not valid
 * JSON`, cut off anywhere, quotes unclosed), which is dropped, and says
 * where in its own words, which are made plain.
 */
export function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/, ".*" is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+ \(line (\d+) column (\d+)\)$/, ' at line $1, column $2')
    .replace(/ in JSON at position (\d+)$/, ' at position $1');
}
