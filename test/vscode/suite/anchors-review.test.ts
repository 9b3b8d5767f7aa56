// Memories where the work is, in a real VS Code: one whose appliesTo globs
// match the active editor's file shows in This File; and memories nothing
// used for a while wait in a Not Used Lately group (a setting, off by
// default) until someone keeps, edits or forgets them.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import { COMMANDS } from '../../../src/extension/commands/ids';
import type { CollectionNode } from '../../../src/extension/views/collections-tree';
import { extensionApi, removeMade, waitFor } from './extension-api';
import { fakeModel, toolText } from './fake-model';
import { screenshot } from './harness';

describe('memories where the work is, and those not used lately', () => {
  const memories: string[] = [];
  const made: vscode.Uri[] = [];
  after(async () => {
    await removeMade(memories, made);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('This File lists a memory whose appliesTo glob matches the file in the active editor, and memory_for_files finds it', async () => {
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const suffix = Date.now().toString(36);
    const [entity] = await memory.memories.save(services.scope().agentId, services.scope().userId, {
      content: 'Migrations are plain SQL, one file per change, never edited once merged',
      appliesTo: [`**/*.${suffix}.sql`],
    });
    memories.push(entity.id);
    const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, `migrations/001.${suffix}.sql`);
    made.push(vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'migrations'));
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('CREATE TABLE berths (id INTEGER);\n'));
    const path = vscode.workspace.asRelativePath(uri, false);
    await waitFor('the glob to be known', () => views.stale.citing(path).length > 0 || undefined);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const group = await waitFor('the This File group', async () =>
      (await views.collections.getChildren()).find((node) => node.kind === 'thisFile'),
    );
    assert.deepEqual(
      (await views.collections.getChildren(group)).map((node) => node.kind === 'entity' && node.entity.id),
      [entity.id],
    );
    const about = toolText(await (await fakeModel()).invokeToolApproved('memory_for_files', { paths: [path] }));
    assert.match(about, new RegExp(`applies to \`\\*\\*/\\*\\.${suffix}\\.sql\``));
    assert.match(about, /Migrations are plain SQL/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Not Used Lately lists what nothing used for the set number of days; Keep takes it off; 0 hides the group', async () => {
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const { agentId, userId } = services.scope();
    const id = `unused-${Date.now().toString(36)}`;
    const longAgo = '2025-01-15T09:00:00.000Z';
    // An import keeps an entity's times: a memory last written long ago, never recalled since.
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, `${id}.json`);
    made.push(file);
    const exported = {
      version: 1,
      entities: {
        memories: [
          {
            id,
            type: 'memory',
            agentId,
            ...(userId ? { userId } : {}),
            content: 'The old build server was called hamster',
            tags: [],
            category: 'fact',
            createdAt: longAgo,
            updatedAt: longAgo,
          },
        ],
      },
    };
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(JSON.stringify(exported)));
    assert.equal((await memory.worker.importFrom(file.fsPath, { skipExisting: false })).imported, 1);
    memories.push(id);
    const group = async () =>
      (await views.collections.getChildren()).find(
        (node): node is Extract<CollectionNode, { kind: 'unused' }> => node.kind === 'unused',
      );
    assert.equal(await group(), undefined, 'off by default');
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('review.unusedDays', 90, vscode.ConfigurationTarget.Workspace);
    try {
      const shown = await waitFor('the Not Used Lately group', group);
      assert.equal(views.collections.getTreeItem(shown).label, 'Not Used Lately');
      const rows = await views.collections.getChildren(shown);
      const row = rows.find((node) => node.kind === 'unusedItem' && node.entity.id === id);
      assert.ok(row, 'the memory is listed');
      const item = views.collections.getTreeItem(row);
      assert.match(String(item.description), /^never used, written /);
      assert.equal(item.contextValue, 'entity.memory.unused', 'Edit, Forget and Keep apply to it');
      await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
      await views.collectionsView.reveal(row, { select: true, focus: false, expand: true });
      await screenshot('not-used-lately', 800);

      await vscode.commands.executeCommand(COMMANDS.keepUsed, row);
      await waitFor('the memory to leave the group', async () => {
        const now = await group();
        return (
          !now ||
          (await views.collections.getChildren(now)).every((node) => !('entity' in node) || node.entity.id !== id)
        );
      });
      assert.ok(await memory.memories.get(id), 'kept, not deleted');
    } finally {
      await config.update('review.unusedDays', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitFor('the group to go with the setting', async () => (await group()) === undefined || undefined);
  });
});
