import type { TurnHit } from '../collections/sessions';
import { INSTRUCTION_WARNING, quoteBlock, quoteInline } from '../trust/framing';
import { looksLikeInstruction } from '../trust/instructions';

/** How much of a turn is shown: a turn is usually short; a pasted log is not. */
const MAX_TURN_SHOWN = 1_000;

/**
 * A turn of a past conversation as a model reads it: who said it, where and
 * when, then the words quoted as data (see trust/framing.ts), as search and
 * recall both give it.
 */
export function quoteTurn(hit: TurnHit, options: { score?: boolean } = {}): string {
  const { session, turn } = hit;
  // The speaker's name and the conversation's id are stored text too: quoted on the line, never bare.
  const where = [
    session.conversationId ? `conversation ${quoteInline(session.conversationId, 80)}` : undefined,
    `session ${session.id}`,
    `turn ${turn.index}`,
    turn.time,
    hit.inQueryTime ? 'within the time asked about' : undefined,
  ].filter(Boolean);
  const words = turn.text.length > MAX_TURN_SHOWN ? `${turn.text.slice(0, MAX_TURN_SHOWN)}…` : turn.text;
  const flagged = [turn.text, turn.speaker, session.conversationId ?? ''].some(
    (text) => looksLikeInstruction(text) !== undefined,
  );
  const warning = flagged ? ` ${INSTRUCTION_WARNING}` : '';
  const score = options.score ? `; score ${hit.score.toFixed(2)}` : '';
  return `${quoteInline(turn.speaker, 80)} (${where.join(', ')}${score})${warning}:\n${quoteBlock(words)}`;
}
