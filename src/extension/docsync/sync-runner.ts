import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import type { SyncReport } from '../../core/rag/rag';
import type { Services } from '../services';
import type { FolderPlan } from './settings';
import type { DocSyncModel } from './state';

type Progress = { done: number; total: number; path?: string };

/** Status bar updates while syncing, at most this often: a sync reports every file. */
const PROGRESS_EVERY_MS = 150;
/** Skip reasons that are a rule doing its job, not a problem with the file: logged at debug level. */
const ROUTINE_SKIP = /^(ignored by|hidden folder|\.git folder|node_modules folder|depth limit)/;

export interface FullSyncOptions {
  /** Started by the user: a cancellable notification instead of the status bar's quiet progress. */
  notify: boolean;
  signal: AbortSignal;
}

/**
 * Runs doc sync's store work in the worker (rag.sync, rag.syncFiles,
 * rag.forget), relays its progress to the model and the progress UI, logs
 * what it did and reports what failed.
 */
export class SyncRunner {
  constructor(
    private readonly services: Services,
    private readonly model: DocSyncModel,
  ) {}

  /**
   * Mirrors every folder into the agent's knowledge, then drops documents
   * of folders that left the workspace (`prefixes`: see WorkspacePlan).
   */
  async full(plans: readonly FolderPlan[], prefixes: string[] | undefined, options: FullSyncOptions): Promise<void> {
    const location = options.notify ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window;
    await vscode.window.withProgress(
      { location, title: vscode.l10n.t('Syncing workspace documents'), cancellable: options.notify },
      async (progress, token) => {
        const cancel = new AbortController();
        token.onCancellationRequested(() => cancel.abort());
        const signal = AbortSignal.any([options.signal, cancel.signal]);
        await this.guard(options.signal, async () => {
          for (const plan of plans) {
            let reported = 0;
            const report = await this.task('rag.sync', [plan.root, this.agentId(), plan.options], plan, signal, (p) => {
              const percent = p.total ? (p.done / p.total) * 100 : 0;
              progress.report({
                message: plans.length > 1 ? `${plan.folder.name} ${p.done}/${p.total}` : `${p.done}/${p.total}`,
                increment: (percent - reported) / plans.length,
              });
              reported = percent;
            });
            if (report.cancelled) throw new vscode.CancellationError();
          }
          if (prefixes) await this.forgetOutside(prefixes, signal);
        });
      },
    );
  }

  /** Syncs the given paths of one folder: what its watcher saw change. */
  async files(plan: FolderPlan, paths: string[], signal: AbortSignal): Promise<void> {
    await this.guard(signal, () =>
      this.task('rag.syncFiles', [plan.root, this.agentId(), paths, plan.options], plan, signal),
    );
  }

  private agentId(): string {
    return this.services.scope().agentId;
  }

  /**
   * Runs `work` with the model showing a sync; afterwards idle with fresh
   * counts, or the failure. `superseded` aborts when doc sync started over
   * (settings, folders, trust changed): such a job leaves the model alone,
   * since it already describes the new situation.
   */
  private async guard(superseded: AbortSignal, work: () => Promise<unknown>): Promise<void> {
    if (superseded.aborted) return;
    this.model.update({ state: 'syncing', progress: undefined, message: undefined });
    try {
      await work();
    } catch (error) {
      const cancelled = error instanceof vscode.CancellationError || isMemoryError(error, 'CANCELLED');
      if (superseded.aborted) return;
      if (cancelled) {
        this.services.log.info('Document sync cancelled; the next sync goes on from where it stopped.');
      } else {
        this.services.reportError(vscode.l10n.t('Document sync'), error);
        this.model.update({ state: 'error', progress: undefined, message: (error as Error).message });
        return;
      }
    }
    if (!superseded.aborted) await this.refreshCounts();
  }

  private async task(
    method: 'rag.sync' | 'rag.syncFiles',
    args: unknown[],
    plan: FolderPlan,
    signal: AbortSignal,
    onFile?: (progress: Progress) => void,
  ): Promise<SyncReport> {
    const started = performance.now();
    let shown = 0;
    const report = await this.services.task<SyncReport, Progress>(method, args, {
      signal,
      onProgress: (progress) => {
        onFile?.(progress);
        const now = performance.now();
        if (now - shown < PROGRESS_EVERY_MS && progress.done < progress.total) return;
        shown = now;
        this.model.update({
          state: 'syncing',
          progress: { done: progress.done, total: progress.total },
          message: undefined,
        });
      },
    });
    this.logReport(plan, method, report, performance.now() - started);
    return report;
  }

  /** Documents under none of the workspace's folder prefixes belong to a folder that was removed. */
  private async forgetOutside(prefixes: string[], signal: AbortSignal): Promise<void> {
    const memory = await this.services.memory();
    const agentId = this.agentId();
    const status = await memory.rag.status(agentId);
    const stale = status.documents
      .map((document) => document.path)
      .filter((document) => !prefixes.some((prefix) => document.startsWith(`${prefix}/`)));
    if (stale.length === 0 || signal.aborted) return;
    const report = await memory.rag.forget(agentId, stale);
    this.services.log.info(`Document sync: forgot ${report.removed.length} documents of folders no longer open.`);
  }

  private async refreshCounts(): Promise<void> {
    try {
      const status = await this.services.use((memory) => memory.rag.status(this.agentId()));
      this.model.update({
        state: 'idle',
        progress: undefined,
        message: undefined,
        files: status.files,
        chunks: status.chunks,
        lastSyncAt: Date.now(),
      });
    } catch (error) {
      this.services.log.warn(`Document sync: could not count the documents: ${(error as Error).message}`);
      this.model.update({ state: 'idle', progress: undefined, message: undefined, lastSyncAt: Date.now() });
    }
  }

  private logReport(plan: FolderPlan, method: string, report: SyncReport, ms: number): void {
    const { log } = this.services;
    const changes = report.added.length + report.updated.length + report.removed.length + report.renamed.length;
    // A watcher batch that changed nothing is not worth a line at info level.
    const level = changes > 0 || method === 'rag.sync' ? 'info' : 'debug';
    log[level](
      `${method} ${plan.folder.name}: ${report.added.length} added, ${report.updated.length} updated, ` +
        `${report.removed.length} removed, ${report.renamed.length} renamed, ${report.unchanged} unchanged; ` +
        `chunks +${report.chunks.added} ~${report.chunks.updated} -${report.chunks.removed} (${ms.toFixed(0)} ms)` +
        (report.cancelled ? ', cancelled' : ''),
    );
    for (const skipped of report.skipped) {
      if (ROUTINE_SKIP.test(skipped.reason)) log.debug(`Skipped ${skipped.path}: ${skipped.reason}`);
      else log.warn(`Skipped ${skipped.path}: ${skipped.reason}`);
    }
    if (plan.unmapped.length > 0 && method === 'rag.sync') {
      log.warn(
        `docSync.include globs without a file extension are watched but not found by a full sync: ${plan.unmapped.join(', ')}`,
      );
    }
  }
}
