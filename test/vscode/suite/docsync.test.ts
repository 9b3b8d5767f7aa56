// Doc sync inside a real VS Code: a Markdown file created, changed and
// deleted in the workspace reaches the store through the file watcher alone
// (no command), as knowledge chunks with history. Each test writes a file of
// its own, so it passes alone and in any order.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { KnowledgeEntity } from '../../../src/core/types';
import { entityUri } from '../../../src/extension/documents/uris';
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
  // Names of their own, so a rerun on a kept workspace never finds an old file.
  const stamp = Date.now().toString(36);
  const written: vscode.Uri[] = [];
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;

  /** docs/<name> in the workspace, deleted after the suite. */
  function docFile(name: string) {
    const uri = vscode.Uri.joinPath(folder(), 'docs', `${name}-${stamp}.md`);
    written.push(uri);
    return {
      uri,
      source: `docs/${name}-${stamp}.md`,
      write: (text: string) => vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text)),
    };
  }

  /** Writes `text` to the file and waits until the watcher has ingested it: its chunks. */
  async function ingest(file: ReturnType<typeof docFile>, text: string): Promise<KnowledgeEntity[]> {
    await extensionApi();
    await file.write(text);
    return waitFor(
      `${file.source} to be ingested`,
      async () => {
        const found = await chunksOf(file.source);
        return found.length > 0 && found;
      },
      SYNC_TIMEOUT_MS,
    );
  }

  after(async () => {
    for (const uri of written) await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
  });

  it('ingests a new Markdown file through the watcher', async () => {
    const file = docFile('docsync-new');
    const chunks = await ingest(file, '# Release train\n\nThe zeppelin release train leaves every second Tuesday.\n');
    assert.equal(chunks.length, 1);
    assert.match(chunks[0]!.content, /zeppelin release train/);
    assert.deepEqual(chunks[0]!.headingPath, ['Release train']);
    assert.match(chunks[0]!.sourceHash ?? '', /^[0-9a-f]{64}$/);
  });

  it('changing the file gives its chunk a new version', async () => {
    const file = docFile('docsync-changed');
    const [before] = await ingest(file, '# Release train\n\nThe zeppelin release train leaves every second Tuesday.\n');
    await file.write('# Release train\n\nThe zeppelin release train now leaves every Thursday.\n');
    await waitFor(
      'the chunk to be updated',
      async () => (await chunksOf(file.source)).some((chunk) => chunk.content.includes('every Thursday')),
      SYNC_TIMEOUT_MS,
    );
    const { services } = await extensionApi();
    const history = await (await services.memory()).history(before!.id);
    assert.equal(history.length, 2, 'updated in place, not replaced');
    assert.match(history[0]!.entity!.content, /Thursday/);
    assert.match(history[1]!.entity!.content, /second Tuesday/);
  });

  it('a chunk whose file gains lines above it keeps its version, and its open document shows where it is now', async () => {
    const file = docFile('docsync-moved');
    const text = '# Anchor chain\n\nThe anchor chain is sixty metres of galvanised steel.\n';
    const [chunk] = await ingest(file, text);
    const document = await vscode.workspace.openTextDocument(entityUri(chunk!));
    await vscode.window.showTextDocument(document);
    assert.match(document.getText(), new RegExp(`${file.source}:1-3\\b`));
    await file.write(`Draft, not yet reviewed.\n\n${text}`);
    await waitFor(
      'the open document to show the lines the chunk moved to',
      () => new RegExp(`${file.source}:3-5\\b`).test(document.getText()) || undefined,
      SYNC_TIMEOUT_MS,
    );
    const { services } = await extensionApi();
    const history = await (await services.memory()).history(chunk!.id);
    assert.deepEqual(
      history.map((entry) => entry.commit.op),
      ['create'],
      'moving made no version',
    );
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('a synced chunk is not deleted from the views: its file decides', async () => {
    const file = docFile('docsync-kept');
    const [chunk] = await ingest(file, '# Moorings\n\nVisitors moor on the outer pontoon, bow to the wind.\n');
    await vscode.commands.executeCommand(
      'workspaceMemory.delete',
      { kind: 'entity', entity: chunk },
      { confirmed: true },
    );
    const { services } = await extensionApi();
    const memory = await services.memory();
    assert.ok(await memory.knowledge.get(chunk!.id), 'the chunk is still there');
    assert.deepEqual(
      (await memory.history(chunk!.id)).map((entry) => entry.commit.op),
      ['create'],
      'no delete was written',
    );
  });

  it('deleting the file tombstones its chunks', async () => {
    const file = docFile('docsync-deleted');
    const [chunk] = await ingest(file, '# Fuel dock\n\nThe fuel dock sells diesel only, cash or card.\n');
    await vscode.workspace.fs.delete(file.uri);
    const { services } = await extensionApi();
    const memory = await services.memory();
    await waitFor(
      'the chunk to be deleted',
      async () => (await memory.knowledge.get(chunk!.id)) === null,
      SYNC_TIMEOUT_MS,
    );
    const history = await memory.history(chunk!.id);
    assert.deepEqual(
      history.map((entry) => entry.commit.op),
      ['delete', 'create'],
    );
  });
});
