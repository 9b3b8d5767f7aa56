import * as vscode from 'vscode';

/** Counts as the interop commands say them, in the singular for one (l10n.t does not pluralise). */

export function itemCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 item') : vscode.l10n.t('{0} items', n);
}

export function problemCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 problem') : vscode.l10n.t('{0} problems', n);
}

export function errorCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 error') : vscode.l10n.t('{0} errors', n);
}
