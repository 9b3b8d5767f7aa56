import type { SessionMessage } from '../types';

/*
 * A session as the turns its search finds: each message someone said, with
 * who said it and when. System prompts and tool output are the machinery of
 * a conversation, not what was said in it, and are left out; a session
 * saved as plain content is one turn.
 */

/** One turn of a session: its place among the session's messages, its speaker and time. */
export interface SessionTurn {
  /** The message's index in the session's messages (0 for a session of plain content). */
  index: number;
  role: SessionMessage['role'];
  /** The speaker's name where one is given, else the role. */
  speaker: string;
  /** When it was said: the message's time, else the session's start. */
  time?: string;
  text: string;
}

/** What a session holds that its turns come from (a session's body or entity). */
export interface TurnSource {
  content?: unknown;
  messages?: unknown;
  startedAt?: unknown;
}

const SPOKEN: readonly SessionMessage['role'][] = ['user', 'assistant'];

const optionalText = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

export function turnsOf(session: TurnSource): SessionTurn[] {
  const started = optionalText(session.startedAt);
  const messages = Array.isArray(session.messages) ? (session.messages as SessionMessage[]) : [];
  if (messages.length === 0) {
    const text = optionalText(session.content)?.trim();
    return text ? [{ index: 0, role: 'user', speaker: 'user', ...(started ? { time: started } : {}), text }] : [];
  }
  return messages.flatMap((message, index) => {
    if (!SPOKEN.includes(message.role) || !message.content?.trim()) return [];
    const time = optionalText(message.timestamp) ?? started;
    return [
      {
        index,
        role: message.role,
        speaker: optionalText(message.name) ?? message.role,
        ...(time ? { time } : {}),
        text: message.content,
      },
    ];
  });
}
