import * as vscode from 'vscode';

import type { AiProvider } from '../core/ai/provider';
import { isMemoryError, MemoryError } from '../core/errors';
import type { Provenance } from '../core/provenance';
import { STALENESS_MODES, type StalenessMode } from '../core/recall/recall';
import { teamFolderPath } from '../core/team/folder';
import { citationFolders } from './anchors/folders';
import { currentScope, type Scope, SECTION, storeDirectory, teamFolderSetting } from './config';
import { type RemoteMemory, type StoreChange, StoreClient, type TaskOptions } from './store/client';
import type { TaskMethod } from './store/protocol';
import { reviewPolicyOf } from './trust/review-setting';
import { secretPolicyOf } from './trust/secret-setting';

/** How often the worker looks for writes by other processes (CLI, MCP server). */
const EXTERNAL_POLL_MS = 1000;
/**
 * A worker that stops unexpectedly this many times within CRASH_WINDOW_MS is
 * not started again: a crash that repeats (out of memory on a huge store, a
 * damaged file) would otherwise restart it on every view refresh, forever.
 */
const MAX_CRASHES = 3;
const CRASH_WINDOW_MS = 60_000;
/** The same failure is shown once in this many ms (and logged every time). */
const REPEAT_QUIET_MS = 10_000;

/**
 * What every feature gets: the store (opened on first use, in its worker),
 * who the memories belong to, store-change events and the log. Features take
 * this narrow object, never the composition root.
 */
export interface Services {
  readonly log: vscode.LogOutputChannel;
  /** The store, opened on first use; rejects with a clear error if it cannot be opened. Writes as the person using VS Code. */
  memory(): Promise<RemoteMemory>;
  /** The store as seen by another writer (Copilot through a tool): every commit made through it records `provenance`. */
  memoryAs(provenance: Provenance, model?: AiProvider): Promise<RemoteMemory>;
  /** The store for calls that may ask `model` (recall and the tools' operations, when reasoning is asked for). */
  memoryWithModel(model: AiProvider): Promise<RemoteMemory>;
  /** Runs `work` on the store once it is open: `services.use((memory) => memory.stats())`. */
  use<T>(work: (memory: RemoteMemory) => Promise<T>): Promise<T>;
  /** Runs a long operation in the store's worker, with progress reports and cancellation. */
  task<T, P = unknown>(method: TaskMethod, args: unknown[], options?: TaskOptions<P>): Promise<T>;
  scope(): Scope;
  /** The folder that holds the store. */
  storeDir(): string;
  readonly onDidChangeStore: vscode.Event<StoreChange>;
  /** Shows a failure with a way forward (the log), and logs it. */
  reportError(action: string, error: unknown): void;
}

export class StoreService implements Services, vscode.Disposable {
  private opening: Promise<StoreClient> | undefined;
  private disposed = false;
  /** When the worker last stopped unexpectedly, newest last (within CRASH_WINDOW_MS). */
  private crashes: number[] = [];
  /** Set once the worker crashed MAX_CRASHES times: why the store is not reopened. */
  private givenUp: MemoryError | undefined;
  /** Errors already reported: one that reaches several features (a store that cannot open) is said once. */
  private readonly reported = new WeakSet<object>();
  /** The last failure shown to the user (its action and message), and when. */
  private lastShown: { text: string; at: number } | undefined;
  /** The folder of the store last opened. */
  private openedDir: string | undefined;
  private readonly changes = new vscode.EventEmitter<StoreChange>();
  readonly onDidChangeStore = this.changes.event;
  private readonly disposables: vscode.Disposable[] = [this.changes];

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      // Team memory is read only from a trusted workspace: granting trust opens the store with it.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (this.openedDir !== undefined) void this.reopen();
      }),
      // A relative storePath follows the first workspace folder.
      // Citations resolve against the open folders too, which the store takes when it opens.
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        if (this.openedDir !== undefined) void this.reopen();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        // The user is also the author of every commit, and the review and secret policies are the
        // store's: all are fixed when the store opens, so it reopens for a new one.
        if (
          event.affectsConfiguration(`${SECTION}.storePath`) ||
          event.affectsConfiguration(`${SECTION}.userId`) ||
          event.affectsConfiguration(`${SECTION}.review.agentWrites`) ||
          event.affectsConfiguration(`${SECTION}.secrets`) ||
          event.affectsConfiguration(`${SECTION}.staleness.inRecall`) ||
          event.affectsConfiguration(`${SECTION}.recall.includeConversations`) ||
          event.affectsConfiguration(`${SECTION}.team.folder`)
        ) {
          void this.reopen();
        } else if (event.affectsConfiguration(`${SECTION}.agentId`)) {
          this.changes.fire({ origin: 'local', entityIds: [] });
        }
      }),
    );
  }

  /**
   * The team folder the store keeps in step with (`team.folder` in the first
   * workspace folder), in a trusted workspace only: its files are recalled
   * into prompts, like documents, which Restricted Mode keeps out too.
   */
  private teamFolder(): { teamFolder?: string } {
    const root = vscode.workspace.workspaceFolders?.[0];
    if (!root || root.uri.scheme !== 'file' || !vscode.workspace.isTrusted) return {};
    try {
      return { teamFolder: teamFolderPath(root.uri.fsPath, teamFolderSetting()) };
    } catch (error) {
      this.log.warn(
        `${SECTION}.team.folder: ${error instanceof Error ? error.message : String(error)}; no team memory`,
      );
      return {};
    }
  }

  storeDir(): string {
    return storeDirectory(this.context);
  }

  scope(): Scope {
    return currentScope();
  }

  /** The worker's client itself: for the integration tests and benchmarks (start-up timings, crashes), not for features. */
  client(): Promise<StoreClient> {
    if (this.disposed) {
      return Promise.reject(new MemoryError('STORE_CLOSED', vscode.l10n.t('Workspace Memory is shutting down.')));
    }
    if (this.givenUp) return Promise.reject(this.givenUp);
    if (!this.opening) {
      const attempt = this.open();
      this.opening = attempt;
      attempt.then(
        (client) =>
          client.onDidStop((code) => {
            // A crashed worker is replaced on the next use; nothing else holds on to it.
            if (this.opening !== attempt) return;
            this.opening = undefined;
            this.crashed(`exit code ${code}`);
            this.changes.fire({ origin: 'local', entityIds: [] });
          }),
        (error: unknown) => {
          // Forget the failure so the next use tries again (after the user fixed the setting, say),
          // unless a newer attempt has taken its place meanwhile.
          if (this.opening !== attempt) return;
          this.opening = undefined;
          // A worker that died while opening (out of memory upgrading a huge store, say) is a
          // crash too; a store that refused to open (a bad path) is reported and not counted.
          if (isMemoryError(error, 'STORE_CLOSED')) this.crashed(error.message);
        },
      );
    }
    return this.opening;
  }

  async memory(): Promise<RemoteMemory> {
    return (await this.client()).memory;
  }

  async memoryAs(provenance: Provenance, model?: AiProvider): Promise<RemoteMemory> {
    return (await this.client()).view({ as: provenance, ...(model ? { model } : {}) });
  }

  async memoryWithModel(model: AiProvider): Promise<RemoteMemory> {
    return (await this.client()).view({ model });
  }

  async use<T>(work: (memory: RemoteMemory) => Promise<T>): Promise<T> {
    return work(await this.memory());
  }

  async task<T, P = unknown>(method: TaskMethod, args: unknown[], options?: TaskOptions<P>): Promise<T> {
    return (await this.client()).task<T, P>(method, args, options);
  }

  reportError(action: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.log.error(`${action}: ${message}${isMemoryError(error) ? ` [${error.code}]` : ''}`);
    // Work cut short by shutting down is not the user's problem.
    if (isMemoryError(error, 'CANCELLED') || this.disposed) return;
    // An error that reaches several features at once (a store that cannot open) pops up once.
    if (typeof error === 'object' && error !== null) {
      if (this.reported.has(error)) return;
      this.reported.add(error);
    }
    // The same failure of the same work, repeated (doc sync retried on every
    // file change while the store cannot open, say), is shown once.
    const now = Date.now();
    const shown = `${action}\0${message}`;
    if (this.lastShown?.text === shown && now - this.lastShown.at < REPEAT_QUIET_MS) return;
    this.lastShown = { text: shown, at: now };
    const showLog = vscode.l10n.t('Show Log');
    void vscode.window
      .showErrorMessage(vscode.l10n.t('{0} failed: {1}', action, message), showLog)
      .then((choice) => choice === showLog && this.log.show());
  }

  private async open(): Promise<StoreClient> {
    const dir = this.storeDir();
    this.openedDir = dir;
    const started = performance.now();
    const author = this.scope().userId ?? 'vscode';
    const review = reviewPolicyOf(vscode.workspace.getConfiguration(SECTION).get('review.agentWrites'));
    if (review.ignored.length > 0) {
      this.log.warn(
        `${SECTION}.review.agentWrites: ignored ${review.ignored.join(', ')} (use "default", "queue", "immediate", or queue/immediate for copilot, mcp, mining, consolidation)`,
      );
    }
    const secrets = secretPolicyOf(vscode.workspace.getConfiguration(SECTION).get('secrets'));
    if (secrets.ignored) {
      this.log.warn(`${SECTION}.secrets: ignored ${secrets.ignored} (use "redact", "block" or "allow"); redacting`);
    }
    try {
      const client = await StoreClient.start(this.context.asAbsolutePath('dist/worker.js'), {
        dir,
        options: {
          author,
          writer: { kind: 'user', name: author },
          review: review.policy,
          secrets: secrets.policy,
          workspaceFolders: citationFolders(vscode.workspace.workspaceFolders ?? []),
          staleness: stalenessOf(vscode.workspace.getConfiguration(SECTION).get('staleness.inRecall')),
          recallConversations: vscode.workspace.getConfiguration(SECTION).get('recall.includeConversations') !== false,
          ...this.teamFolder(),
        },
        pollMs: EXTERNAL_POLL_MS,
        compileCacheDir: vscode.Uri.joinPath(this.context.globalStorageUri, 'compile-cache').fsPath,
      });
      client.onDidChange((change) => this.changes.fire(change));
      const { thread, load, open, delivery, compileCache } = client.startup;
      this.log.info(
        `Store open at ${dir} in ${(performance.now() - started).toFixed(0)} ms (thread ${thread}, code ${load}, open ${open}, message ${delivery}; compile cache ${compileCache})`,
      );
      return client;
    } catch (error) {
      // Said here, once per attempt: every feature waiting on the store gets
      // this same error, and reportError shows an error object only once.
      this.reportError(vscode.l10n.t('Opening the memory store at {0}', dir), error);
      throw error;
    }
  }

  private crashed(detail: string): void {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((time) => now - time < CRASH_WINDOW_MS), now];
    if (this.crashes.length < MAX_CRASHES) {
      this.log.error(`The store's worker stopped unexpectedly (${detail}); it restarts on next use.`);
      return;
    }
    this.givenUp = new MemoryError(
      'STORE_CLOSED',
      vscode.l10n.t(
        "The memory store's worker stopped unexpectedly {0} times in a minute (last: {1}), so it is not restarted. Reload the window to try again.",
        MAX_CRASHES,
        detail,
      ),
    );
    this.reportError(vscode.l10n.t('The memory store'), this.givenUp);
  }

  /** Closes the store; the next use opens it again (in another folder, or for another user). */
  private async reopen(): Promise<void> {
    // A new place or user is a new start: earlier crashes no longer count.
    this.crashes = [];
    this.givenUp = undefined;
    const previous = this.opening;
    this.opening = undefined;
    if (previous) await (await previous.catch(() => undefined))?.close();
    this.changes.fire({ origin: 'local', entityIds: [] });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const disposable of this.disposables) disposable.dispose();
    const previous = this.opening;
    this.opening = undefined;
    if (previous) await (await previous.catch(() => undefined))?.close();
  }
}

/** The recall setting for stale memories; anything else keeps the default (mark). */
function stalenessOf(value: unknown): StalenessMode | undefined {
  return STALENESS_MODES.find((mode) => mode === value);
}
