/**
 * Reasoning and reranking in VS Code: what the settings ask for, the model
 * they ask (chosen when first needed), and how a reply says what ran.
 */
import * as vscode from 'vscode';

import type { AiProvider } from '../../core/ai/provider';
import { REASONING_MODES, type ReasoningMode } from '../../core/reasoning/types';
import type { RecallReasoning } from '../../core/recall/types';
import { SECTION } from '../config';
import { selectLanguageModel } from './lm-provider';

/** `ai.reasoning` and `ai.rerank`: what `@memory` recall asks of the model (an unknown mode counts as none). */
export function reasoningSettings(): { reasoning: ReasoningMode; rerank: boolean } {
  const config = vscode.workspace.getConfiguration(SECTION);
  const mode = config.get<string>('ai.reasoning');
  return {
    reasoning: REASONING_MODES.find((known) => known === mode) ?? 'none',
    rerank: config.get<boolean>('ai.rerank') === true,
  };
}

/**
 * The model reasoning asks: the `ai.model` setting's, else `fallback` (the
 * chat request's), else the first VS Code offers; chosen at the first
 * question, so a call that asks none costs nothing. `signal` (the chat
 * request's cancellation) stops every question too: a signal cannot travel
 * to the store's worker with the call, so the model's answers stop here.
 */
export function lazyModel(fallback?: vscode.LanguageModelChat, signal?: AbortSignal): AiProvider {
  let chosen: ReturnType<typeof selectLanguageModel> | undefined;
  return {
    chat: async (messages, options = {}) => {
      chosen ??= selectLanguageModel(fallback);
      const both = signal && options.signal ? AbortSignal.any([signal, options.signal]) : (signal ?? options.signal);
      return (await chosen).chat(messages, { ...options, ...(both ? { signal: both } : {}) });
    },
  };
}

/** One line for a chat reply: what the model did, or why plain recall answered. Empty when nothing was asked. */
export function reasoningNote(reasoning: RecallReasoning | undefined): string {
  if (!reasoning) return '';
  const { strategy, steps, degraded } = reasoning;
  const asked = [strategy.reasoning === 'none' ? undefined : strategy.reasoning, strategy.rerank ? 'rerank' : undefined]
    .filter(Boolean)
    .join(' + ');
  if (degraded) return vscode.l10n.t('Plain recall answered ({0} skipped): {1}', asked, degraded.reason);
  const searches = steps.reduce((sum, step) => sum + step.queries.length, 0);
  return vscode.l10n.t('Recalled with {0}: {1} searches.', asked, searches);
}
