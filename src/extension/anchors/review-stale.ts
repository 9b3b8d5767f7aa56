import * as vscode from 'vscode';

import { citedFile } from '../../core/anchors/citations';
import type { CitedEntityReport } from '../../core/anchors/staleness';
import type { Citation, Entity } from '../../core/types';
import { COMMANDS } from '../commands/ids';
import type { Services } from '../services';
import { collectionOf } from '../store/collections';
import { openEntity, reporting } from '../ui';
import type { Views } from '../views';
import { entityLabel } from '../views/labels';
import { citationFolders } from './folders';

/** A read-only document of cited lines: as they were when cited, or as they are now. */
const SCHEME = 'workspace-memory-cited';

/** What the person decided for one stale memory (given directly by tests and scripts). */
export type StaleDecision = 'stillTrue' | 'edit' | 'forget' | 'skip';

/** `src/app.ts:10-24` */
const place = ({ path, startLine, endLine }: Pick<Citation, 'path' | 'startLine' | 'endLine'>) =>
  `${path}:${startLine === endLine ? startLine : `${startLine}-${endLine}`}`;

/**
 * The two sides of a citation's diff: the lines it kept when it was cited,
 * and the same lines of the file now (empty when the file is gone).
 */
class CitedLines implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  uri(key: string, text: string, label: string): vscode.Uri {
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: SCHEME, path: `/${label}`, query: key });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }
}

/** The cited lines of the file now, or '' when they cannot be read (the file is gone). */
async function linesNow(citation: Citation): Promise<string> {
  try {
    // Resolved as the store resolves it: the same folder names, and never out of the workspace.
    const file = citedFile(citationFolders(vscode.workspace.workspaceFolders ?? []), citation.path);
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(file));
    const lines = new TextDecoder().decode(bytes).split(/\r\n|\r|\n/);
    return lines.slice(citation.startLine - 1, citation.endLine).join('\n');
  } catch {
    return '';
  }
}

/**
 * Review Stale Memories: one stale memory or skill at a time, its first
 * changed citation shown as a diff of the lines then and now, and the
 * choice of Still True (cite the lines as they are now), Edit, Forget or
 * Skip. Stops when none is left or the person closes the question.
 */
async function reviewStale(
  services: Services,
  views: Views,
  cited: CitedLines,
  only: Entity | undefined,
  decide: StaleDecision | undefined,
): Promise<number> {
  views.stale.schedule(false);
  const queue: CitedEntityReport[] = views.stale.stale.filter((report) => !only || report.entity.id === only.id);
  if (queue.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No memory cites code that changed since it was written.'));
    return 0;
  }
  let reviewed = 0;
  for (const { entity, citations } of queue) {
    const stale = citations.filter(({ state }) => state === 'changed' || state === 'missing');
    const [first] = stale;
    if (!first) continue;
    const key = `${entity.id}/${first.citation.hash}`;
    const then = cited.uri(`${key}/then`, first.citation.text, `${place(first.citation)} (cited)`);
    const now = cited.uri(`${key}/now`, await linesNow(first.citation), `${place(first.citation)} (now)`);
    await vscode.commands.executeCommand(
      'vscode.diff',
      then,
      now,
      vscode.l10n.t('{0}: cited ↔ now', place(first.citation)),
      { preview: true },
    );
    const missing = stale.every(({ state }) => state === 'missing');
    const choices: { label: string; decision: StaleDecision }[] = [
      ...(missing ? [] : [{ label: vscode.l10n.t('Still True'), decision: 'stillTrue' as const }]),
      { label: vscode.l10n.t('Edit'), decision: 'edit' },
      { label: vscode.l10n.t('Forget'), decision: 'forget' },
      { label: vscode.l10n.t('Skip'), decision: 'skip' },
    ];
    const answer =
      decide ??
      (await vscode.window.showWarningMessage(
        vscode.l10n.t(
          '“{0}” cites {1}, which {2}. Is it still true?',
          entityLabel(entity),
          place(first.citation),
          first.state === 'missing' ? vscode.l10n.t('is gone') : vscode.l10n.t('changed'),
        ),
        ...choices.map(({ label }) => label),
      ));
    const picked = decide ?? choices.find(({ label }) => label === answer)?.decision;
    if (picked === undefined) break;
    const memory = await services.memory();
    if (picked === 'stillTrue' && !missing) {
      // Cited again as the lines are now: the store reads them and keeps their new hash.
      const renewed = (entity.citations ?? []).map((citation) =>
        stale.some((item) => item.citation.hash === citation.hash && item.citation.path === citation.path)
          ? {
              path: citation.path,
              startLine: citation.startLine,
              endLine: citation.endLine,
              ...(citation.symbol ? { symbol: citation.symbol } : {}),
            }
          : citation,
      );
      await collectionOf(memory, entity.type).update(entity.id, { citations: renewed });
    } else if (picked === 'edit') {
      await openEntity(entity, true);
    } else if (picked === 'forget') {
      await vscode.commands.executeCommand(
        COMMANDS.delete,
        { kind: 'entity', entity },
        decide ? { confirmed: true } : {},
      );
    }
    reviewed++;
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }
  views.stale.schedule(false);
  return reviewed;
}

export function registerStaleReview(context: vscode.ExtensionContext, services: Services, views: Views): void {
  const cited = new CitedLines();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, cited),
    vscode.commands.registerCommand(
      COMMANDS.reviewStale,
      reporting(
        services,
        vscode.l10n.t('Reviewing stale memories'),
        (argument?: { entity?: Entity }, options?: { decide?: StaleDecision }) =>
          reviewStale(services, views, cited, argument?.entity, options?.decide),
      ),
    ),
  );
}
