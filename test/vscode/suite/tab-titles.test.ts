// Documents of entities are named for people: a tab reads the memory's first
// words, not its id, and opening a memory again shows the tab already open.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { MemoryEntity } from '../../../src/core/index';
import { entityUri, parseEntityUri, versionUri } from '../../../src/extension/documents/uris';
import { extensionApi, waitFor } from './extension-api';

function tabsOf(id: string): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputText && parseEntityUri(tab.input.uri)?.id === id);
}

describe('entity document names', () => {
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('a tab reads the first words; the id stays in the path', async () => {
    const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.addMemory', {
      content: 'Deploys go out on Tuesdays, after the freeze: never on Fridays',
    });
    await vscode.commands.executeCommand('workspaceMemory.open', { kind: 'entity', entity });
    const [tab] = await waitFor('the tab', () => {
      const tabs = tabsOf(entity.id);
      return tabs.length > 0 ? tabs : undefined;
    });
    assert.equal(tab!.label, 'Deploys go out on Tuesdays, after the freeze….md');
    const uri = (tab!.input as vscode.TabInputText).uri;
    assert.deepEqual(parseEntityUri(uri), { type: 'memory', id: entity.id, commit: undefined });
    assert.equal(path.posix.basename(path.posix.dirname(uri.path)), entity.id);
  });

  it('opening a memory again shows its open tab, also after its first words changed', async () => {
    const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.addMemory', {
      content: 'The cache keeps sessions for an hour',
    });
    await vscode.commands.executeCommand('workspaceMemory.edit', { kind: 'entity', entity });
    await waitFor('the tab', () => tabsOf(entity.id).length === 1);
    const { services } = await extensionApi();
    const [updated] = await (
      await services.memory()
    ).memories.update(entity.id, {
      content: 'Sessions stay in the cache for two hours',
    });
    await vscode.commands.executeCommand('workspaceMemory.open', { kind: 'entity', entity: updated });
    // The open document follows the store's change; opening again shows it, not a second tab.
    await waitFor('the open document to show the new words', () =>
      /two hours/.test(vscode.window.activeTextEditor?.document.getText() ?? ''),
    );
    assert.equal(tabsOf(entity.id).length, 1, 'one tab for the memory');
  });

  it('reads links in the older form, an id alone, and versions in both forms', async () => {
    const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.addMemory', {
      content: 'Linked from an older chat reply',
    });
    const old = vscode.Uri.from({ scheme: 'workspace-memory', path: `/memory/${entity.id}.md` });
    const document = await vscode.workspace.openTextDocument(old);
    assert.match(document.getText(), /Linked from an older chat reply/);
    const [commit] = await (await (await extensionApi()).services.memory()).history(entity.id);
    for (const uri of [
      versionUri(entity, commit!.commit.hash),
      versionUri({ type: 'memory', id: entity.id }, commit!.commit.hash),
    ]) {
      assert.equal(parseEntityUri(uri)?.commit, commit!.commit.hash.slice(0, 12));
    }
    assert.notEqual(entityUri(entity).toString(), old.toString());
  });
});
