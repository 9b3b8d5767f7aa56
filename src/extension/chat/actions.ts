/**
 * The commands behind the buttons of @memory replies. They are hidden from
 * the Command Palette: each takes what its reply put in the button.
 */
import * as vscode from 'vscode';

import { applyConsolidationPlan, type ConsolidationPlan } from '../../core/ai/consolidation';
import { COMMANDS } from '../commands/ids';
import { restorableFields } from '../documents/format';
import type { Services } from '../services';
import { collectionOf } from '../store/collections';
import type { SavedEntities } from './conversation';

/**
 * Deletes what a reply created and puts back what it updated, but only
 * where that save is still the entity's latest change: an Undo clicked long
 * after must not throw away edits made since. Returns how many entities it
 * changed.
 */
export async function undoSaved(services: Services, saved: SavedEntities): Promise<number> {
  const memory = await services.memory();
  let undone = 0;
  for (const { type, id } of saved.created) {
    const history = await memory.history(id);
    // Deleted by hand, or edited since it was saved: left as it is.
    if (history.length !== 1 || !history[0]!.entity) continue;
    await collectionOf(memory, type).delete(id);
    undone++;
  }
  for (const { type, id, previousCommit } of saved.updated) {
    const [latest] = await memory.history(id);
    if (!previousCommit || !latest?.entity || latest.commit.parent !== previousCommit) continue;
    const before = await memory.worker.entityAt(id, previousCommit);
    if (!before?.entity) continue;
    await collectionOf(memory, type).update(id, restorableFields(before.entity));
    undone++;
  }
  for (const id of saved.superseded ?? []) {
    // Put back by hand since, or retired by another correction: left as it is.
    const [latest] = await memory.history(id);
    if (latest?.commit.op !== 'supersede') continue;
    await memory.memories.reinstate(id);
    undone++;
  }
  return undone;
}

export function registerChatActions(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(COMMANDS.undoChatSave, async (saved: SavedEntities) => {
      try {
        const undone = await undoSaved(services, saved);
        void vscode.window.showInformationMessage(
          undone === 1
            ? vscode.l10n.t('Undone: 1 entity put back as it was.')
            : undone
              ? vscode.l10n.t('Undone: {0} entities put back as they were.', undone)
              : vscode.l10n.t(
                  'Nothing to undo: those entities were changed or deleted since, so they were left as they are.',
                ),
        );
        return undone;
      } catch (error) {
        services.reportError(vscode.l10n.t('Undoing the save'), error);
        return undefined;
      }
    }),
    vscode.commands.registerCommand(COMMANDS.applyConsolidationPlan, async (plan: ConsolidationPlan) => {
      try {
        // The person read this plan in the chat and chose to apply it: that is the review.
        const report = await applyConsolidationPlan(await services.memory(), plan, { reviewed: true });
        void vscode.window.showInformationMessage(
          vscode.l10n.t(
            'Consolidation applied: {0} merged, {1} deleted, {2} not applied.',
            report.merged.length,
            report.deleted.length,
            report.notApplied.length,
          ),
        );
        return report;
      } catch (error) {
        services.reportError(vscode.l10n.t('Applying the consolidation'), error);
        return undefined;
      }
    }),
  );
}
