// Memories anchored to code in a real VS Code: a cited file changed on disk
// turns its memory stale in the Collections view (a Stale group); lines that
// only moved are re-anchored instead. Each test writes a file of its own.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { CollectionNode } from '../../../src/extension/views/collections-tree';
import { extensionApi, removeMade, waitFor } from './extension-api';
import { fakeModel, toolText } from './fake-model';
import { screenshot } from './harness';

const encode = (text: string) => new TextEncoder().encode(text);

describe('memories anchored to code', () => {
  const made: vscode.Uri[] = [];
  const memories: string[] = [];
  // The memories go too: with their files gone they would be stale in every view shown after this suite.
  after(async () => {
    await removeMade(memories, made);
  });

  async function citedMemory(name: string, lines: string[], content: string) {
    const uri = vscode.Uri.joinPath(
      vscode.workspace.workspaceFolders![0]!.uri,
      `${name}-${Date.now().toString(36)}.ts`,
    );
    made.push(uri);
    await vscode.workspace.fs.writeFile(uri, encode(`${lines.join('\n')}\n`));
    const { services } = await extensionApi();
    const memory = await services.memory();
    const path = vscode.workspace.asRelativePath(uri, false);
    const [entity] = await memory.memories.save(services.scope().agentId, services.scope().userId, {
      content,
      citations: [{ path, startLine: 2, endLine: 3 }],
    });
    memories.push(entity.id);
    return { uri, path, entity, memory };
  }

  async function staleRows(): Promise<CollectionNode[]> {
    const { views } = await extensionApi();
    const group = (await views.collections.getChildren()).find((node) => node.kind === 'stale');
    return group ? views.collections.getChildren(group) : [];
  }

  it('a cited file edited on disk turns its memory stale in the Collections view, saying which lines', async () => {
    const code = ['// retry policy', 'export const RETRIES = 3;', 'export const BACKOFF_MS = 200;'];
    const { uri, path, entity } = await citedMemory('cited-policy', code, 'Jobs retry three times, 200 ms apart');
    const { views } = await extensionApi();
    // The view has looked at the store's citations once (the save), so it knows the file is cited.
    await waitFor('the citation to be known', () => views.stale.cited(path) || undefined);
    const edited = Date.now();
    await vscode.workspace.fs.writeFile(uri, encode(`${[code[0], 'export const RETRIES = 5;', code[2]].join('\n')}\n`));
    const row = await waitFor(
      'the memory in the Stale group',
      async () => (await staleRows()).find((node) => node.kind === 'staleItem' && node.entity.id === entity.id),
      10_000,
    );
    console.log(`[citations] stale in the view ${Date.now() - edited} ms after the file was written`);
    const item = views.collections.getTreeItem(row);
    assert.equal(item.description, `${path}:2 changed`);
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await views.collectionsView.reveal(row, { select: true, focus: false });
    await screenshot('stale-memories', 800);
    // Put back, the memory is current again and leaves the group.
    await vscode.workspace.fs.writeFile(uri, encode(`${code.join('\n')}\n`));
    await waitFor('the memory to leave the Stale group', async () =>
      (await staleRows()).every((node) => node.kind !== 'staleItem' || node.entity.id !== entity.id),
    );
  });

  it('workspaceMemory.staleness.inRecall "exclude" leaves a stale memory out of what the recall tool hands a model', async () => {
    const code = ['// harbour', 'export const BERTHS = 40;', 'export const VISITOR_BERTHS = 6;'];
    const { uri, entity } = await citedMemory('cited-berths', code, 'The marina has six visitor berths out of forty');
    await vscode.workspace.fs.writeFile(
      uri,
      encode(`${[code[0], code[1], 'export const VISITOR_BERTHS = 8;'].join('\n')}\n`),
    );
    const recall = async () =>
      toolText(await (await fakeModel()).invokeToolApproved('memory_recall', { query: 'how many visitor berths?' }));
    assert.match(await recall(), /\*\*May be outdated\*\*/, 'marked by default');
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('staleness.inRecall', 'exclude', vscode.ConfigurationTarget.Workspace);
    try {
      // The store reopens with the new setting.
      await waitFor('the stale memory to be left out', async () =>
        (await recall()).includes(entity.id) ? undefined : true,
      );
    } finally {
      await config.update('staleness.inRecall', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('Review Stale Memories: Still True cites the lines as they are now, Forget deletes the memory', async () => {
    const code = ['// tides', 'export const HIGH_WATER = "06:12";', 'export const LOW_WATER = "12:30";'];
    const kept = await citedMemory('cited-tides', code, 'High water is at 06:12 today');
    const gone = await citedMemory('cited-tides-old', code, 'Low water is at 12:30 today');
    const { views } = await extensionApi();
    await waitFor(
      'the citations to be known',
      () => (views.stale.cited(kept.path) && views.stale.cited(gone.path)) || undefined,
    );
    const changed = `${[code[0], 'export const HIGH_WATER = "06:40";', code[2]].join('\n')}\n`;
    await vscode.workspace.fs.writeFile(kept.uri, encode(changed));
    await vscode.workspace.fs.writeFile(gone.uri, encode(changed));
    await waitFor('both in the Stale group', async () => ((await staleRows()).length >= 2 ? true : undefined));

    const stillTrue = await vscode.commands.executeCommand<number>(
      'workspaceMemory.reviewStale',
      { entity: kept.entity },
      { decide: 'stillTrue' },
    );
    assert.equal(stillTrue, 1);
    const renewed = (await kept.memory.memories.get(kept.entity.id))?.citations?.[0];
    assert.equal(
      renewed?.text,
      ['export const HIGH_WATER = "06:40";', code[2]].join('\n'),
      'cited as the lines are now',
    );
    const forgotten = await vscode.commands.executeCommand<number>(
      'workspaceMemory.reviewStale',
      { entity: gone.entity },
      { decide: 'forget' },
    );
    assert.equal(forgotten, 1);
    assert.equal(await gone.memory.memories.get(gone.entity.id), null);
    await waitFor(
      'both to leave the Stale group',
      async () =>
        (await staleRows()).every(
          (node) => node.kind !== 'staleItem' || ![kept.entity.id, gone.entity.id].includes(node.entity.id),
        ) || undefined,
    );
  });

  it('This File lists the memories that cite the file in the active editor, and goes with it', async () => {
    const code = ['// fuel', 'export const FUEL = "diesel";', 'export const CARD = true;'];
    const { uri, path, entity } = await citedMemory('cited-fuel', code, 'The fuel dock sells diesel, cards taken');
    const { views } = await extensionApi();
    await waitFor('the citation to be known', () => views.stale.cited(path) || undefined);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const group = await waitFor('the This File group', async () =>
      (await views.collections.getChildren()).find((node) => node.kind === 'thisFile'),
    );
    assert.equal(views.collections.getTreeItem(group).description, `${path} · 1`);
    const rows = await views.collections.getChildren(group);
    assert.deepEqual(
      rows.map((node) => node.kind === 'entity' && node.entity.id),
      [entity.id],
    );
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await screenshot('this-file', 800);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor(
      'the group to go with the editor',
      async () => (await views.collections.getChildren()).every((node) => node.kind !== 'thisFile') || undefined,
    );
  });

  it('lines that only moved are re-anchored by the check, and the memory stays current', async () => {
    const code = ['// queue', 'export const QUEUE = "jobs";', 'export const WORKERS = 4;'];
    const { uri, path, entity, memory } = await citedMemory('cited-queue', code, 'Four workers read the jobs queue');
    const { views } = await extensionApi();
    await waitFor('the citation to be known', () => views.stale.cited(path) || undefined);
    await vscode.workspace.fs.writeFile(uri, encode(`// moved down\n\n${code.join('\n')}\n`));
    const moved = await waitFor('the citation to be re-anchored', async () => {
      const citation = (await memory.memories.get(entity.id))?.citations?.[0];
      return citation?.startLine === 4 ? citation : undefined;
    });
    assert.equal(moved.endLine, 5);
    const [anchoring] = await memory.history(entity.id);
    assert.equal(anchoring!.commit.by.kind, 'anchoring');
    assert.ok((await staleRows()).every((node) => node.kind !== 'staleItem' || node.entity.id !== entity.id));
  });
});
