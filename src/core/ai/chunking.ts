/**
 * Fitting material into model requests: a model sees a bounded number of
 * characters at once, so long sessions and large collections are sent in
 * pieces that each stay within a budget.
 */

export interface Batches<T> {
  batches: T[][];
  /** Items larger than the budget on their own. */
  oversized: T[];
}

/**
 * Groups items, in order, into batches whose sizes (each item's `size` plus
 * `separator` characters between items) stay within `maxChars`, with at most
 * `maxItems` items each.
 */
export function packItems<T>(
  items: readonly T[],
  size: (item: T) => number,
  maxChars: number,
  maxItems = Number.POSITIVE_INFINITY,
  separator = 1,
): Batches<T> {
  const batches: T[][] = [];
  const oversized: T[] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const length = size(item);
    if (length > maxChars) {
      oversized.push(item);
      continue;
    }
    const needed = current.length ? used + separator + length : length;
    if (current.length && (needed > maxChars || current.length >= maxItems)) {
      batches.push(current);
      current = [];
      used = 0;
    }
    used = current.length ? used + separator + length : length;
    current.push(item);
  }
  if (current.length) batches.push(current);
  return { batches, oversized };
}

/**
 * Joins text units (messages, paragraphs) into pieces of at most `maxChars`,
 * never splitting a unit that fits; a unit longer than that is cut at
 * whitespace so that no text is lost.
 */
export function packText(units: readonly string[], maxChars: number, separator = '\n\n'): string[] {
  const pieces = units.flatMap((unit) => (unit.length > maxChars ? cutText(unit, maxChars) : [unit]));
  return packItems(pieces, (piece) => piece.length, maxChars, undefined, separator.length).batches.map((batch) =>
    batch.join(separator),
  );
}

/** Cuts `text` into pieces of at most `maxChars`, at the last whitespace of each piece when there is one late enough. */
function cutText(text: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const space = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'));
    // A cut in the first half would make many tiny pieces; a word split is the lesser evil.
    const at = space > maxChars / 2 ? space : maxChars;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  if (rest.length) pieces.push(rest);
  return pieces;
}
