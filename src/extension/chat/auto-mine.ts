import * as vscode from 'vscode';
import { mineSession } from '../../core/ai/mining';
import { SECTION } from '../config';
import { selectLanguageModel } from '../ai/lm-provider';
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
  /** How many messages each session had when it was last mined here: a session with no new turn is skipped. */
  private readonly minedAt = new Map<string, number>();

  constructor(private readonly services: Services) {}

  /** A turn was stored in `sessionId`; `model` is the one the user chats with. */
  sessionSaved(sessionId: string, model: vscode.LanguageModelChat): void {
    const config = vscode.workspace.getConfiguration(SECTION);
    if (!config.get<boolean>('mining.auto', false)) return;
    const delayMs = Math.max(1, config.get<number>('mining.autoDelaySeconds', 60)) * 1000;
    clearTimeout(this.pending.get(sessionId));
    this.pending.set(
      sessionId,
      setTimeout(() => void this.mine(sessionId, model), delayMs),
    );
  }

  private async mine(sessionId: string, model: vscode.LanguageModelChat): Promise<void> {
    this.pending.delete(sessionId);
    try {
      const session = await (await this.services.memory()).sessions.get(sessionId);
      const turns = session?.messages?.length ?? 0;
      if (!session || this.minedAt.get(sessionId) === turns) return;
      this.minedAt.set(sessionId, turns);
      const ai = await selectLanguageModel(model);
      const report = await mineSession(await this.services.memory(), ai, sessionId, { force: true });
      const saved = report.created.length + report.updated.length;
      this.services.log.info(
        `Auto-mined session ${sessionId}: ${report.created.length} new, ${report.updated.length} updated`,
      );
      if (saved > 0) {
        vscode.window.setStatusBarMessage(
          vscode.l10n.t('$(lightbulb) Memory: saved {0} things learned in the chat', saved),
          8000,
        );
      }
    } catch (error) {
      // In the background a pop-up per failure would nag; the log says why, and /mine still works by hand.
      this.services.log.warn(`Auto-mining session ${sessionId} failed: ${(error as Error).message}`);
    }
  }

  dispose(): void {
    this.pending.forEach((timer) => clearTimeout(timer));
    this.pending.clear();
  }
}
