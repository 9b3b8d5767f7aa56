import { wantsReasoning } from '../../core/reasoning/settings';
import type { RecallOptions, RecallResult } from '../../core/recall/types';
import { lazyModel, reasoningSettings } from '../ai/reasoning';
import { workingFiles } from '../anchors/folders';
import { recallBudget } from '../config';
import type { CommandContext } from './command';

/**
 * Recall for a chat request: the budget settings, the files the request
 * refers to, and, when `ai.reasoning` or `ai.rerank` ask for it, the
 * request's own model to reason with (its cancellation stopping it).
 */
export async function recallForRequest(context: CommandContext, options: RecallOptions = {}): Promise<RecallResult> {
  const { services, request, signal } = context;
  const { agentId, userId } = services.scope();
  const reasoning = reasoningSettings();
  const wanted = wantsReasoning(reasoning);
  const memory = wanted ? await services.memoryWithModel(lazyModel(request.model, signal)) : await services.memory();
  return memory.recall(agentId, userId, request.prompt, {
    ...recallBudget(),
    files: workingFiles(request.references),
    ...(wanted ? reasoning : {}),
    ...options,
  });
}
