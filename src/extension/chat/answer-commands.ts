/**
 * /ask and a prompt without a command: answers from the workspace's
 * documents and memory with the chat's model, streamed, citing its sources.
 */
import * as vscode from 'vscode';

import type { ChatMessage } from '../../core/ai/provider';
import { type RecallItem, recallSources } from '../../core/recall/recall';
import { quoteEntity, STORED_DATA_NOTICE } from '../../core/trust/framing';
import { LanguageModelProvider } from '../ai/lm-provider';
import { reasoningNote } from '../ai/reasoning';
import { type CommandContext, type CommandHandler, missingPrompt } from './command';
import { historyMessages } from './conversation';
import { recallForRequest } from './recall-request';

/** Document chunks /ask reads. */
const ASK_CHUNKS = 6;
/** Earlier turns sent along, so a follow-up question ("and on Windows?") makes sense. */
const HISTORY_TURNS = 6;

const ASK_INSTRUCTIONS =
  'You answer questions about this workspace using only the numbered sources given (document excerpts and saved memories). Cite every claim with its source number and where it comes from, like [2] docs/setup.md:14 or [3] memory-abc123. If the sources do not contain the answer, say so plainly and suggest what to look for; never guess.';

const RECALL_INSTRUCTIONS =
  "You are Workspace Memory, the user's long-term memory for this workspace. Answer from the memory context given (the user's profile, saved memories, skills, document knowledge and turns of past conversations); cite the ids or paths you used, like [memory-abc123] or [docs/setup.md:14]. If the memory holds nothing relevant, say so and suggest saving the answer with /remember once it is known.";

/** A source as the model sees it: its number and where it lives, then its content quoted as data (see trust/framing.ts). */
function sourceLine(index: number, item: RecallItem): string {
  return quoteEntity(item.entity, { lead: `[${index}]`, provenance: item.provenance });
}

/** The conversation so far, cut to its last turns, as model messages. */
function earlierTurns(context: CommandContext): ChatMessage[] {
  return historyMessages(context.chat)
    .slice(-HISTORY_TURNS * 2)
    .map((message) => ({ role: message.role === 'user' ? 'user' : 'assistant', content: message.content }));
}

/** Streams the model's answer into the reply. */
async function streamAnswer(context: CommandContext, messages: ChatMessage[]): Promise<void> {
  const model = new LanguageModelProvider(context.request.model);
  context.reply.progress(vscode.l10n.t('Asking {0}…', model.label));
  await model.stream(messages, { signal: context.signal, onText: (text) => context.reply.markdown(text) });
}

/** /ask <question>: document chunks (rag) and memories and skills (recall) as numbered sources. */
export const ask: CommandHandler = async (context) => {
  if (missingPrompt(context, vscode.l10n.t('Ask a question about this workspace, e.g. `/ask how do we deploy?`.')))
    return;
  const { services, reply, request } = context;
  reply.progress(vscode.l10n.t('Reading the documents and memory…'));
  const memory = await services.memory();
  const { agentId } = services.scope();
  const [documents, recalled] = await Promise.all([
    memory.rag.query(agentId, request.prompt, { limit: ASK_CHUNKS }),
    recallForRequest(context, { collections: ['memories', 'skills'] }),
  ]);
  const note = reasoningNote(recalled.reasoning);
  if (note) reply.progress(note);
  const sources: RecallItem[] = [
    ...documents.chunks.map((chunk): RecallItem => ({
      collection: 'knowledge',
      entity: chunk.entity,
      score: chunk.score,
    })),
    ...recalled.items,
  ];
  for (const source of sources) reply.reference(source.entity);
  if (sources.length === 0) {
    reply.markdown(
      vscode.l10n.t(
        'Neither the workspace documents nor the memory have anything on this. Sync the documents (**Memory: Sync Workspace Docs Now**) or save what you know with `/remember`.',
      ),
    );
    return;
  }
  const numbered = sources.map((source, index) => sourceLine(index + 1, source)).join('\n\n');
  await streamAnswer(context, [
    { role: 'system', content: ASK_INSTRUCTIONS },
    ...earlierTurns(context),
    { role: 'user', content: `Sources:\n\n${STORED_DATA_NOTICE}\n\n${numbered}\n\nQuestion: ${request.prompt}` },
  ]);
};

/** A prompt without a command: answered from recall (profile, memories, skills, knowledge). */
export const answerFromRecall: CommandHandler = async (context) => {
  if (missingPrompt(context, vscode.l10n.t('Ask me about this workspace, or type `/` to see what I can do.'))) return;
  const { reply, request } = context;
  reply.progress(vscode.l10n.t('Recalling…'));
  const recalled = await recallForRequest(context);
  const note = reasoningNote(recalled.reasoning);
  if (note) reply.progress(note);
  for (const source of recallSources(recalled)) reply.reference(source);
  const memoryContext = recalled.formatted || 'The memory holds nothing relevant to this request.';
  await streamAnswer(context, [
    { role: 'system', content: RECALL_INSTRUCTIONS },
    ...earlierTurns(context),
    { role: 'user', content: `Memory context:\n\n${memoryContext}\n\nRequest: ${request.prompt}` },
  ]);
};
