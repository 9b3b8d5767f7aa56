import * as vscode from 'vscode';

import { appliesTo } from '../../core/anchors/applies-to';
import type { CitedEntityReport } from '../../core/anchors/staleness';
import type { Services } from '../services';
import { onWorkspaceFileChange } from '../workspace-files';
import { citationFolders, citedPathOf } from './folders';

/** The files whose change means git's idea of the tree moved: a staged change, a commit, a checkout. */
const GIT_STATE = /\/\.git\/(index|HEAD|ORIG_HEAD)$/;

/** How long a burst of file changes (a save, a branch switch) settles before the citations are checked. */
const SETTLE_MS = 250;

/**
 * The memories and skills whose cited code changed, kept current for the
 * views: looked up again when the store changes, and when a cited file
 * changes on disk (saved in the editor or written by anything else), after
 * a check that re-anchors the citations whose lines only moved.
 */
export class StaleMemories implements vscode.Disposable {
  private reports: CitedEntityReport[] = [];
  /** The paths cited, as citations write them: a change to any other file is not looked at. */
  private citedPaths = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private checkFiles = false;
  private running: Promise<void> | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  readonly onDidChange = this.changed.event;

  constructor(private readonly services: Services) {
    const fileChanged = (uri: vscode.Uri) => {
      // Every file change in the workspace comes here (a branch switch brings thousands): with nothing
      // cited, nothing is looked at.
      if (this.citedPaths.size === 0) return;
      // A cited file that is gone may have been renamed: git tells once the rename is staged or
      // committed (its index or HEAD changes), and the full check follows it to the new path.
      if (GIT_STATE.test(uri.path)) {
        if (this.hasMissing()) this.schedule(true);
        return;
      }
      const cited = citedPathOf(uri);
      if (cited !== undefined && this.citedPaths.has(cited)) this.schedule(true);
    };
    this.disposables.push(
      onWorkspaceFileChange(fileChanged),
      vscode.workspace.onDidSaveTextDocument((document) => fileChanged(document.uri)),
      services.onDidChangeStore(() => this.schedule(false)),
    );
    this.schedule(false);
  }

  /** Whether some citation's file is gone (moved away, perhaps: see the git check in the constructor). */
  private hasMissing(): boolean {
    return this.reports.some((report) => report.citations.some(({ state }) => state === 'missing'));
  }

  /** Whether a path (as citations write it) is cited by any memory or skill the views know of. */
  cited(path: string): boolean {
    return this.citedPaths.has(path);
  }

  /** The memories and skills that cite `path` (as citations write it) or whose `appliesTo` globs match it, oldest first. */
  citing(path: string): readonly CitedEntityReport[] {
    const folders = citationFolders(vscode.workspace.workspaceFolders ?? []);
    return this.reports.filter(
      (report) =>
        report.entity.citations?.some((citation) => citation.path === path) ||
        appliesTo(report.entity.appliesTo, path, folders),
    );
  }

  /** The stale ones, oldest first. */
  get stale(): readonly CitedEntityReport[] {
    return this.reports.filter((report) => report.stale);
  }

  /** Looks again soon; with `checkFiles`, first re-anchors citations whose lines moved. */
  schedule(checkFiles: boolean): void {
    this.checkFiles ||= checkFiles;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // One look at a time: a change during a look schedules the next.
      this.running = (this.running ?? Promise.resolve()).then(() => this.look());
    }, SETTLE_MS);
  }

  private async look(): Promise<void> {
    const check = this.checkFiles;
    this.checkFiles = false;
    try {
      const memory = await this.services.memory();
      const { agentId, userId } = this.services.scope();
      // A moved citation is written at its new lines (a commit by the anchoring step), then looked up as current.
      if (check) await memory.checkCitations({ agentId });
      const reports = await memory.citedEntities(agentId, userId);
      const before = shownKey(this.reports);
      this.reports = reports;
      this.citedPaths = new Set(
        reports.flatMap((report) => report.entity.citations?.map((citation) => citation.path) ?? []),
      );
      if (shownKey(reports) !== before) this.changed.fire();
    } catch (error) {
      // The views keep what they showed; the store's own failures are reported where it opens.
      this.services.log.warn(`Checking citations: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/**
 * What the views show of the citing entities: which ones (This File, the
 * lenses), their citations' places and states (the Stale group), their globs.
 */
function shownKey(reports: readonly CitedEntityReport[]): string {
  return JSON.stringify(
    reports.map(({ entity, citations }) => [
      entity.id,
      entity.updatedAt,
      citations.map(({ citation, state }) => [citation.path, citation.startLine, state]),
    ]),
  );
}
