import * as vscode from 'vscode';

import type { Services } from '../services';
import { SerialQueue } from './queue';
import { PathBatcher } from './scheduler';
import { debounceMs, type FolderPlan, planWorkspace, type WorkspacePlan } from './settings';
import type { DocSyncModel } from './state';
import { SyncRunner } from './sync-runner';
import { watchFolder } from './watcher';

/**
 * Decides what doc sync does in the workspace as it is now (trust, folders,
 * settings), and starts over whenever one of those changes: watchers per
 * folder feeding batched targeted syncs, and a full sync to catch up.
 */
export class DocSyncController implements vscode.Disposable {
  private readonly queue = new SerialQueue();
  private readonly runner: SyncRunner;
  private plan: WorkspacePlan | undefined;
  private watching: vscode.Disposable[] = [];

  constructor(
    private readonly services: Services,
    private readonly model: DocSyncModel,
  ) {
    this.runner = new SyncRunner(services, model);
  }

  /** Stops whatever runs, then sets doc sync up again and catches up in the background. */
  restart(): void {
    this.stop();
    const plan = this.settle();
    if (!plan) return;
    this.plan = plan;
    const batcher = new PathBatcher(debounceMs, (batches) => this.syncBatches(batches));
    this.watching = [
      batcher,
      ...plan.active.map((folder) => watchFolder(folder, (relative) => batcher.add(folder.root, relative))),
    ];
    void this.queue.run((signal) => this.runner.full(plan.active, plan.prefixes, { notify: false, signal }));
  }

  /** The Sync Documents command: a full sync now, with a cancellable notification; or why not. */
  async syncNow(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      const manage = vscode.l10n.t('Manage Workspace Trust');
      // Not awaited: the command is over; the button acts whenever it is clicked.
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t(
            'Workspace Memory does not read the documents of a workspace in Restricted Mode. Trust this workspace to sync them.',
          ),
          manage,
        )
        .then((choice) => choice === manage && vscode.commands.executeCommand('workbench.trust.manage'));
      return;
    }
    const plan = this.plan ?? planWorkspace(vscode.workspace.workspaceFolders ?? []);
    if (plan.active.length === 0) {
      void vscode.window.showInformationMessage(
        this.model.status.message ?? vscode.l10n.t('There are no documents to sync.'),
      );
      return;
    }
    // Clicked again while one is waiting or running: that one will do; queueing more would sync N times.
    if (this.requested) return this.requested;
    const waiting = this.queue.busy;
    let started = () => {};
    const starting = new Promise<void>((resolve) => (started = resolve));
    this.requested = this.queue
      .run((signal) => {
        started();
        return this.runner.full(plan.active, plan.prefixes, { notify: true, signal });
      })
      .finally(() => (this.requested = undefined));
    // Its progress shows once it starts; until then, say why nothing seems to happen.
    if (waiting) {
      vscode.window.setStatusBarMessage(
        vscode.l10n.t('$(sync~spin) Memory: documents are being synced; yours follows'),
        Promise.race([starting, this.requested.catch(() => undefined)]),
      );
    }
    return this.requested;
  }

  /** The full sync the command asked for, until it has run. */
  private requested: Promise<void> | undefined;

  /** The plan to follow, or undefined with the model saying why there is none. */
  private settle(): WorkspacePlan | undefined {
    if (!vscode.workspace.isTrusted) {
      this.model.update({
        state: 'restricted',
        progress: undefined,
        message: vscode.l10n.t('Restricted Mode: documents are not synced until you trust this workspace.'),
      });
      return undefined;
    }
    const folders = vscode.workspace.workspaceFolders ?? [];
    const plan = planWorkspace(folders);
    if (plan.unsupported.length > 0) {
      this.services.log.info(
        `Document sync: not syncing ${plan.unsupported.map((folder) => folder.uri.toString()).join(', ')} (only folders on disk are read).`,
      );
    }
    if (plan.active.length > 0) return plan;
    if (folders.length === 0) {
      this.model.update({ state: 'idle', progress: undefined, message: vscode.l10n.t('No folder is open.') });
    } else if (plan.disabled.length === 0) {
      this.model.update({
        state: 'unsupported',
        progress: undefined,
        message: vscode.l10n.t('Documents are synced from folders on disk only, not remote or virtual ones.'),
      });
    } else {
      this.model.update({
        state: 'disabled',
        progress: undefined,
        message: vscode.l10n.t('Document sync is turned off (workspaceMemory.docSync.enabled).'),
      });
    }
    return undefined;
  }

  private syncBatches(batches: Map<string, string[]>): void {
    for (const [root, paths] of batches) {
      const folder = this.plan?.active.find((plan: FolderPlan) => plan.root === root);
      if (folder) void this.queue.run((signal) => this.runner.files(folder, paths, signal));
    }
  }

  private stop(): void {
    this.queue.cancelAll();
    for (const disposable of this.watching) disposable.dispose();
    this.watching = [];
    this.plan = undefined;
  }

  dispose(): void {
    this.stop();
  }
}
