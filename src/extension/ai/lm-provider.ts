/**
 * The core's AiProvider on VS Code's language models (vscode.lm), so mining,
 * consolidation and answers run on whatever model the user has: the one
 * picked in chat, or the one named by the `ai.model` setting.
 */
import * as vscode from 'vscode';

import type { AiProvider, ChatMessage, ChatOptions } from '../../core/ai/provider';
import { MemoryError } from '../../core/errors';
import { SECTION } from '../config';

/** Why we ask for the model, shown by VS Code when it asks the user for consent. */
const JUSTIFICATION = 'Workspace Memory uses the model to answer from, extract and tidy up this workspace’s memory.';

export interface StreamOptions {
  signal?: AbortSignal;
  /** Called with each piece of text as the model produces it. */
  onText?: (text: string) => void;
  /**
   * Most tokens of the answer. vscode.lm takes no such limit for every
   * vendor, so the answer is read only this far (estimated as 4 characters a
   * token) and the request then cancelled: the caller gets what came, cut.
   */
  maxTokens?: number;
}

/**
 * vscode.lm has no system role: a system message becomes a user message
 * marked as instructions, which models follow the same way in practice.
 */
function toLanguageModelMessage(message: ChatMessage): vscode.LanguageModelChatMessage {
  switch (message.role) {
    case 'assistant':
      return vscode.LanguageModelChatMessage.Assistant(message.content);
    case 'system':
      return vscode.LanguageModelChatMessage.User(
        `Instructions (follow them for the whole conversation):\n\n${message.content}`,
      );
    default:
      return vscode.LanguageModelChatMessage.User(message.content);
  }
}

/** Turns a vscode.lm failure into the core's error codes, with a way forward in the message. */
export function languageModelFailure(error: unknown, model: string): MemoryError {
  if (error instanceof MemoryError) return error;
  if (error instanceof vscode.CancellationError) return new MemoryError('CANCELLED', 'Cancelled.');
  if (error instanceof vscode.LanguageModelError) {
    // The codes are the names of LanguageModelError's factories.
    switch (error.code) {
      case 'NoPermissions':
        return new MemoryError(
          'AI_UNAVAILABLE',
          `Workspace Memory may not use the language model ${model}: allow it when VS Code asks, or under Accounts > Manage Language Model Access.`,
          { cause: error },
        );
      case 'Blocked':
        return new MemoryError(
          'AI_UNAVAILABLE',
          `The language model ${model} refused the request (blocked, perhaps a rate or quota limit): try again later or pick another model. ${error.message}`,
          { cause: error },
        );
      case 'NotFound':
        return new MemoryError(
          'AI_UNAVAILABLE',
          `The language model ${model} is no longer available: pick another model in chat or in the workspaceMemory.ai.model setting.`,
          { cause: error },
        );
      default:
        return new MemoryError('AI_UNAVAILABLE', `The language model ${model} failed: ${error.message}`, {
          cause: error,
        });
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new MemoryError('AI_UNAVAILABLE', `The language model ${model} failed: ${message}`, { cause: error });
}

/** An AiProvider on one vscode.lm chat model; it can also stream its answer. */
export class LanguageModelProvider implements AiProvider {
  constructor(readonly model: vscode.LanguageModelChat) {}

  /** The model's name as the user knows it, for progress and error messages. */
  get label(): string {
    return this.model.name || this.model.id;
  }

  chat(messages: readonly ChatMessage[], options: ChatOptions = {}): Promise<string> {
    return this.stream(messages, options);
  }

  /** Sends `messages` and collects the answer, passing each piece to `onText` as it arrives. */
  async stream(messages: readonly ChatMessage[], options: StreamOptions = {}): Promise<string> {
    const { signal, onText } = options;
    const maxChars = options.maxTokens === undefined ? Infinity : options.maxTokens * 4;
    if (signal?.aborted) throw new MemoryError('CANCELLED', 'Cancelled.');
    // vscode.lm cancels with a token; the core cancels with a signal.
    const source = new vscode.CancellationTokenSource();
    const cancel = () => source.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const response = await this.model.sendRequest(
        messages.map(toLanguageModelMessage),
        { justification: JUSTIFICATION },
        source.token,
      );
      let text = '';
      for await (const piece of response.text) {
        text += piece;
        onText?.(piece);
        if (text.length >= maxChars) {
          source.cancel();
          return text.slice(0, maxChars);
        }
      }
      if (signal?.aborted) throw new MemoryError('CANCELLED', 'Cancelled.');
      return text;
    } catch (error) {
      if (signal?.aborted) throw new MemoryError('CANCELLED', 'Cancelled.');
      throw languageModelFailure(error, this.label);
    } finally {
      signal?.removeEventListener('abort', cancel);
      source.dispose();
    }
  }
}

/** The `ai.model` setting: a model id or family, or empty for "the model chat uses". */
export function configuredModelName(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('ai.model')?.trim() ?? '';
}

/**
 * The model the `ai.model` setting names (by id, then by family), else
 * `fallback` (the model of the chat request), else the first model
 * VS Code offers. Fails with AI_UNAVAILABLE when there is none.
 */
export async function selectLanguageModel(fallback?: vscode.LanguageModelChat): Promise<LanguageModelProvider> {
  const name = configuredModelName();
  if (name) {
    const byId = await vscode.lm.selectChatModels({ id: name });
    const chosen = byId[0] ?? (await vscode.lm.selectChatModels({ family: name }))[0];
    if (chosen) return new LanguageModelProvider(chosen);
    throw new MemoryError(
      'AI_UNAVAILABLE',
      `No language model has the id or family "${name}" (the workspaceMemory.ai.model setting): correct the setting, or clear it to use the model selected in chat.`,
    );
  }
  if (fallback) return new LanguageModelProvider(fallback);
  const [first] = await vscode.lm.selectChatModels();
  if (first) return new LanguageModelProvider(first);
  throw new MemoryError(
    'AI_UNAVAILABLE',
    'No language model is available: install and sign in to a chat model provider (GitHub Copilot, for one), then try again.',
  );
}
