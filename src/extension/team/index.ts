import * as fs from 'node:fs';
import * as path from 'node:path';

import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import type { TeamStatus } from '../../core/team/team';
import { type MemoryEntity, type SkillEntity, TEAM_AGENT_ID } from '../../core/types';
import { resolveEntity } from '../commands/entity-commands';
import { COMMANDS } from '../commands/ids';
import { SECTION, teamFolderSetting } from '../config';
import type { Services } from '../services';
import { reporting } from '../ui';
import type { Views } from '../views';
import { onWorkspaceFileChange } from '../workspace-files';

/** How long a burst of file changes in the team folder (a pull, a branch switch) settles before one sync. */
const SETTLE_MS = 300;
/** The longest a look waits for changes to settle. */
const MAX_SETTLE_MS = 2_000;
/** How often the team folder's folders are looked at for what the watcher missed. */
const POLL_MS = 5_000;
/** A look at the team folder slower than this is logged. */
const SLOW_LOOK_MS = 2_000;

/** What the Team group shows: the folder's entities, their git state, and the files not taken in. */
export interface TeamView {
  status: TeamStatus;
  entities: (MemoryEntity | SkillEntity)[];
}

/**
 * The team folder in VS Code: synced into the store when the window opens
 * and whenever its files change (a pull, a checkout, an edit by hand: each
 * burst is one sync), and what the Team group shows of it.
 */
export class TeamMemory implements vscode.Disposable {
  private shown: TeamView | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A sync is due with the next look (a file changed), not only a look at the folder's state. */
  private syncWanted = false;
  /** When the look the timer waits for was first asked for. */
  private waitingSince: number | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  readonly onDidChange = this.changed.event;

  constructor(private readonly services: Services) {
    this.disposables.push(
      // A share, an edit or a delete of team memory writes the folder's files too: they come this way,
      // so a store write that is not team memory (a doc sync writes for minutes) asks nothing of git.
      onWorkspaceFileChange((uri) => {
        if (this.inTeamFolder(uri)) this.schedule(true);
      }),
      // A restore or an import replaces the store's state whatever the files say: they are read again.
      services.onDidChangeStore((change) => {
        if (change.replaced) this.schedule(true);
      }),
      // The watcher can miss an event (the tests saw a file created in the folder go unreported twice in
      // a few runs): the folders' own times, looked at every few seconds, catch a file added or removed
      // that it missed. Three stats; edits in place are the watcher's.
      this.pollFolders(),
      // Another team folder: the store reopens with it, and it is read.
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SECTION}.team.folder`)) this.schedule(true);
      }),
    );
    this.schedule(true);
  }

  /** The Team group's rows; undefined while the workspace has no team folder (or before the first look). */
  get view(): TeamView | undefined {
    return this.shown;
  }

  /** Syncs the folder into the store now (with `sync`), then looks at it again for the views. */
  schedule(sync: boolean): void {
    this.syncWanted ||= sync;
    this.waitingSince ??= Date.now();
    // A burst settles before its look, but changes that never stop (a long checkout) do not put it off for ever.
    if (this.timer && Date.now() - this.waitingSince >= MAX_SETTLE_MS) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.waitingSince = undefined;
      const wanted = this.syncWanted;
      this.syncWanted = false;
      // One look at a time: a change during a look schedules the next.
      this.running = this.running.then(() => this.look(wanted));
    }, SETTLE_MS);
  }

  /** Waits for the looks scheduled so far (tests). */
  async settled(): Promise<void> {
    while (this.timer) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await this.running;
  }

  /**
   * Syncs when the team folder changed since the last look, by what the
   * watcher may have missed: the folders' times (a file added or removed)
   * and, in a folder of up to POLL_FILES files, each file's time (an edit in
   * place). Read asynchronously: the extension host's thread only waits for
   * the answers.
   */
  private pollFolders(): vscode.Disposable {
    let seen: string | undefined;
    let busy = false;
    const timer = setInterval(() => {
      const root = vscode.workspace.workspaceFolders?.[0];
      if (busy || !root || root.uri.scheme !== 'file') return;
      busy = true;
      // folderSignature never rejects: each stat and readdir answers with nothing when it fails.
      void folderSignature(path.join(root.uri.fsPath, teamFolderSetting()))
        .then((now) => {
          if (seen !== undefined && now !== seen) this.schedule(true);
          seen = now;
        })
        .finally(() => (busy = false));
    }, POLL_MS);
    return new vscode.Disposable(() => clearInterval(timer));
  }

  /** Whether a change at `uri` can touch the team folder: a file in it, the folder itself, or a folder above it. */
  private inTeamFolder(uri: vscode.Uri): boolean {
    const root = vscode.workspace.workspaceFolders?.[0];
    if (!root || uri.scheme !== 'file') return false;
    const folder = path.join(root.uri.fsPath, teamFolderSetting());
    const within = (outer: string, inner: string) => {
      const relative = path.relative(outer, inner);
      return !relative.startsWith('..') && !path.isAbsolute(relative);
    };
    // A folder deleted whole is one event, for the folder.
    return within(folder, uri.fsPath) || within(uri.fsPath, folder);
  }

  private async look(sync: boolean): Promise<void> {
    const started = Date.now();
    try {
      const memory = await this.services.memory();
      if (sync) {
        const report = await memory.team.sync();
        const changes = report.added.length + report.updated.length + report.removed.length;
        if (changes || report.problems.length) {
          this.services.log.info(
            `Team folder synced: ${report.added.length} added, ${report.updated.length} updated, ${report.removed.length} removed, ${report.problems.length} not taken in`,
          );
        }
      }
      const [status, memories, skills] = await Promise.all([
        memory.team.status(),
        memory.memories.list(TEAM_AGENT_ID),
        memory.skills.list(TEAM_AGENT_ID),
      ]);
      this.shown = { status, entities: [...memories, ...skills] };
    } catch (error) {
      // No team folder in this workspace (or not trusted): no Team group.
      if (isMemoryError(error, 'NOT_FOUND')) this.shown = undefined;
      else this.services.log.warn(`Team folder: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A slow look holds up the next: said, so a slow git or a big folder can be found.
    if (Date.now() - started > SLOW_LOOK_MS)
      this.services.log.info(`Team folder: looked at in ${Date.now() - started} ms`);
    // Share with Team is offered where a store can have team memory.
    void vscode.commands.executeCommand('setContext', 'workspaceMemory.team', this.shown !== undefined);
    this.changed.fire();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const disposable of this.disposables) disposable.dispose();
  }
}

/** Above this many team files, the poll looks at the folders' times only (the watcher has the edits). */
const POLL_FILES = 2_000;

/** The times of the team folder, its memory/ and skill/ folders and (up to POLL_FILES) their files, as one string. */
async function folderSignature(folder: string): Promise<string> {
  const time = async (place: string) => (await fs.promises.stat(place).catch(() => undefined))?.mtimeMs ?? 0;
  const parts = [await time(folder)];
  const files: string[] = [];
  for (const type of ['memory', 'skill']) {
    parts.push(await time(path.join(folder, type)));
    const names = await fs.promises.readdir(path.join(folder, type)).catch(() => [] as string[]);
    files.push(...names.map((name) => path.join(folder, type, name)));
  }
  if (files.length <= POLL_FILES) parts.push(...(await Promise.all(files.map(time))));
  return parts.join(',');
}

/** Team memory: the folder's sync and the Share with Team and Make Personal commands. */
export function registerTeam(context: vscode.ExtensionContext, services: Services, views: Views): TeamMemory {
  const team = new TeamMemory(services);
  views.collections.team = team;
  const run = <A extends unknown[]>(action: string, fn: (...args: A) => Promise<unknown>) =>
    reporting(services, action, fn);
  context.subscriptions.push(
    team,
    team.onDidChange(() => views.collections.refresh()),
    vscode.commands.registerCommand(
      COMMANDS.shareWithTeam,
      run(vscode.l10n.t('Sharing with the team'), async (argument: Parameters<typeof resolveEntity>[1]) => {
        const entity = await resolveEntity(services, argument);
        if (!entity) return;
        const shared = await services.use((memory) => memory.team.share(entity.id));
        team.schedule(false);
        void vscode.window.showInformationMessage(
          vscode.l10n.t(
            'Shared with the team: {0} is in the team folder. Commit it to share it.',
            shared.type === 'memory' ? vscode.l10n.t('the memory') : vscode.l10n.t('the skill'),
          ),
        );
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.makePersonal,
      run(vscode.l10n.t('Making it personal'), async (argument: Parameters<typeof resolveEntity>[1]) => {
        const entity = await resolveEntity(services, argument);
        if (!entity) return;
        const { agentId, userId } = services.scope();
        await services.use((memory) => memory.team.makePersonal(entity.id, agentId, userId));
        team.schedule(false);
      }),
    ),
  );
  return team;
}
