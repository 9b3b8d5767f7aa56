// The test-only fake language model (test/vscode/fixtures/fake-model), loaded
// as a second extension under development, and chat requests driven with it.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { SessionEntity } from '../../../src/core/types';
import type { ChatMetadata } from '../../../src/extension/chat/conversation';
import { extensionApi } from './extension-api';

export const FAKE_MODEL_EXTENSION_ID = 'workspace-memory-test.fake-model';

export interface FakeModel {
  vendor: string;
  modelId: string;
  /** Every request the model answered, oldest first: the messages' text and the answer. */
  requests: { messages: { role: string; text: string }[]; text: string }[];
  /** Invokes a tool outside chat as approved, skipping the confirmation dialog of a destructive tool. */
  invokeToolApproved(name: string, input: object): Promise<vscode.LanguageModelToolResult>;
}

export async function fakeModel(): Promise<FakeModel> {
  const extension = vscode.extensions.getExtension<FakeModel>(FAKE_MODEL_EXTENSION_ID);
  if (!extension) throw new Error(`${FAKE_MODEL_EXTENSION_ID} is not loaded (see test/vscode/runs.mjs)`);
  return extension.activate();
}

/** What workbench.action.chat.open resolves with when it waits for the response. */
export interface ChatOpenResult {
  metadata?: ChatMetadata;
  errorDetails?: { message: string };
}

/**
 * Sends `query` (e.g. "@memory /remember …") in the chat view with the fake
 * model selected, and resolves once the response is complete.
 */
export async function sendChat(query: string): Promise<ChatOpenResult> {
  const model = await fakeModel();
  const result = await vscode.commands.executeCommand<ChatOpenResult | undefined>('workbench.action.chat.open', {
    query,
    modelSelector: { vendor: model.vendor, id: model.modelId },
    blockOnResponse: true,
  });
  if (!result) throw new Error(`The chat returned no result for ${query}`);
  if (result.errorDetails) throw new Error(`The chat failed on ${query}: ${result.errorDetails.message}`);
  return result;
}

/** The text of a tool result's text parts. */
export function toolText(result: vscode.LanguageModelToolResult): string {
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

/** The stored session of a chat reply's conversation. */
export async function session(metadata: ChatMetadata): Promise<SessionEntity> {
  const { services } = await extensionApi();
  assert.ok(metadata.sessionId, `the reply names its session: ${JSON.stringify(metadata)}`);
  const found = await (await services.memory()).sessions.get(metadata.sessionId);
  assert.ok(found, 'the session exists');
  return found;
}

/** The last thing @memory said in the conversation, as stored in its session. */
export async function lastReply(metadata: ChatMetadata): Promise<string> {
  const messages = (await session(metadata)).messages ?? [];
  return messages.at(-1)?.content ?? '';
}
