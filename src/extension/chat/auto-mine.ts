import * as vscode from 'vscode';

import { mineSession } from '../../core/ai/mining';
import { withProvenance } from '../../core/provenance';
import { selectLanguageModel } from '../ai/lm-provider';
import { citationFolders } from '../anchors/folders';
import { SECTION, wholeSetting } from '../config';
import type { Services } from '../services';

/**
 * With `workspaceMemory.mining.auto` on, a conversation's session is mined in
 * the background once the conversation has been quiet for
 * `mining.autoDelaySeconds`: what was learned is saved without a `/mine`.
 * Waiting for a pause keeps it to one model call per stretch of talk, not
 * one per turn; repeats are folded into what the store already has.
 */
export class AutoMiner implements vscode.Disposable {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  /** How many messages each session had when it was last mined: a session with no new turn is skipped. */
  private readonly minedAt = new Map<string, number>();
  /** Stops a mining in flight when the extension goes away. */
  private readonly stopped = new AbortController();

  constructor(private readonly services: Services) {}

  /**
   * A turn was stored in `sessionId`; `model` is the one the user chats with.
   * `minedNow`: the turn was a /mine, which mined the session already.
   */
  sessionSaved(sessionId: string, model: vscode.LanguageModelChat, minedNow: boolean): void {
    clearTimeout(this.pending.get(sessionId));
    this.pending.delete(sessionId);
    if (minedNow) {
      void this.turnsOf(sessionId).then((turns) => turns !== undefined && this.minedAt.set(sessionId, turns));
      return;
    }
    if (!autoMining()) return;
    const delaySeconds = wholeSetting('mining.autoDelaySeconds', 60, 1, 3600);
    this.pending.set(
      sessionId,
      setTimeout(() => void this.mine(sessionId, model), delaySeconds * 1000),
    );
  }

  private async turnsOf(sessionId: string): Promise<number | undefined> {
    try {
      const session = await this.services.use((memory) => memory.sessions.get(sessionId));
      return session ? (session.messages?.length ?? 0) : undefined;
    } catch {
      return undefined;
    }
  }

  private async mine(sessionId: string, model: vscode.LanguageModelChat): Promise<void> {
    this.pending.delete(sessionId);
    // Turned off since the turn was stored: what was scheduled is dropped too.
    if (!autoMining() || this.stopped.signal.aborted) return;
    try {
      const turns = await this.turnsOf(sessionId);
      if (turns === undefined || this.minedAt.get(sessionId) === turns) return;
      this.minedAt.set(sessionId, turns);
      const ai = await selectLanguageModel(model);
      // Recorded as mining with the model, in the session it mined (see asWriter in core).
      const writer = { kind: 'mining', model: model.id, tool: 'auto-mining', conversation: sessionId } as const;
      const memory = await this.services.memory();
      const report = await withProvenance(writer, () =>
        mineSession(memory, ai, sessionId, {
          force: true,
          signal: this.stopped.signal,
          // The folders the store resolves citations in: a cited file elsewhere is dropped, the item kept.
          workspaceFolders: citationFolders(vscode.workspace.workspaceFolders ?? []),
        }),
      );
      const saved = report.created.length + report.updated.length;
      this.services.log.info(
        `Auto-mined session ${sessionId}: ${report.created.length} new, ${report.updated.length} updated`,
      );
      if (saved > 0) {
        vscode.window.setStatusBarMessage(
          report.pendingReview > 0
            ? vscode.l10n.t('$(lightbulb) Memory: {0} things learned in the chat wait for your review', saved)
            : vscode.l10n.t('$(lightbulb) Memory: saved {0} things learned in the chat', saved),
          8000,
        );
      }
    } catch (error) {
      // In the background a pop-up per failure would nag; the log says why, and /mine still works by hand.
      this.services.log.warn(`Auto-mining session ${sessionId} failed: ${(error as Error).message}`);
    }
  }

  dispose(): void {
    this.stopped.abort();
    this.pending.forEach((timer) => clearTimeout(timer));
    this.pending.clear();
  }
}

function autoMining(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('mining.auto', false);
}
