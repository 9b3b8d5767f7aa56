import * as vscode from 'vscode';

import { anchorCitation, MAX_CITED_LINES } from '../../core/anchors/citations';
import type { WorkspaceFolder } from '../../core/anchors/workspace-paths';
import { isMemoryError } from '../../core/errors';
import type { CitationRequest } from '../../core/types';
import { LIMITS } from '../../core/validation';
import { citationFolders, citedPathOf } from './folders';
import { enclosingSymbol, lastLineOf, type Symbols } from './selection';

/** What a chat request's references (`#selection`, `#file`, `#sym:`) give a memory, and what they could not. */
export interface ReferenceCitations {
  /** The lines cited, each shown to the user as `path:start-end`. */
  citations: CitationRequest[];
  /** Files referenced whole that are too long to cite by line: the memory applies to them (see citeFile). */
  wholeFiles: string[];
  /** The references left out: what each was (its `#…` text, or its file) and why. */
  skipped: { name: string; reason: string }[];
  /** The prompt with each cited reference's `#…` text replaced by the place it cites. */
  text: string;
  /** Whether the prompt says anything besides its references. */
  said: boolean;
}

/** What one reference came to: lines cited, a file the memory applies to, or why it was left out. */
type Outcome = { citation: CitationRequest } | { wholeFile: string } | { skipped: string };

/**
 * The references VS Code attaches by itself (the active editor, its
 * selection) carry ids under this prefix. They are not cited: what /remember
 * cites is what the user put in the request.
 */
const IMPLICIT = 'vscode.implicit';

/** Where a citation points, as the reply and the memory's text show it. */
export const citedPlace = ({ path, startLine, endLine }: CitationRequest): string => `${path}:${startLine}-${endLine}`;

/**
 * The citations of a chat request's references, each checked as the store
 * will check it on save (the same folders, see services.ts), so one that
 * cannot be cited is left out with its reason instead of failing the save.
 */
export async function referenceCitations(
  prompt: string,
  references: readonly vscode.ChatPromptReference[],
): Promise<ReferenceCitations> {
  const folders = citationFolders(vscode.workspace.workspaceFolders ?? []);
  const result: ReferenceCitations = { citations: [], wholeFiles: [], skipped: [], text: prompt, said: false };
  const places: { range: [number, number]; text: string }[] = [];
  for (const reference of references) {
    if (reference.id.startsWith(IMPLICIT)) continue;
    const outcome = await cite(reference.value, folders);
    if ('skipped' in outcome) {
      const name = reference.range ? prompt.slice(...reference.range) : referenceName(reference);
      result.skipped.push({ name, reason: outcome.skipped });
      continue;
    }
    const place = 'citation' in outcome ? citedPlace(outcome.citation) : outcome.wholeFile;
    if ('citation' in outcome) result.citations.push(outcome.citation);
    else if (!result.wholeFiles.includes(outcome.wholeFile)) result.wholeFiles.push(outcome.wholeFile);
    if (reference.range) places.push({ range: reference.range, text: `\`${place}\`` });
  }
  for (const [list, limit] of [
    [result.citations, LIMITS.maxCitations],
    [result.wholeFiles, LIMITS.maxAppliesTo],
  ] as const) {
    for (const extra of list.splice(limit)) {
      const name = typeof extra === 'string' ? extra : citedPlace(extra);
      result.skipped.push({ name, reason: vscode.l10n.t('a memory keeps at most {0} of these', limit) });
    }
  }
  result.text = replaced(prompt, places);
  const unsaid = references.flatMap(({ range }) => (range ? [{ range, text: '' }] : []));
  result.said = replaced(prompt, unsaid).trim() !== '';
  return result;
}

/** The prompt with each range's text replaced; from the end, so the ranges before it stay where they were. */
function replaced(prompt: string, places: readonly { range: [number, number]; text: string }[]): string {
  let result = prompt;
  for (const { range, text } of [...places].sort((a, b) => b.range[0] - a.range[0])) {
    result = `${result.slice(0, range[0])}${text}${result.slice(range[1])}`;
  }
  return result;
}

/** A reference that is not in the prompt's text, named by what it points at. */
function referenceName(reference: vscode.ChatPromptReference): string {
  const uri = uriOf(reference.value);
  return uri ? vscode.workspace.asRelativePath(uri) : reference.id;
}

const uriOf = (value: unknown): vscode.Uri | undefined =>
  value instanceof vscode.Location ? value.uri : value instanceof vscode.Uri ? value : undefined;

/** A reference's value as a citation: a Location's lines, a Uri's whole file. */
async function cite(value: unknown, folders: readonly WorkspaceFolder[]): Promise<Outcome> {
  const uri = uriOf(value);
  if (!uri) return { skipped: vscode.l10n.t('not a file') };
  if (uri.scheme !== 'file') return { skipped: vscode.l10n.t('not a file on disk') };
  const path = citedPathOf(uri);
  if (!path) return { skipped: vscode.l10n.t('outside the workspace folders') };
  let document: vscode.TextDocument;
  try {
    document = await vscode.workspace.openTextDocument(uri);
  } catch {
    // VS Code refuses to open a binary file (or a folder) as text.
    return { skipped: vscode.l10n.t('not a text file') };
  }
  return value instanceof vscode.Location
    ? citeLines(document, path, value.range, folders)
    : citeFile(document, path, folders);
}

/**
 * The lines of a range, as Save Selection cites a selection: a range that
 * ends at the start of a line does not take that line, and the symbol around
 * the lines is named where a language extension knows one.
 */
async function citeLines(
  document: vscode.TextDocument,
  path: string,
  range: vscode.Range,
  folders: readonly WorkspaceFolder[],
): Promise<Outcome> {
  // The store reads the lines from disk: unsaved changes would make them say something else.
  if (document.isDirty) return { skipped: vscode.l10n.t('the file has unsaved changes; save it to cite its lines') };
  const last = lastLineOf(range);
  const citation: CitationRequest = { path, startLine: range.start.line + 1, endLine: last + 1 };
  if (last < document.lineCount) {
    const lines = range.end.line > last ? new vscode.Range(range.start, document.lineAt(last).range.end) : range;
    const symbols = await vscode.commands
      .executeCommand<Symbols>('vscode.executeDocumentSymbolProvider', document.uri)
      .then(undefined, () => undefined);
    const symbol = enclosingSymbol(symbols, lines);
    if (symbol) citation.symbol = symbol.slice(0, LIMITS.maxCitationSymbol);
  }
  return checked(folders, citation);
}

/**
 * A file referenced whole. A short one (as many lines as a citation keeps,
 * 40) is cited whole. A longer one is not cited by line: its first 40 lines
 * would claim the memory is about them, and any edit there would mark it
 * stale while a change further down would go unseen. The memory applies to
 * the file instead (`appliesTo`, as an exactGlob): recall brings it up when
 * the file is worked on, and nothing pretends to track its lines.
 */
function citeFile(document: vscode.TextDocument, path: string, folders: readonly WorkspaceFolder[]): Outcome {
  const count = lineCount(document);
  if (count === 0) return { skipped: vscode.l10n.t('the file is empty') };
  if (count > MAX_CITED_LINES) {
    return exactGlob(path).length <= LIMITS.maxGlob
      ? { wholeFile: path }
      : { skipped: vscode.l10n.t('its path is too long') };
  }
  if (document.isDirty) return { skipped: vscode.l10n.t('the file has unsaved changes; save it to cite its lines') };
  return checked(folders, { path, startLine: 1, endLine: count });
}

/**
 * How many lines the store counts in the file: a final line break ends the
 * last line, it does not start an empty one (VS Code counts that one).
 */
function lineCount(document: vscode.TextDocument): number {
  const { lineCount: lines } = document;
  if (lines === 1 && document.lineAt(0).text === '') return 0;
  return lines > 1 && document.lineAt(lines - 1).text === '' ? lines - 1 : lines;
}

/**
 * A glob that matches exactly `path`: each character globs give a meaning
 * to is put in a class of its own (`[[]id[]]` for `[id]`). A backslash
 * escape would not survive: globs are read with `\` as a path separator.
 */
export function exactGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@|]/g, (special) => `[${special}]`);
}

/** The citation, if the store would anchor it (the same check, on the same folders); else why not. */
function checked(folders: readonly WorkspaceFolder[], citation: CitationRequest): Outcome {
  try {
    anchorCitation(folders, citation);
    return { citation };
  } catch (error) {
    if (isMemoryError(error, 'INVALID_INPUT')) return { skipped: error.message };
    throw error;
  }
}
