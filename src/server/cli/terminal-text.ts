/**
 * Text for a terminal, made harmless: stored content may hold anything an
 * agent sent over MCP, and a terminal obeys what it prints. ESC starts colour
 * and cursor sequences (which can restyle, move over or erase earlier output),
 * BEL rings, a lone CR overwrites the line, and the Unicode bidirectional
 * controls reorder what follows them, so a line can read differently from
 * what it holds. Each such character is shown as a visible escape instead
 * (`\x1b`, `\u202e`); everything else, other scripts and emoji included, is
 * left as it is.
 *
 * Backslashes are not escaped: the output is for reading, not for parsing
 * back (`--json` is exact), and doubling them would garble every Windows path.
 */

/**
 * What is escaped:
 * - Cc: C0 controls, DEL and the C1 controls (CSI U+009B starts a sequence on
 *   some terminals without an ESC);
 * - Cf: invisible format characters, among them the bidi embeddings and
 *   overrides U+202A-202E, the isolates U+2066-2069, the marks U+200E/200F and
 *   U+061C, zero-width spaces, the soft hyphen and the tag characters
 *   U+E0000-E007F (which can carry invisible text);
 * - Zl, Zp: U+2028 and U+2029, line breaks to some terminals and not others;
 * - Cs: a lone surrogate, which would otherwise print as U+FFFD.
 * Kept: newline and tab (the layout of multi-line content), CR before a
 * newline (a CRLF line end moves nothing), and the zero-width joiner and
 * non-joiner U+200C/200D, which Persian, the Indic scripts and emoji
 * sequences need and which hide nothing.
 */
const UNSAFE = /\r(?!\n)|(?![\t\n\r\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** The character as a visible escape: `\x1b` up to U+00FF, `\u202e` in the BMP, `\u{e0041}` beyond. */
function visible(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
}

/** Newline, tab and CR too, for a field that must stay on its line (a snapshot label in a listing). */
const UNSAFE_IN_A_LINE = new RegExp(`[\\t\\n\\r]|${UNSAFE.source}`, 'gu');

/**
 * `text` with every control, bidi and invisible format character shown as an
 * escape (see UNSAFE); with `layout` 'line', line breaks and tabs as well.
 * Idempotent: what it returns has nothing left to escape.
 */
export function escapeForTerminal(text: string, layout: 'lines' | 'line' = 'lines'): string {
  return text.replace(layout === 'line' ? UNSAFE_IN_A_LINE : UNSAFE, visible);
}
