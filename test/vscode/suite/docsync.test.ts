// Doc sync inside a real VS Code: a Markdown file created, changed and
// deleted in the workspace reaches the store through the file watcher alone
// (no command), as knowledge chunks with history.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { KnowledgeEntity } from '../../../src/core/types';
import { extensionApi, waitFor } from './extension-api';

/** Long enough for the start-up sync to finish and a debounced watcher batch to run. */
const SYNC_TIMEOUT_MS = 30_000;

async function chunksOf(source: string): Promise<KnowledgeEntity[]> {
  const { services } = await extensionApi();
  const memory = await services.memory();
  const chunks = await memory.knowledge.list(services.scope().agentId);
  return chunks.filter((chunk) => chunk.source === source);
}

describe('doc sync', () => {
  // A name of its own, so a rerun on a kept workspace never finds an old file.
  const name = `docsync-${Date.now().toString(36)}.md`;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  const file = () => vscode.Uri.joinPath(folder(), 'docs', name);
  const write = (text: string) => vscode.workspace.fs.writeFile(file(), new TextEncoder().encode(text));

  after(async () => {
    await vscode.workspace.fs.delete(file()).then(undefined, () => undefined);
  });

  it('ingests a new Markdown file through the watcher', async () => {
    await extensionApi();
    await write('# Release train\n\nThe zeppelin release train leaves every second Tuesday.\n');
    const chunks = await waitFor(
      'the new file to be ingested',
      async () => {
        const found = await chunksOf(`docs/${name}`);
        return found.length > 0 && found;
      },
      SYNC_TIMEOUT_MS,
    );
    assert.match(chunks[0]!.content, /zeppelin release train/);
    assert.deepEqual(chunks[0]!.headingPath, ['Release train']);
    assert.match(chunks[0]!.sourceHash ?? '', /^[0-9a-f]{64}$/);
  });

  it('changing the file gives its chunk a new version', async () => {
    const [before] = await chunksOf(`docs/${name}`);
    assert.ok(before);
    await write('# Release train\n\nThe zeppelin release train now leaves every Thursday.\n');
    await waitFor(
      'the chunk to be updated',
      async () => (await chunksOf(`docs/${name}`)).some((chunk) => chunk.content.includes('every Thursday')),
      SYNC_TIMEOUT_MS,
    );
    const { services } = await extensionApi();
    const history = await (await services.memory()).history(before.id);
    assert.equal(history.length, 2, 'updated in place, not replaced');
    assert.match(history[0]!.entity!.content, /Thursday/);
    assert.match(history[1]!.entity!.content, /second Tuesday/);
  });

  it('a synced chunk is not deleted from the views: its file decides', async () => {
    const [chunk] = await chunksOf(`docs/${name}`);
    assert.ok(chunk);
    await vscode.commands.executeCommand(
      'workspaceMemory.delete',
      { kind: 'entity', entity: chunk },
      { confirmed: true },
    );
    const { services } = await extensionApi();
    assert.ok(await (await services.memory()).knowledge.get(chunk.id), 'the chunk is still there');
  });

  it('deleting the file tombstones its chunks', async () => {
    const [chunk] = await chunksOf(`docs/${name}`);
    assert.ok(chunk);
    await vscode.workspace.fs.delete(file());
    const { services } = await extensionApi();
    const memory = await services.memory();
    await waitFor(
      'the chunk to be deleted',
      async () => (await memory.knowledge.get(chunk.id)) === null,
      SYNC_TIMEOUT_MS,
    );
    const history = await memory.history(chunk.id);
    assert.equal(history[0]!.commit.op, 'delete');
    assert.equal(history.length, 3);
  });
});
