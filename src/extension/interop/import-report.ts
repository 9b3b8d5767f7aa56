import * as path from 'node:path';

import * as vscode from 'vscode';

import type { ImportFromReport, ItemAction } from '../../core/interop';
import type { SourceOutcome, SourceRequest, SourcesImport } from '../store/methods';
import { errorCount, itemCount } from './counts';

/**
 * What an import from other tools did, for people: the counts in one line
 * (the notification), and every item, skip and error in a Markdown report
 * (its "Show Details").
 */

export interface ImportTotals {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  removed: number;
  errors: number;
}

export function totalsOf(result: SourcesImport): ImportTotals {
  const totals: ImportTotals = { created: 0, updated: 0, unchanged: 0, skipped: 0, removed: 0, errors: 0 };
  for (const outcome of result.outcomes) {
    if ('error' in outcome) {
      totals.errors++;
      continue;
    }
    const { report } = outcome;
    totals.created += report.created;
    totals.updated += report.updated;
    totals.unchanged += report.unchanged;
    totals.skipped += report.skipped;
    totals.removed += report.removed;
    totals.errors += report.errors.length;
  }
  return totals;
}

/** The notification's text: the counts, the errors, and the sources a cancel left out. */
export function summaryText(result: SourcesImport, requested: number): string {
  const totals = totalsOf(result);
  const counts = vscode.l10n.t(
    '{0} created, {1} updated, {2} unchanged, {3} skipped, {4} removed',
    totals.created,
    totals.updated,
    totals.unchanged,
    totals.skipped,
    totals.removed,
  );
  const sentences = [
    vscode.l10n.t('Imported from {0} of {1} sources: {2}.', result.outcomes.length, requested, counts),
  ];
  if (totals.errors > 0) sentences.push(vscode.l10n.t('{0} (see the details).', errorCount(totals.errors)));
  if (result.cancelled) sentences.push(vscode.l10n.t('Cancelled: the other sources were not imported.'));
  return sentences.join(' ');
}

/** A source as a person names it: its path, under its folder's name when several folders are open. */
export function sourceName(request: SourceRequest, multiRoot: boolean): string {
  const where = request.path === '' ? '.' : request.path;
  return multiRoot ? `${path.basename(request.root)}/${where}` : where;
}

/** Text in a table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

/** Code in Markdown: in as many backticks as it needs. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${longest > 0 ? ' ' : ''}${text}${longest > 0 ? ' ' : ''}${fence}`;
}

function actionWord(action: ItemAction, dryRun: boolean): string {
  const done: Record<ItemAction, string> = {
    create: vscode.l10n.t('created'),
    update: vscode.l10n.t('updated'),
    unchanged: vscode.l10n.t('unchanged'),
    skip: vscode.l10n.t('skipped'),
    error: vscode.l10n.t('error'),
    remove: vscode.l10n.t('removed'),
  };
  const planned: Record<ItemAction, string> = {
    ...done,
    create: vscode.l10n.t('would create'),
    update: vscode.l10n.t('would update'),
    skip: vscode.l10n.t('would skip'),
    remove: vscode.l10n.t('would remove'),
  };
  return (dryRun ? planned : done)[action];
}

function sourceSection(report: ImportFromReport, name: string, format: string): string[] {
  const lines = [`## ${cell(name)} (${format})`, ''];
  if (report.errors.length > 0) {
    lines.push(`### ${vscode.l10n.t('Errors')}`, '');
    for (const error of report.errors) {
      const place = error.line === undefined ? error.source : `${error.source}:${error.line}`;
      lines.push(`- ${code(place)} ${cell(error.message)}${error.code ? ` (${error.code})` : ''}`);
    }
    lines.push('');
  }
  // Unchanged items without a note are the bulk of every import after the first: counted, not listed.
  const listed = report.items.filter((item) => item.action !== 'error' && (item.action !== 'unchanged' || item.reason));
  if (listed.length > 0) {
    lines.push(
      `| ${vscode.l10n.t('What')} | ${vscode.l10n.t('Item')} | ${vscode.l10n.t('Where')} | ${vscode.l10n.t('Note')} |`,
      '| --- | --- | --- | --- |',
      ...listed.map(
        (item) =>
          `| ${actionWord(item.action, report.dryRun)} | ${cell(item.title)} | ${code(item.source)} | ${cell(item.reason ?? '')} |`,
      ),
      '',
    );
  }
  if (report.unchanged > 0) {
    lines.push(vscode.l10n.t('{0} more unchanged since the last import.', itemCount(report.unchanged)), '');
  }
  return lines;
}

/** The Markdown report of an import: a table of the sources' counts, then each source's items and errors. */
export function importReport(
  result: SourcesImport,
  labels: ReadonlyMap<string, string>,
  multiRoot: boolean,
  dryRun: boolean,
): string {
  const formatOf = (outcome: SourceOutcome) => labels.get(outcome.request.format) ?? outcome.request.format;
  const lines = [
    `# ${dryRun ? vscode.l10n.t('Import From Other Tools (dry run: nothing was written)') : vscode.l10n.t('Import From Other Tools')}`,
    '',
  ];
  if (result.cancelled) lines.push(vscode.l10n.t('Cancelled: the sources not listed here were not imported.'), '');
  lines.push(
    `| ${vscode.l10n.t('Source')} | ${vscode.l10n.t('Format')} | ${vscode.l10n.t('Created')} | ${vscode.l10n.t('Updated')} | ${vscode.l10n.t('Unchanged')} | ${vscode.l10n.t('Skipped')} | ${vscode.l10n.t('Removed')} | ${vscode.l10n.t('Errors')} |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const outcome of result.outcomes) {
    const name = cell(sourceName(outcome.request, multiRoot));
    if ('error' in outcome) {
      lines.push(`| ${name} | ${formatOf(outcome)} | | | | | | 1 |`);
      continue;
    }
    const { report } = outcome;
    lines.push(
      `| ${name} | ${formatOf(outcome)} | ${report.created} | ${report.updated} | ${report.unchanged} | ${report.skipped} | ${report.removed} | ${report.errors.length} |`,
    );
  }
  lines.push('');
  for (const outcome of result.outcomes) {
    const name = sourceName(outcome.request, multiRoot);
    if ('error' in outcome) {
      lines.push(`## ${cell(name)} (${formatOf(outcome)})`, '', `- ${cell(outcome.error.message)}`, '');
      continue;
    }
    lines.push(...sourceSection(outcome.report, name, formatOf(outcome)));
  }
  return lines.join('\n');
}
