import { z } from 'zod';

import { quoteTurn } from '../sessions/quote';
import { limit, query } from './fields';
import { counted, storedText } from './render';
import { defineOperation, EVERY_SURFACE } from './types';

// The store checks the time (ISO 8601, a date alone or with a time), as it does for every caller.
const time = (what: string) =>
  z
    .string()
    .max(40)
    .optional()
    .describe(
      `${what}, as ISO 8601 ("2026-03-02" or "2026-03-02T09:00:00Z"); work out relative dates from today first.`,
    );

export const sessionSearch = defineOperation({
  name: 'session_search',
  title: 'Search past conversations',
  description:
    'Searches what was said in past conversations saved in this workspace, turn by turn, best match first: use it for "what did we decide about X", "when did we talk about Y", or what someone said before. A time in the query ("last week", "in March") puts the turns said then first; or narrow by conversation or by exact times (from, to). Returns each turn with who said it, when, and its conversation and session.',
  input: z.strictObject({
    query,
    limit: limit(10),
    conversationId: z.string().min(1).max(1000).optional().describe('Only this conversation.'),
    from: time('Only turns said at or after this time'),
    to: time('Only turns said before this time'),
  }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const { query: text, limit: count, ...narrowing } = args;
    const hits = await store.sessions.search(scope.agentId, scope.userId, text, count, narrowing);
    const summary = hits.length
      ? `${counted(hits.length, 'turn', 'turns')} of past conversations for "${text}":`
      : `No turn of a past conversation matches "${text}".`;
    return {
      text: hits.length
        ? storedText(
            summary,
            hits.map((hit) => quoteTurn(hit, { score: true })),
          )
        : summary,
      data: { hits },
    };
  },
});

export const SESSION_OPERATIONS = [sessionSearch];
