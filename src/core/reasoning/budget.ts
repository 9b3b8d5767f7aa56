/**
 * Fitting stored text into a prompt of bounded size: candidates quoted as
 * data (trust/framing), each cut to a fair share of the room, and lists
 * of short lines kept to a budget.
 */
import { cutAtWord } from '../text';
import { INSTRUCTION_WARNING, quoteBlock } from '../trust/framing';
import { looksLikeInstruction } from '../trust/instructions';

/** Characters in `tokens` tokens: the inverse of recall's estimateTokens (characters / 4). */
export const charsForTokens = (tokens: number): number => tokens * 4;

/** Below this (about a sentence), a cut candidate says too little to be worth its number. */
const MIN_QUOTED_CHARS = 80;
const SEPARATOR = '\n\n';

/** A candidate as the model reads it: its number, the warning if it addresses an AI, its text quoted. */
function quoteCandidate(number: number, text: string): string {
  const warning = looksLikeInstruction(text) === undefined ? '' : `${INSTRUCTION_WARNING}\n`;
  return `[${number}]\n${warning}${quoteBlock(text)}`;
}

/**
 * The candidate quoted in at most `room` characters, its text cut to at
 * most `maxText`; undefined when too little would be left. The fence and
 * the warning depend on the cut text (a run of backticks lengthens the
 * fence), so the cut shrinks in proportion to the overrun until it fits.
 */
function quoteWithin(number: number, text: string, maxText: number, room: number): string | undefined {
  let cut = Math.min(maxText, room);
  while (cut >= MIN_QUOTED_CHARS) {
    const quote = quoteCandidate(number, cutAtWord(text, cut).head);
    if (quote.length <= room) return quote;
    cut = Math.min(cut - 1, Math.floor((cut * room) / quote.length));
  }
  return undefined;
}

/**
 * The texts quoted and numbered from 1, joined by blank lines, in at most
 * `budget` characters. Each takes at most `maxEach` characters of its text
 * and an even share of the room still left, so a short text leaves its
 * room to those after it and no long one crowds out the rest. Those that no
 * longer fit are left out from the end: `shown` says how many made it.
 */
export function quoteCandidates(
  texts: readonly string[],
  budget: number,
  maxEach: number,
): { text: string; shown: number } {
  const quotes: string[] = [];
  let left = budget + SEPARATOR.length; // the first quote has no separator before it
  for (const [index, text] of texts.entries()) {
    // The least room a quote needs: the shortest text worth showing, its number, fences and separator.
    const least = MIN_QUOTED_CHARS + quoteCandidate(index + 1, '').length + SEPARATOR.length;
    const share = Math.max(least, Math.floor(left / (texts.length - index)));
    const quote = quoteWithin(index + 1, text, maxEach, Math.min(share, left) - SEPARATOR.length);
    if (quote === undefined) break;
    quotes.push(quote);
    left -= quote.length + SEPARATOR.length;
  }
  return { text: quotes.join(SEPARATOR), shown: quotes.length };
}

/**
 * The last of `lines` that fit in `budget` characters joined by newlines.
 * The newest are kept: an earlier step's notes already shaped what came
 * after them.
 */
export function lastLinesWithin(lines: readonly string[], budget: number): string[] {
  let left = budget + 1; // no newline after the last line
  let first = lines.length;
  while (first > 0 && lines[first - 1]!.length + 1 <= left) {
    first--;
    left -= lines[first]!.length + 1;
  }
  return lines.slice(first);
}
