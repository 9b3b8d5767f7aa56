/**
 * The @memory chat participant (declared in package.json as
 * workspaceMemory.memory): routes each command to its handler, turns
 * failures into a message with a way forward, offers follow-ups and stores
 * the conversation as a session.
 */
import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import { type Provenance, withProvenance } from '../../core/provenance';
import { oneLine } from '../../core/text';
import { COMMANDS } from '../commands/ids';
import type { Services } from '../services';
import { registerChatActions } from './actions';
import { consolidateCommand, mine } from './ai-commands';
import { answerFromRecall, ask } from './answer-commands';
import { AutoMiner } from './auto-mine';
import type { CommandHandler } from './command';
import { type ChatMetadata, ConversationLog, identifyConversation, requestText } from './conversation';
import { forget, history, remember, snapshot } from './memory-commands';
import { Reply } from './reply';
import { recallCommand, searchCommand } from './search-commands';
import { share } from './team-commands';

export const PARTICIPANT_ID = 'workspaceMemory.memory';

/** One handler per command of the participant's contribution. */
const SLASH_COMMANDS: Readonly<Record<string, CommandHandler>> = {
  remember,
  recall: recallCommand,
  search: searchCommand,
  forget,
  share,
  history,
  snapshot,
  ask,
  mine,
  consolidate: consolidateCommand,
};

/** What the user can do next after a failure, by error code. */
function wayForward(error: unknown): string {
  if (!isMemoryError(error)) return vscode.l10n.t('The log has the details.');
  switch (error.code) {
    case 'AI_UNAVAILABLE':
      return vscode.l10n.t('Pick another model in the chat’s model picker, or set `workspaceMemory.ai.model`.');
    case 'AI_INVALID_OUTPUT':
      return vscode.l10n.t('Try again, or pick a more capable model in the chat’s model picker.');
    case 'NOT_FOUND':
    case 'INVALID_INPUT':
    case 'INVALID_ID':
    case 'CONTENT_TOO_LARGE':
    case 'TOO_MANY_TAGS':
      return vscode.l10n.t('Check the text after the command and try again.');
    case 'STORE_BUSY':
      return vscode.l10n.t('Another process is writing to the store: try again in a moment.');
    case 'STORE_FULL':
      return vscode.l10n.t('Free some space on the disk that holds the store, then try again.');
    default:
      return vscode.l10n.t('The log has the details.');
  }
}

function showFailure(services: Services, reply: Reply, command: string | undefined, error: unknown): void {
  if (isMemoryError(error, 'CANCELLED')) {
    reply.markdown(vscode.l10n.t('Stopped.'));
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  services.log.error(`@memory ${command ? `/${command}` : ''} failed: ${message}`);
  reply.markdown(`\n\n**${vscode.l10n.t('That did not work:')}** ${message}\n\n${wayForward(error)}`);
  reply.button({ command: COMMANDS.showLog, title: vscode.l10n.t('Show Log') });
}

async function handle(
  services: Services,
  log: ConversationLog,
  autoMiner: AutoMiner,
  request: vscode.ChatRequest,
  chat: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const reply = new Reply(stream);
  const conversation = identifyConversation(chat, request.prompt);
  const metadata: ChatMetadata = { ...conversation, prompt: request.prompt, command: request.command };
  const controller = new AbortController();
  const cancelled = token.onCancellationRequested(() => controller.abort());
  let failed = false;
  try {
    const handler = request.command ? SLASH_COMMANDS[request.command] : answerFromRecall;
    if (handler) {
      // Every write this turn makes records the chat's model, the command and the conversation.
      const outcome = await withProvenance(turnWriter(services, request, chat, conversation.conversationId), () =>
        handler({ services, request, chat, reply, signal: controller.signal, conversation, log }),
      );
      Object.assign(metadata, outcome ?? {});
    } else {
      reply.markdown(vscode.l10n.t('There is no /{0} command. Type `/` to see what @memory can do.', request.command!));
    }
  } catch (error) {
    failed = true;
    showFailure(services, reply, request.command, error);
  } finally {
    cancelled.dispose();
    metadata.cited = reply.cited();
  }
  // A stopped reply is not worth keeping, and its stream is closed.
  if (token.isCancellationRequested) return { metadata };
  try {
    metadata.sessionId = await log.append(chat, conversation, {
      request: requestText(request.command, request.prompt),
      reply: reply.text(),
    });
    // A /mine that worked has just mined the session; one that failed has not.
    autoMiner.sessionSaved(metadata.sessionId, request.model, request.command === 'mine' && !failed);
  } catch (error) {
    services.log.warn(`@memory: could not store the conversation: ${(error as Error).message}`);
    reply.markdown(
      `\n\n_${vscode.l10n.t('This turn could not be stored in the conversation’s session: {0}', (error as Error).message)}_`,
    );
  }
  return { metadata };
}

/** Who writes in an @memory turn: the person, through the chat's model and this command, in this conversation. */
function turnWriter(
  services: Services,
  request: vscode.ChatRequest,
  chat: vscode.ChatContext,
  conversationId: string,
): Provenance {
  const first = chat.history.find((turn) => turn instanceof vscode.ChatRequestTurn);
  const opening = first instanceof vscode.ChatRequestTurn ? first.prompt : request.prompt;
  return {
    kind: 'user',
    name: services.scope().userId,
    model: request.model.id,
    tool: `@memory ${request.command ? `/${request.command}` : 'ask'}`,
    conversation: conversationId,
    conversationTitle: oneLine(opening, 60),
  };
}

/** Suggests the natural next step after each kind of reply. */
function followups(result: vscode.ChatResult): vscode.ChatFollowup[] {
  const metadata = result.metadata as Partial<ChatMetadata> | undefined;
  const prompt = metadata?.prompt?.trim() ?? '';
  switch (metadata?.command) {
    case 'remember':
      return [{ prompt, command: 'recall', label: vscode.l10n.t('Recall what is related') }];
    case 'search':
    case 'recall':
      return prompt ? [{ prompt, command: 'ask', label: vscode.l10n.t('Ask about “{0}”', prompt) }] : [];
    case 'mine':
      return [{ prompt: '', command: 'consolidate', label: vscode.l10n.t('Tidy up duplicate memories') }];
    case 'ask':
    case undefined:
      return [{ prompt: '', command: 'mine', label: vscode.l10n.t('Save what we learned here') }];
    default:
      return [];
  }
}

/** Registers @memory and the commands behind its reply buttons. */
export function registerChatParticipant(context: vscode.ExtensionContext, services: Services): void {
  const log = new ConversationLog(services);
  const autoMiner = new AutoMiner(services);
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, chat, stream, token) =>
    handle(services, log, autoMiner, request, chat, stream, token),
  );
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.png');
  participant.followupProvider = { provideFollowups: (result) => followups(result) };
  context.subscriptions.push(participant, autoMiner);
  registerChatActions(context, services);
}
