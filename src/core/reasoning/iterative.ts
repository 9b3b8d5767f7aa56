import { fuse } from './fusion';
import { PLAN_FORMAT, PLAN_INSTRUCTIONS, planInput, planSchema } from './prompts';
import { ask, inputRoom, newQueries, type Run, searchAll } from './run';
import type { Hit } from './types';

/**
 * Up to `maxSteps` rounds of: the model reads what the last searches found
 * (what it has not seen yet), notes evidence and says whether it has
 * enough; if not, its new queries are searched. A round stops the run when
 * the model has enough, proposes nothing new, or its searches find nothing
 * new (another round would have nothing new to read). All the lists are
 * fused, the original query's first.
 */
export async function iterate<T extends Hit>(run: Run<T>, original: T[]): Promise<T[]> {
  const lists = [original];
  const searched = [run.query];
  const evidence: string[] = [];
  const room = inputRoom(run, PLAN_INSTRUCTIONS, PLAN_FORMAT);
  let unseen = original.slice(0, run.limit);
  for (let step = 1; step <= run.settings.maxSteps; step++) {
    const { input } = planInput({ query: run.query, searched, evidence, unseen }, room, run.settings.maxCandidateChars);
    const plan = await ask(run, {
      task: `Could not plan search step ${step}`,
      instructions: PLAN_INSTRUCTIONS,
      format: PLAN_FORMAT,
      input,
      schema: planSchema,
    });
    evidence.push(...plan.evidence);
    const queries = plan.enough ? [] : newQueries(plan.queries, searched);
    const { lists: found, fresh } = await searchAll(run, queries);
    run.steps.push({ kind: 'plan', queries, newResults: fresh.length, evidence: plan.evidence, enough: plan.enough });
    if (fresh.length === 0) break;
    searched.push(...queries);
    lists.push(...found);
    unseen = fresh.slice(0, run.limit);
  }
  return fuse(lists);
}
