import { RERANK_FORMAT, RERANK_INSTRUCTIONS, rerankInput, rerankSchema } from './prompts';
import { ask, inputRoom, type Run } from './run';
import type { Hit } from './types';

/**
 * The model orders the best `rerankTop` candidates, as many as fit the
 * prompt. The ones it leaves out, and those it was not shown, follow in
 * their order: reranking orders, it never drops.
 */
export async function rerank<T extends Hit>(run: Run<T>, ranked: T[]): Promise<T[]> {
  const top = ranked.slice(0, run.settings.rerankTop);
  const room = inputRoom(run, RERANK_INSTRUCTIONS, RERANK_FORMAT);
  const { input, shown } = rerankInput(run.query, top, room, run.settings.maxCandidateChars);
  // One candidate has no order to find: no model call.
  if (shown < 2) return ranked;
  const answer = await ask(run, {
    task: 'Could not rerank the results',
    instructions: RERANK_INSTRUCTIONS,
    format: RERANK_FORMAT,
    input,
    schema: rerankSchema(shown),
  });
  const first = [...new Set(answer.order)].map((number) => top[number - 1]!);
  const chosen = new Set(first);
  run.steps.push({ kind: 'rerank', queries: [], newResults: 0, candidates: shown });
  return [...first, ...ranked.filter((hit) => !chosen.has(hit))];
}
