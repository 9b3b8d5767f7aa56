// Reaching the extension under test: its exported API (services and views)
// and a poll for conditions that become true asynchronously.
import * as vscode from 'vscode';

import type { WorkspaceMemoryApi } from '../../../src/extension';

export const EXTENSION_ID = 'workspace-memory.workspace-memory';

/** The API with every feature registered: a feature that failed to register fails the test that needs it. */
export type RegisteredApi = WorkspaceMemoryApi & {
  views: NonNullable<WorkspaceMemoryApi['views']>;
  docSync: NonNullable<WorkspaceMemoryApi['docSync']>;
};

export async function extensionApi(): Promise<RegisteredApi> {
  const extension = vscode.extensions.getExtension<WorkspaceMemoryApi | undefined>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not loaded`);
  const api = await extension.activate();
  if (!api) throw new Error('The extension did not activate (no node:sqlite?)');
  const { views, docSync, failedFeatures } = api;
  if (failedFeatures.length > 0 || !views || !docSync) {
    throw new Error(`Features failed to register: ${failedFeatures.join(', ')}`);
  }
  return { ...api, views, docSync };
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `Timed out waiting for ${what}${last ? `: ${last instanceof Error ? last.message : JSON.stringify(last)}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deletes what a suite made: the memories still there among `ids`, then the files (those already gone are fine). */
export async function removeMade(ids: readonly string[], uris: readonly vscode.Uri[]): Promise<void> {
  const { services } = await extensionApi();
  const memory = await services.memory();
  const live = (await Promise.all(ids.map((id) => memory.memories.get(id)))).flatMap((entity) =>
    entity ? [entity.id] : [],
  );
  if (live.length) await memory.memories.deleteMany(live);
  for (const uri of uris) await vscode.workspace.fs.delete(uri, { recursive: true }).then(undefined, () => undefined);
}
