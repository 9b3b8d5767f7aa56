import * as vscode from 'vscode';

import type { CitationStatus, CitedEntityReport, CitingEntity } from '../../core/anchors/staleness';
import { cutAtWord, entityTitle } from '../../core/text';
import { COMMANDS } from '../commands/ids';
import { SECTION } from '../config';
import { entityUri } from '../documents/uris';
import type { Views } from '../views';
import { appendPlain, shortTime, TYPE_INFO } from '../views/labels';
import { citedPathOf } from './folders';
import type { StaleMemories } from './stale';

/** The setting (under `workspaceMemory.`) that turns the lenses and the hovers off. */
const SETTING = 'anchors.codeLens';

/** How much of a title a lens shows: a lens shares its line with the others above the code. */
const TITLE_LENGTH = 60;

/** How much of an entity's content a hover shows. */
const HOVER_TEXT_LENGTH = 240;

/** One citation of a file by a memory or skill, at the lines it holds now (1-based, inclusive). */
interface CitedLines {
  report: CitedEntityReport;
  status: CitationStatus;
  startLine: number;
  endLine: number;
}

/**
 * The citations of `path` among `reports`, at their lines as the last check
 * left them: where a moved one went, else where it was cited. A citation
 * that moved is re-anchored there once the file is saved, so edits not yet
 * saved may show it a few lines off until then.
 */
function citedLines(reports: readonly CitedEntityReport[], path: string): CitedLines[] {
  return reports.flatMap((report) =>
    report.citations
      .filter(({ citation }) => citation.path === path)
      .map((status) => ({
        report,
        status,
        startLine: status.movedTo?.startLine ?? status.citation.startLine,
        endLine: status.movedTo?.endLine ?? status.citation.endLine,
      })),
  );
}

/** The citations of the file in `document`, from what the views know already (no store call). */
function documentCitations(stale: StaleMemories, document: vscode.TextDocument): CitedLines[] {
  const path = citedPathOf(document.uri);
  // Most files are cited by nothing: one set lookup, and no walk over the reports.
  if (path === undefined || !stale.cited(path)) return [];
  return citedLines(stale.citing(path), path);
}

/** The document's line (0-based) where lines of a citation start: the last one when the file is shorter now. */
function lineIn(document: vscode.TextDocument, line: number): number {
  return Math.max(0, Math.min(line - 1, document.lineCount - 1));
}

/** The memories and skills among `cites`, each once, in order. */
function reportsOf(cites: readonly CitedLines[]): CitedEntityReport[] {
  const seen = new Map<string, CitedEntityReport>();
  for (const { report } of cites) seen.set(report.entity.id, report);
  return [...seen.values()];
}

/** "2 memories", "1 memory · 1 skill". */
function countLabel(entities: readonly CitingEntity[]): string {
  const memories = entities.filter(({ type }) => type === 'memory').length;
  const skills = entities.length - memories;
  return [
    memories === 0 ? '' : memories === 1 ? vscode.l10n.t('1 memory') : vscode.l10n.t('{0} memories', memories),
    skills === 0 ? '' : skills === 1 ? vscode.l10n.t('1 skill') : vscode.l10n.t('{0} skills', skills),
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The lens above lines that memories or skills cite: the title of the one
 * that cites them (or how many do), with how many may be outdated, which
 * is what the Stale group says of them. A click opens the one, or peeks at
 * the several, as the editor's reference lenses do.
 */
function citationLens(document: vscode.TextDocument, cites: readonly CitedLines[]): vscode.CodeLens {
  const line = lineIn(document, cites[0]!.startLine);
  const range = new vscode.Range(line, 0, line, 0);
  const reports = reportsOf(cites);
  const entities = reports.map(({ entity }) => entity);
  const stale = reports.filter((report) => report.stale);
  const [only] = entities;
  if (entities.length === 1 && only) {
    const title = entityTitle(only, TITLE_LENGTH).title;
    return new vscode.CodeLens(range, {
      title:
        stale.length > 0
          ? `$(warning) ${vscode.l10n.t('{0} · may be outdated', title)}`
          : `$(${TYPE_INFO[only.type].icon}) ${title}`,
      tooltip: vscode.l10n.t('Open the {0} that cites these lines', TYPE_INFO[only.type].singular),
      command: COMMANDS.open,
      arguments: [entityUri(only)],
    });
  }
  const count = countLabel(entities);
  return new vscode.CodeLens(range, {
    title:
      stale.length > 0
        ? `$(warning) ${vscode.l10n.t('{0} · {1} may be outdated', count, stale.length)}`
        : `$(lightbulb) ${count}`,
    tooltip: vscode.l10n.t('Show the {0} that cite these lines', count),
    // The editor's own peek, as reference lenses use it: no command of ours to list them in.
    command: 'editor.action.peekLocations',
    arguments: [
      document.uri,
      range.start,
      entities.map((entity) => new vscode.Location(entityUri(entity), new vscode.Position(0, 0))),
      'peek',
    ],
  });
}

/** One lens per line where citations start, computed from what the views know (no store call per keystroke). */
class CitationLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly stale: StaleMemories) {}

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const byLine = new Map<number, CitedLines[]>();
    for (const cite of documentCitations(this.stale, document)) {
      byLine.set(cite.startLine, [...(byLine.get(cite.startLine) ?? []), cite]);
    }
    return [...byLine.values()].map((cites) => citationLens(document, cites));
  }

  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** What the check found of a citation, as a hover says it. */
function stateText({ state, citation, changedAt }: CitationStatus): string {
  switch (state) {
    case 'valid':
      return vscode.l10n.t('valid');
    case 'moved':
      return vscode.l10n.t('moved from line {0}', citation.startLine);
    case 'changed':
      return changedAt ? vscode.l10n.t('changed on {0}', shortTime(changedAt)) : vscode.l10n.t('changed');
    case 'missing':
      return vscode.l10n.t('missing: the file is gone');
  }
}

/** `lines 2–3`, `line 4`. */
function linesText({ startLine, endLine }: CitedLines): string {
  return startLine === endLine
    ? vscode.l10n.t('line {0}', startLine)
    : vscode.l10n.t('lines {0}–{1}', startLine, endLine);
}

/** A link that runs Open on an entity (its document's URI survives the link's JSON). */
function openLink(entity: CitingEntity): string {
  return `command:${COMMANDS.open}?${encodeURIComponent(JSON.stringify([entityUri(entity)]))}`;
}

/**
 * What hovering cited lines shows: each memory or skill that cites them,
 * with the start of its text, what became of these lines (valid, moved,
 * changed on a date, missing), a warning when it may be outdated, and a
 * link that opens it.
 */
function citationHover(
  stale: StaleMemories,
  document: vscode.TextDocument,
  position: vscode.Position,
): vscode.Hover | undefined {
  const line = position.line + 1;
  const here = documentCitations(stale, document).filter(
    ({ startLine, endLine }) => startLine <= line && line <= endLine,
  );
  if (here.length === 0) return undefined;
  const markdown = new vscode.MarkdownString(undefined, true);
  markdown.isTrusted = { enabledCommands: [COMMANDS.open] };
  here.forEach((cite, index) => {
    const { entity } = cite.report;
    if (index > 0) markdown.appendMarkdown('\n\n---\n\n');
    const icon = cite.report.stale ? 'warning' : TYPE_INFO[entity.type].icon;
    markdown.appendMarkdown(`$(${icon}) **${TYPE_INFO[entity.type].singular}** · `);
    appendPlain(markdown, `${linesText(cite)} ${stateText(cite.status)}`);
    if (cite.report.stale) {
      markdown.appendMarkdown(' · ');
      // Stale for lines elsewhere: these still say what they said, but the memory may not hold.
      const elsewhere = cite.status.state === 'valid' || cite.status.state === 'moved';
      appendPlain(
        markdown,
        elsewhere ? vscode.l10n.t('may be outdated: other code it cites changed') : vscode.l10n.t('may be outdated'),
      );
    }
    markdown.appendMarkdown('\n\n');
    appendPlain(markdown, cutAtWord(entity.content, HOVER_TEXT_LENGTH).head);
    markdown.appendMarkdown(`\n\n[${vscode.l10n.t('Open')}](${openLink(entity)})`);
  });
  const start = lineIn(document, Math.min(...here.map(({ startLine }) => startLine)));
  const end = lineIn(document, Math.max(...here.map(({ endLine }) => endLine)));
  return new vscode.Hover(markdown, new vscode.Range(start, 0, end, document.lineAt(end).text.length));
}

/**
 * Lenses above the lines memories and skills cite, and a hover on them,
 * from the views' own record of citing memories (refreshed when it
 * changes). `workspaceMemory.anchors.codeLens` set to false unregisters both.
 */
export function registerCitationLenses(context: vscode.ExtensionContext, views: Views): void {
  const lenses = new CitationLenses(views.stale);
  const selector: vscode.DocumentSelector = { scheme: 'file' };
  let registered: vscode.Disposable | undefined;
  const apply = () => {
    const enabled = vscode.workspace.getConfiguration(SECTION).get<boolean>(SETTING, true);
    if (enabled && !registered) {
      registered = vscode.Disposable.from(
        vscode.languages.registerCodeLensProvider(selector, lenses),
        vscode.languages.registerHoverProvider(selector, {
          provideHover: (document, position) => citationHover(views.stale, document, position),
        }),
      );
    } else if (!enabled && registered) {
      // Unregistered, the editors drop the lenses they show.
      registered.dispose();
      registered = undefined;
    }
  };
  apply();
  context.subscriptions.push(
    lenses,
    views.stale.onDidChange(() => lenses.refresh()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.${SETTING}`)) apply();
    }),
    new vscode.Disposable(() => {
      registered?.dispose();
    }),
  );
}
