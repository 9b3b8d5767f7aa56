/**
 * Each @memory conversation is stored as one session entity, one message per
 * turn, so what was said can be mined later. The chat API gives no stable
 * conversation id, so the first turn makes one and every reply carries it in
 * its result metadata, which the next turns find in their history.
 */
import { createHash } from 'node:crypto';

import * as vscode from 'vscode';

import type { ConsolidationPlan } from '../../core/ai/consolidation';
import type { EntityType, SessionEntity, SessionMessage } from '../../core/types';
import type { Services } from '../services';

/** What every @memory reply keeps in its ChatResult.metadata. */
export interface ChatMetadata {
  conversationId: string;
  /** The session the conversation is stored in, once it is. */
  sessionId?: string;
  command?: string;
  /** The prompt, for follow-ups. */
  prompt: string;
  /** What the reply saved, for its undo button (and tests). */
  saved?: SavedEntities;
  /** The sources the reply cited (see Reply.cited). */
  cited?: string[];
  /** The consolidation plan the reply offered to apply. */
  plan?: ConsolidationPlan;
}

/** Entities a reply wrote: created ones are deleted to undo, updated ones go back to `previousCommit`. */
export interface SavedEntities {
  created: { type: 'memory' | 'skill' | 'profile'; id: string }[];
  /** Updated entities, with the commit they had before: a version restored in History is one too. */
  updated: { type: EntityType; id: string; previousCommit: string | null }[];
  /** Memories a saved correction retired: Undo reinstates them. */
  superseded?: string[];
}

function metadataOf(turn: vscode.ChatRequestTurn | vscode.ChatResponseTurn): Partial<ChatMetadata> | undefined {
  return turn instanceof vscode.ChatResponseTurn ? turn.result.metadata : undefined;
}

/** The conversation's id and session, as earlier replies recorded them; a new id on the first turn. */
export function identifyConversation(
  context: vscode.ChatContext,
  prompt: string,
): { conversationId: string; sessionId?: string } {
  let found: { conversationId: string; sessionId?: string } | undefined;
  for (const turn of context.history) {
    const metadata = metadataOf(turn);
    if (typeof metadata?.conversationId !== 'string') continue;
    // The latest reply knows the session best (an earlier one may predate it).
    found = {
      conversationId: metadata.conversationId,
      ...(metadata.sessionId ? { sessionId: metadata.sessionId } : {}),
    };
  }
  if (found) return found;
  const digest = createHash('sha256').update(`${prompt}\u0000${Date.now()}\u0000${Math.random()}`).digest('hex');
  return { conversationId: `chat-${digest.slice(0, 16)}` };
}

/** A request as the user typed it, with its command. */
export function requestText(command: string | undefined, prompt: string): string {
  return command ? `/${command} ${prompt}`.trim() : prompt;
}

/** The text of a reply: its Markdown, and the titles of its links and buttons. */
function responseText(turn: vscode.ChatResponseTurn): string {
  return turn.response
    .map((part) => {
      if (part instanceof vscode.ChatResponseMarkdownPart) return part.value.value;
      if (part instanceof vscode.ChatResponseAnchorPart) return part.title ?? '';
      if (part instanceof vscode.ChatResponseCommandButtonPart) return `\n[${part.value.title}]\n`;
      return '';
    })
    .join('')
    .trim();
}

/** The conversation so far as session messages, oldest first. */
export function historyMessages(context: vscode.ChatContext): SessionMessage[] {
  return context.history.flatMap((turn): SessionMessage[] =>
    turn instanceof vscode.ChatRequestTurn
      ? [{ role: 'user', content: requestText(turn.command, turn.prompt) }]
      : [{ role: 'assistant', content: responseText(turn) }],
  );
}

/** Stores conversations in the store's sessions, in the workspace's scope. */
export class ConversationLog {
  constructor(private readonly services: Services) {}

  /** The conversation's session, if it was stored: by id, else by conversation id. */
  private async find(conversationId: string, sessionId?: string): Promise<SessionEntity | undefined> {
    const memory = await this.services.memory();
    const { agentId, userId } = this.services.scope();
    if (sessionId) {
      const session = await memory.sessions.get(sessionId);
      // After the agent or user setting changed, the conversation goes on in a session of the new scope.
      if (session && session.agentId === agentId && session.userId === userId) return session;
    }
    const [first] = await memory.sessions.listByConversation(agentId, userId, conversationId);
    return first;
  }

  /**
   * Makes the session hold the whole conversation so far, then `turn`: the
   * history VS Code keeps is the reference, so a session that missed turns (a
   * failed write, a conversation begun before this version) is filled in.
   */
  private async write(
    context: vscode.ChatContext,
    ids: { conversationId: string; sessionId?: string },
    turn: SessionMessage[],
  ): Promise<SessionEntity> {
    const memory = await this.services.memory();
    const history = historyMessages(context);
    const now = new Date().toISOString();
    const session = await this.find(ids.conversationId, ids.sessionId);
    if (!session) {
      const { agentId, userId } = this.services.scope();
      const [saved] = await memory.sessions.save(agentId, userId, {
        conversationId: ids.conversationId,
        messages: [...history, ...turn],
        startedAt: now,
        endedAt: now,
      });
      return saved;
    }
    const stored = session.messages ?? [];
    if (turn.length === 0 && stored.length >= history.length) return session;
    const messages = [...(stored.length >= history.length ? stored : history), ...turn];
    const [updated] = await memory.sessions.update(session.id, { messages, endedAt: now });
    return updated;
  }

  /** Stores the conversation so far (not yet the current request) in its session, for mining. */
  storeHistory(
    context: vscode.ChatContext,
    ids: { conversationId: string; sessionId?: string },
  ): Promise<SessionEntity> {
    return this.write(context, ids, []);
  }

  /** Appends one turn (the request and the reply) to the conversation's session; returns its id. */
  async append(
    context: vscode.ChatContext,
    ids: { conversationId: string; sessionId?: string },
    turn: { request: string; reply: string },
  ): Promise<string> {
    const timestamp = new Date().toISOString();
    const session = await this.write(context, ids, [
      { role: 'user', content: turn.request, timestamp },
      { role: 'assistant', content: turn.reply, timestamp },
    ]);
    return session.id;
  }
}
