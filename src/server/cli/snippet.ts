import { tokenize } from '../../core/search/tokenizer';
import { oneLine } from '../../core/text';

/** A line of a document chunk that shows why it matched, and where it is in its file. */
export interface Snippet {
  /** Index of the line within the chunk (0 for its first line). */
  lineInChunk: number;
  /** The line, on one line and cut to a window around its first match. */
  text: string;
}

/** How much of the line a snippet shows, and how much of it comes before the first match. */
const WIDTH = 160;
const BEFORE_MATCH = 40;

/**
 * The line of `content` with the most words that share a term with `query`
 * (the first such line on a tie, the first non-blank line when none does),
 * shown from a little before its first match. Words are compared through the
 * search tokenizer, so a snippet finds "deploying" for "deploy" exactly as the
 * search that returned the chunk did.
 */
export function snippetOf(content: string, query: string): Snippet {
  const terms = new Set(tokenize(query));
  const lines = content.split('\n');
  let best: { index: number; hits: number; at: number } | undefined;
  lines.forEach((line, index) => {
    let hits = 0;
    let at = 0;
    for (const word of line.matchAll(/\S+/g)) {
      if (!tokenize(word[0]).some((term) => terms.has(term))) continue;
      if (hits === 0) at = word.index;
      hits++;
    }
    if (hits > (best?.hits ?? 0)) best = { index, hits, at };
  });
  const chosen = best ?? {
    index: Math.max(
      0,
      lines.findIndex((line) => line.trim() !== ''),
    ),
    hits: 0,
    at: 0,
  };
  return { lineInChunk: chosen.index, text: window(lines[chosen.index] ?? '', chosen.at) };
}

/** The line from the word boundary a little before `at`, cut to WIDTH with an ellipsis at either cut end. */
function window(line: string, at: number): string {
  let start = 0;
  // A line that fits is shown whole; a longer one from just before its match, so the match is in view.
  if (line.trim().length > WIDTH && at > BEFORE_MATCH) {
    // Start at the first word that begins in the lead-in, not inside one.
    const space = line.slice(at - BEFORE_MATCH, at).search(/\s\S/);
    start = space === -1 ? at : at - BEFORE_MATCH + space + 1;
  }
  return `${start > 0 ? '…' : ''}${oneLine(line.slice(start), WIDTH)}`;
}
