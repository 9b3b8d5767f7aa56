import type { AiProvider } from '../ai/provider';
import { MemoryError } from '../errors';
import { lazy } from '../lazy';
import type * as ReasonModule from '../reasoning/reason';
import type { Hit } from '../reasoning/types';
import { isTurnItem, type Ranked, type RecallOptions, type RecallReasoning } from './types';

/**
 * The reasoning code, loaded when a recall first asks for it: it brings the
 * prompts and zod, which the store worker's start-up should not pay for
 * (see zod-loader.ts).
 */
const loadReasoning = lazy(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof ReasonModule => require('../reasoning/reason') as typeof ReasonModule,
);

/** The model of a caller that has none: every call fails, so plain recall answers and says why. */
export const NO_MODEL: AiProvider = {
  chat: async () => {
    throw new MemoryError(
      'AI_UNAVAILABLE',
      'No language model is available here (the CLI and MCP server use WORKSPACE_MEMORY_CHAT_URL and WORKSPACE_MEMORY_CHAT_MODEL).',
    );
  },
};

/** A candidate as the model reads it: a key unique among candidates, its text and score. */
interface CandidateHit extends Hit {
  item: Ranked;
}

function hitOf(item: Ranked): CandidateHit {
  if (isTurnItem(item)) {
    const { session, turn } = item.turn;
    return { id: `${session.id}#${turn.index}`, text: `${turn.speaker}: ${turn.text}`, score: item.score, item };
  }
  return { id: item.entity.id, text: item.entity.content, score: item.score, item };
}

/**
 * Recall's candidates for `query` with the model's help (see
 * reasoning/reason.ts): searched again with its queries, and ordered by it
 * when `rerank` asks; in that order, not by score.
 */
export async function reasonedCandidates(
  pool: (query: string, limit: number) => Promise<Ranked[]>,
  query: string,
  limit: number,
  options: Pick<RecallOptions, 'ai' | 'reasoning' | 'rerank' | 'signal'>,
): Promise<{ candidates: Ranked[]; reasoning: RecallReasoning }> {
  const { reasonedSearch } = loadReasoning();
  const search = async (text: string, depth: number) => (await pool(text, depth)).map(hitOf);
  const { results, ...reasoning } = await reasonedSearch(options.ai ?? NO_MODEL, search, query, Math.max(limit, 1), {
    reasoning: options.reasoning,
    rerank: options.rerank,
    signal: options.signal,
  });
  return { candidates: results.map((hit) => hit.item), reasoning };
}
