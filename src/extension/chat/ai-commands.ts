/**
 * /mine and /consolidate: the core's AI pipelines run with a vscode.lm model
 * (the chat's, unless the ai.model setting names one). The store calls go to
 * the worker; the model calls stay in the extension host.
 */
import * as vscode from 'vscode';

import { type ConsolidationPlan, type ConsolidationTarget, planConsolidation } from '../../core/ai/consolidation';
import { mineSession, type MiningReport } from '../../core/ai/mining';
import { oneLine } from '../../core/text';
import { selectLanguageModel } from '../ai/lm-provider';
import { citationFolders } from '../anchors/folders';
import { COMMANDS } from '../commands/ids';
import type { CommandHandler, CommandOutcome } from './command';
import type { SavedEntities } from './conversation';
import { escape, type Reply } from './reply';

/** Words the /consolidate prompt may start with, and the collection each names. */
const TARGET_WORDS: Record<string, ConsolidationTarget> = {
  memory: 'memory',
  memories: 'memory',
  skill: 'skill',
  skills: 'skill',
  knowledge: 'knowledge',
  docs: 'knowledge',
};

function reportMining(reply: Reply, report: MiningReport): void {
  const { created, updated, skipped } = report;
  if (created.length + updated.length === 0) {
    reply.markdown(vscode.l10n.t('Nothing new to save from this conversation.'));
  } else {
    reply.markdown(
      report.pendingReview > 0
        ? vscode.l10n.t(
            '**Found in this conversation, waiting for your review** (Pending Review in the Memory view; nothing is used until you approve it):\n\n',
          )
        : vscode.l10n.t('**Saved from this conversation:**\n\n'),
    );
    for (const item of [...created, ...updated]) {
      const verb = created.includes(item) ? vscode.l10n.t('new') : vscode.l10n.t('updated');
      reply.markdown(`- ${item.type} (${verb}) `);
      reply.anchor(item, item.id);
      reply.markdown(`: ${escape(oneLine(item.content, 200))}\n`);
      reply.reference(item);
    }
  }
  if (report.droppedCitations > 0) {
    reply.markdown(
      `\n\n${vscode.l10n.t('{0} citation(s) the model gave were left out: they name no lines of a file in the workspace.', report.droppedCitations)}`,
    );
  }
  if (skipped.length) {
    reply.markdown(`\n\n${vscode.l10n.t('Left out:')}\n\n`);
    for (const skip of skipped) {
      const what = skip.content ? `“${escape(oneLine(skip.content, 80))}”` : skip.kind;
      reply.markdown(`- ${what}: ${escape(skip.reason)}\n`);
    }
  }
}

/** /mine: stores this conversation as a session, then extracts memories, skills and profile facts from it. */
export const mine: CommandHandler = async (context): Promise<CommandOutcome | void> => {
  const { services, reply, chat, conversation, log, signal, request } = context;
  if (chat.history.length === 0) {
    reply.markdown(
      vscode.l10n.t(
        'There is nothing to mine yet: this conversation starts here. Talk with @memory first, then `/mine` what was learned.',
      ),
    );
    return;
  }
  const ai = await selectLanguageModel(request.model);
  reply.progress(vscode.l10n.t('Storing the conversation…'));
  const session = await log.storeHistory(chat, conversation);
  reply.progress(vscode.l10n.t('Mining the conversation with {0}…', ai.label));
  // A conversation goes on after a first /mine: mine it again, the store folds repeats into what it has.
  const report = await mineSession(await services.memory(), ai, session.id, {
    force: true,
    signal,
    workspaceFolders: citationFolders(vscode.workspace.workspaceFolders ?? []),
    onProgress: ({ done, total }) => reply.progress(vscode.l10n.t('Mining: {0} of {1} parts read…', done, total)),
  });
  reportMining(reply, report);
  if (!report.created.length && !report.updated.length) return;
  const saved: SavedEntities = {
    created: report.created.map(({ type, id }) => ({ type, id })),
    updated: report.updated.map(({ type, id, previousCommit }) => ({ type, id, previousCommit })),
  };
  // Held for review, rejecting them there is the undo; saved outright, Undo puts things back.
  if (report.pendingReview > 0) {
    reply.button({ command: 'workspaceMemory.collections.focus', title: vscode.l10n.t('Review them') });
  } else reply.button({ command: COMMANDS.undoChatSave, title: vscode.l10n.t('Undo'), arguments: [saved] });
  return { saved };
};

function showPlan(reply: Reply, plan: ConsolidationPlan): void {
  reply.markdown(
    vscode.l10n.t(
      '**Consolidation plan for {0}** ({1} reviewed); nothing is changed until you apply it.\n\n',
      plan.target,
      plan.reviewed,
    ),
  );
  for (const merge of plan.merges) {
    reply.markdown(`- ${vscode.l10n.t('merge')} `);
    merge.ids.forEach((id, index) => {
      reply.anchor({ type: plan.target, id }, id);
      reply.markdown(index < merge.ids.length - 1 ? ' + ' : '');
    });
    reply.markdown(` → “${escape(oneLine(merge.content, 160))}”  \n  _${escape(merge.reason)}_\n`);
  }
  for (const deletion of plan.deletions) {
    reply.markdown(`- ${vscode.l10n.t('delete')} `);
    reply.anchor({ type: plan.target, id: deletion.id }, deletion.id);
    reply.markdown(`: “${escape(oneLine(deletion.content, 160))}”  \n  _${escape(deletion.reason)}_\n`);
  }
  for (const rejected of plan.rejected) {
    reply.markdown(
      `- ${vscode.l10n.t('refused {0} of {1}: {2}', rejected.action, rejected.ids.join(', '), escape(rejected.reason))}\n`,
    );
  }
  if (plan.documentChunks) {
    reply.markdown(
      `\n${vscode.l10n.t('{0} chunks of synced documents were left alone (sync keeps them).', plan.documentChunks)}\n`,
    );
  }
}

/** /consolidate [memory|skill|knowledge]: the model's plan to merge duplicates and drop outdated entries, applied only on a click. */
export const consolidateCommand: CommandHandler = async (context): Promise<CommandOutcome | void> => {
  const { services, reply, request, signal } = context;
  const word = request.prompt.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const target = Object.hasOwn(TARGET_WORDS, word) ? TARGET_WORDS[word]! : 'memory';
  const ai = await selectLanguageModel(request.model);
  const { agentId, userId } = services.scope();
  reply.progress(vscode.l10n.t('Reviewing {0} entries with {1}…', target, ai.label));
  const plan = await planConsolidation(await services.memory(), ai, {
    target,
    agentId,
    ...(userId === undefined ? {} : { userId }),
    signal,
    onProgress: ({ done, total }) => reply.progress(vscode.l10n.t('Reviewed {0} of {1} batches…', done, total)),
  });
  if (plan.merges.length + plan.deletions.length === 0) {
    reply.markdown(
      vscode.l10n.t(
        'Nothing to consolidate: {0} {1} entries reviewed, no duplicates or outdated ones found.',
        plan.reviewed,
        target,
      ),
    );
    if (plan.rejected.length) showPlan(reply, plan);
    return;
  }
  showPlan(reply, plan);
  reply.button({ command: COMMANDS.applyConsolidationPlan, title: vscode.l10n.t('Apply the plan'), arguments: [plan] });
  return { plan };
};
