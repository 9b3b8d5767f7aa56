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
 * An entity's name for people, on one line: a document chunk's file and
 * heading, anything else its first non-blank line (a Markdown heading's `#`s
 * dropped), cut at a word boundary. `rest` is the content the title does not
 * already say, on one line: what a second line (a quick pick's detail) shows.
 */
export function entityTitle(entity: Entity, max: number): { title: string; rest: string } {
  if (entity.type === 'knowledge' && entity.source) {
    const heading = entity.headingPath?.at(-1);
    const place = heading ? `${entity.source} › ${heading}` : entity.source;
    return { title: cutAtWord(flat(place), max).head, rest: flat(entity.content) };
  }
  const lines = entity.content.split('\n');
  const first = lines.findIndex((line) => line.trim());
  if (first === -1) return { title: entity.id, rest: '' };
  const { head, rest } = cutAtWord(flat(lines[first]!.replace(/^\s*#+\s*/, '')), max);
  return { title: head, rest: flat(`${rest} ${lines.slice(first + 1).join(' ')}`) };
}
