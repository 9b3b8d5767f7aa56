// The Snapshots view, the restore summary, the chat-model notice, the
// Restricted Mode welcome's condition and the Get Started walkthrough.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { SnapshotInfo } from '../../../src/core/index';
import { EXTENSION_ID, extensionApi, waitFor } from './extension-api';
import { screenshot } from './harness';

describe('Snapshots view', () => {
  it('lists a new snapshot, restoring it says what changes before it changes it, and the store it replaced is kept to undo with', async function () {
    this.timeout(90_000);
    const { services, views } = await extensionApi();
    const label = `h3 snapshot ${Date.now().toString(36)}`;
    const created = await vscode.commands.executeCommand<SnapshotInfo>('workspaceMemory.createSnapshot', { label });
    assert.ok(created?.id);

    const row = await waitFor('the view to list it', async () =>
      (await views.snapshots.getChildren()).find((node) => node.snapshot.id === created.id),
    );
    const item = views.snapshots.getTreeItem(row);
    assert.equal(item.label, label);
    assert.equal(item.contextValue, 'snapshot');
    assert.match(String(item.description), new RegExp(`${created.entities} entities`));
    // Newest first.
    assert.equal((await views.snapshots.getChildren())[0]?.snapshot.id, created.id);
    await vscode.commands.executeCommand('workspaceMemory.snapshots.focus');
    // What the screenshot shows: the view open, the new snapshot at its top.
    await waitFor('the Snapshots view to be visible', () => views.snapshots.view?.visible);
    await screenshot('snapshots-view');

    // A memory written after the snapshot: the restore removes it, and says so first.
    const memory = await services.memory();
    const { agentId } = services.scope();
    const [saved] = await memory.memories.saveMany([
      { agentId, input: { content: `Written after ${label}`, category: 'fact' } },
    ]);
    assert.ok(saved, 'saveMany saved the memory');
    const [later] = saved;
    assert.equal((await memory.get(later.id))?.content, `Written after ${label}`, 'there before the restore');
    const preview = await memory.worker.restorePreview(created.id);
    assert.ok(
      preview.removed.ids.some((entry) => entry.id === later.id),
      JSON.stringify(preview.removed),
    );

    const restored = await vscode.commands.executeCommand<SnapshotInfo & { summary: string; before?: SnapshotInfo }>(
      'workspaceMemory.restoreSnapshot',
      // As the row's Restore button runs it, with the modal's answer given.
      row,
      { confirmed: true },
    );
    assert.equal(restored?.id, created.id);
    assert.match(
      restored.summary,
      new RegExp(`Removes ${preview.removed.total} entit(y|ies) \\(.*\\d+ (memory|memories)`),
    );
    assert.match(restored.summary, /Leaves \d+ entit(y|ies) unchanged\./);
    assert.match(restored.summary, /history goes back to the snapshot/);
    assert.equal(await memory.get(later.id), null, 'the memory written after the snapshot is gone');

    // The store as it was is kept first: restoring that snapshot (the message's Undo) brings the memory back.
    assert.equal(restored.before?.label, `before restoring ${label}`);
    await vscode.commands.executeCommand('workspaceMemory.restoreSnapshot', {
      snapshotId: restored.before.id,
      confirmed: true,
    });
    assert.equal((await memory.get(later.id))?.content, `Written after ${label}`, 'the undo brought it back');
  });
});

describe('Memory views: notices', () => {
  it('says nothing about chat while a chat model is available (the fake model here)', async () => {
    const { views } = await extensionApi();
    assert.equal(await views.chatModel.check(), true);
    assert.equal(views.chatModel.available, true);
    assert.equal(views.collectionsMessage(), undefined);
  });

  it('shows the Restricted Mode welcome by the extension’s own trust key, never VS Code’s early-unset one', () => {
    // `isWorkspaceTrusted` is unset until the workbench's trust service has started: on a first open
    // `!isWorkspaceTrusted` held in a trusted workspace, and the empty view said "Restricted Mode".
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { viewsWelcome: { contents: string; when: string }[] };
    };
    const welcome = manifest.contributes.viewsWelcome;
    assert.ok(
      welcome.every((entry) => !entry.when.includes('isWorkspaceTrusted')),
      JSON.stringify(welcome),
    );
    // The manifest as VS Code read it: its %placeholders% may or may not be replaced by their text.
    const restricted = welcome.find(
      (entry) =>
        entry.contents === '%view.collections.welcomeRestricted%' ||
        entry.contents.startsWith('This workspace is in Restricted Mode'),
    );
    assert.match(restricted?.when ?? '', /^workspaceMemory\.restricted\b/);
    assert.equal(vscode.workspace.isTrusted, true);
  });
});

describe('Get Started walkthrough', () => {
  it('has a step per topic, each with its Markdown page, and opens from its command', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const manifest = extension.packageJSON as {
      contributes: {
        walkthroughs: {
          id: string;
          steps: { id: string; media: { markdown: string }; completionEvents: string[] }[];
        }[];
      };
    };
    const [walkthrough] = manifest.contributes.walkthroughs;
    assert.equal(walkthrough?.id, 'workspaceMemory.gettingStarted');
    assert.deepEqual(
      walkthrough.steps.map((step) => step.id),
      ['views', 'addMemory', 'chat', 'docSync', 'mcp'],
    );
    for (const step of walkthrough.steps) {
      const page = fs.readFileSync(path.join(extension.extensionPath, step.media.markdown), 'utf8');
      assert.match(page, /^# /, `${step.media.markdown} is a Markdown page`);
      assert.ok(step.completionEvents.length > 0, `${step.id} completes on an event`);
    }
    await vscode.commands.executeCommand('workspaceMemory.openWalkthrough');
    await waitFor('the walkthrough to open', () =>
      vscode.window.tabGroups.all.some((group) =>
        group.tabs.some((tab) => /Workspace Memory|Welcome|Walkthrough/i.test(tab.label)),
      ),
    );
    await screenshot('walkthrough', 1500);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
