import { fuse } from './fusion';
import { REWRITE_FORMAT, REWRITE_INSTRUCTIONS, rewriteInput, rewriteSchema } from './prompts';
import { ask, newQueries, type Run, searchAll } from './run';
import type { Hit } from './types';

/**
 * The model proposes other queries; their results are fused with the
 * original query's, which stay in the fusion so a rewrite that drifts from
 * what the user meant cannot push out what the user's own words found.
 */
export async function rewrite<T extends Hit>(run: Run<T>, original: T[]): Promise<T[]> {
  const answer = await ask(run, {
    task: 'Could not rewrite the query',
    instructions: REWRITE_INSTRUCTIONS,
    format: REWRITE_FORMAT,
    input: rewriteInput(run.query),
    schema: rewriteSchema,
  });
  const queries = newQueries(answer.queries, [run.query]);
  const { lists, fresh } = await searchAll(run, queries);
  run.steps.push({ kind: 'rewrite', queries, newResults: fresh.length });
  return fuse([original, ...lists]);
}
