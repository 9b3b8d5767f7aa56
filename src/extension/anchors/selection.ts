import * as vscode from 'vscode';

import type { CitationRequest } from '../../core/types';
import { LIMITS } from '../../core/validation';
import { citedPathOf } from './folders';

/** What Save Selection cites, or why it cites nothing. */
export interface SelectionCitations {
  citations: CitationRequest[];
  /** Set when the selection cannot be cited: said beside the saved memory. */
  reason?: string;
}

export type Symbols = (vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined;

/** A symbol's name without the `#`s Markdown's headings carry. */
const bare = (name: string): string => name.replace(/^#+\s*/, '');

/** The innermost symbol whose range holds `range`, as `Outer.inner`. */
export function enclosingSymbol(symbols: Symbols, range: vscode.Range): string | undefined {
  if (!symbols?.length) return undefined;
  // VS Code answers with objects that are both DocumentSymbols (a tree) and SymbolInformation: take the
  // tree where there is one, the flat list from a provider of SymbolInformation only.
  if (!('children' in symbols[0]!)) {
    // Flat symbol information: the smallest range that holds the selection, with its container.
    const holding = (symbols as vscode.SymbolInformation[])
      .filter((symbol) => symbol.location.range.contains(range))
      .sort(
        (a, b) =>
          a.location.range.end.line -
          a.location.range.start.line -
          (b.location.range.end.line - b.location.range.start.line),
      );
    const inner = holding[0];
    return inner ? [inner.containerName, bare(inner.name)].filter(Boolean).join('.') : undefined;
  }
  const names: string[] = [];
  let level = symbols as vscode.DocumentSymbol[];
  for (;;) {
    const holder = level.find((symbol) => symbol.range.contains(range));
    if (!holder) break;
    names.push(bare(holder.name));
    level = holder.children;
  }
  return names.length ? names.join('.') : undefined;
}

/**
 * The citations of an editor's selections: one per non-empty selection, its
 * lines, and the symbol around it where a language extension knows one. The
 * store reads the cited lines from the file on disk, so a file with unsaved
 * changes is not cited (its lines may not say what the selection does).
 */
export async function selectionCitations(editor: vscode.TextEditor): Promise<SelectionCitations> {
  const cited = citedPathOf(editor.document.uri);
  if (!cited) return { citations: [], reason: vscode.l10n.t('the file is not in a workspace folder') };
  if (editor.document.isDirty) {
    return { citations: [], reason: vscode.l10n.t('the file has unsaved changes; save it to cite its lines') };
  }
  const symbols = await vscode.commands
    .executeCommand<Symbols>('vscode.executeDocumentSymbolProvider', editor.document.uri)
    .then(undefined, () => undefined);
  const citations = editor.selections
    .filter((selection) => !selection.isEmpty)
    .slice(0, LIMITS.maxCitations)
    .map((selection): CitationRequest => {
      const last = lastLineOf(selection);
      // The lines cited, without the empty end of a selection that stops at a line's start: a symbol
      // that ends with those lines still holds them.
      const lines =
        selection.end.line > last
          ? new vscode.Range(selection.start, editor.document.lineAt(last).range.end)
          : selection;
      const symbol = enclosingSymbol(symbols, lines);
      return { path: cited, startLine: selection.start.line + 1, endLine: last + 1, ...(symbol ? { symbol } : {}) };
    });
  return { citations };
}

/** The last line a range takes (0-based): one that ends at the start of a line does not take that line. */
export function lastLineOf(range: vscode.Range): number {
  return range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
}
