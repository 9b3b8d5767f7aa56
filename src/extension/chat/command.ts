/** What each @memory command handler gets, and what it may hand back for the reply's metadata. */
import type * as vscode from 'vscode';

import type { ConsolidationPlan } from '../../core/ai/consolidation';
import type { Services } from '../services';
import type { ConversationLog, SavedEntities } from './conversation';
import type { Reply } from './reply';

export interface CommandContext {
  services: Services;
  request: vscode.ChatRequest;
  chat: vscode.ChatContext;
  reply: Reply;
  /** Aborted when the user stops the request. */
  signal: AbortSignal;
  conversation: { conversationId: string; sessionId?: string };
  log: ConversationLog;
}

export interface CommandOutcome {
  /** What the command wrote, offered for undo. */
  saved?: SavedEntities;
  /** A plan shown for the user to apply. */
  plan?: ConsolidationPlan;
}

export type CommandHandler = (context: CommandContext) => Promise<CommandOutcome | void>;

/** Says how to use a command that needs text after it; true when the prompt is empty. */
export function missingPrompt(context: CommandContext, usage: string): boolean {
  if (context.request.prompt.trim()) return false;
  context.reply.markdown(usage);
  return true;
}
