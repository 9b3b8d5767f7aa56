/** /recall and /search: what the memory holds about the prompt, read-only. */
import * as vscode from 'vscode';

import { isFoundTurn } from '../../core/collections/search-all';
import { recallSources } from '../../core/recall/recall';
import { oneLine } from '../../core/text';
import type { Entity } from '../../core/types';
import { reasoningNote } from '../ai/reasoning';
import { type CommandHandler, missingPrompt } from './command';
import { recallForRequest } from './recall-request';
import { escape } from './reply';

const SEARCH_LIMIT = 10;

/** /recall <topic>: the context an agent would get for the topic, with each item cited. */
export const recallCommand: CommandHandler = async (context) => {
  if (missingPrompt(context, vscode.l10n.t('Give a topic to recall, e.g. `/recall deploying the api`.'))) return;
  const { reply, request } = context;
  reply.progress(vscode.l10n.t('Recalling…'));
  const result = await recallForRequest(context);
  const note = reasoningNote(result.reasoning);
  const leftOut = result.leftOut
    ? ' ' +
      vscode.l10n.t('{0} more matching items did not fit the budget (workspaceMemory.recall.maxChars).', result.leftOut)
    : '';
  if (!result.formatted) {
    reply.markdown(
      (result.leftOut ? vscode.l10n.t('Nothing fitted the budget.') : '') ||
        vscode.l10n.t(
          'Nothing in memory is relevant to "{0}". Save something with `/remember`, or sync documents.',
          oneLine(request.prompt, 80),
        ),
    );
    reply.markdown(leftOut);
    if (note) reply.markdown(`\n\n_${note}_`);
    return;
  }
  for (const source of recallSources(result)) reply.reference(source);
  reply.markdown(result.formatted);
  reply.markdown(
    `\n\n_${vscode.l10n.t('{0} items, about {1} tokens.', result.items.length + result.turns.length, result.tokens)}${leftOut}${note ? ` ${note}` : ''}_`,
  );
};

function kindOf(entity: Entity): string {
  if (entity.type === 'knowledge') return entity.source ? vscode.l10n.t('document') : vscode.l10n.t('knowledge');
  return 'category' in entity ? `${entity.type} · ${entity.category}` : entity.type;
}

/** /search <words>: memories, skills, document chunks and turns of past conversations, best first, each linked to where it lives. */
export const searchCommand: CommandHandler = async (context) => {
  if (missingPrompt(context, vscode.l10n.t('Give words to search for, e.g. `/search docker compose`.'))) return;
  const { services, reply, request } = context;
  reply.progress(vscode.l10n.t('Searching…'));
  const { agentId, userId } = services.scope();
  const results = await services.use((memory) =>
    memory.worker.searchAll(agentId, userId, request.prompt, SEARCH_LIMIT),
  );
  if (results.length === 0) {
    reply.markdown(vscode.l10n.t('Nothing matches "{0}".', oneLine(request.prompt, 80)));
    return;
  }
  reply.markdown(vscode.l10n.t('**{0} results** for "{1}":\n\n', results.length, escape(oneLine(request.prompt, 80))));
  for (const found of results) {
    if (isFoundTurn(found)) {
      const { session, turn } = found.turn;
      const where = { type: 'session' as const, id: session.id };
      const when = turn.time ?? session.startedAt;
      reply.markdown('- ');
      reply.anchor(where, session.conversationId ?? session.id);
      reply.markdown(
        ` · ${[vscode.l10n.t('conversation'), when?.slice(0, 16).replace('T', ' '), found.score.toFixed(2)].filter(Boolean).join(' · ')}\n  ${escape(oneLine(`${turn.speaker}: ${turn.text}`, 200))}\n`,
      );
      reply.reference(where);
      continue;
    }
    const { entity, score, copies } = found;
    const title =
      entity.type === 'knowledge' && entity.source ? `${entity.source}:${entity.startLine ?? 1}` : entity.id;
    const also = copies?.length
      ? ` · ${escape(vscode.l10n.t('also in {0}', copies.slice(0, 3).join(', ') + (copies.length > 3 ? ' …' : '')))}`
      : '';
    reply.markdown('- ');
    reply.anchor(entity, title);
    reply.markdown(` · ${kindOf(entity)} · ${score.toFixed(2)}${also}\n  ${escape(oneLine(entity.content, 200))}\n`);
    reply.reference(entity);
  }
};
