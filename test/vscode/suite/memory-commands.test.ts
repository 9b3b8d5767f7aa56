// The Memory commands, views and documents, driven as a user would (commands
// take their prompts' answers as arguments) inside a real VS Code.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { Entity, MemoryEntity, SnapshotInfo } from '../../../src/core/index';
import { Memory } from '../../../src/core/memory';
import { entityUri, sameEntityDocument, versionUri } from '../../../src/extension/documents/uris';
import { entityTooltip } from '../../../src/extension/views/labels';
import { entitiesShownIn } from './collections-walk';
import { extensionApi, waitFor } from './extension-api';
import { screenshot } from './harness';

async function entitiesShown(type: Entity['type']): Promise<Entity[]> {
  const { views } = await extensionApi();
  return entitiesShownIn(views, type);
}

async function addMemory(content: string, extra: Record<string, unknown> = {}): Promise<MemoryEntity> {
  const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.addMemory', { content, ...extra });
  assert.ok(entity?.id, 'addMemory returned the saved entity');
  return entity;
}

describe('memory commands', () => {
  it('Add Memory saves to the store and the Collections view lists it', async () => {
    const entity = await addMemory('The API gateway retries idempotent requests three times', {
      category: 'decision',
      tags: ['gateway', 'retries'],
    });
    const { services } = await extensionApi();
    const stored = await (await services.memory()).memories.get(entity.id);
    assert.equal(stored?.category, 'decision');
    assert.deepEqual(stored?.tags, ['gateway', 'retries']);
    await waitFor('the view to list it', async () => (await entitiesShown('memory')).some((e) => e.id === entity.id));
  });

  it('Delete removes it from the view and keeps its history', async () => {
    const entity = await addMemory('A memory that will be deleted');
    await vscode.commands.executeCommand('workspaceMemory.delete', { kind: 'entity', entity }, { confirmed: true });
    await waitFor('the view to drop it', async () => !(await entitiesShown('memory')).some((e) => e.id === entity.id));
    const { services } = await extensionApi();
    const history = await (await services.memory()).history(entity.id);
    assert.deepEqual(
      history.map((h) => h.commit.op),
      ['delete', 'create'],
    );
  });

  it('opens the document of an entity whose id holds @ and %', async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    const { agentId, userId } = services.scope();
    const id = 'memory-imported@laptop%1';
    const file = path.join(os.tmpdir(), `wm-at-id-${Date.now()}.json`);
    const memories = [
      { id, type: 'memory', agentId, userId, content: 'Imported from the laptop', tags: [], category: 'fact' },
    ];
    fs.writeFileSync(file, JSON.stringify({ version: 1, entities: { memories } }));
    await memory.worker.importFrom(file, {});
    fs.rmSync(file);
    const document = await vscode.workspace.openTextDocument(entityUri({ type: 'memory', id }));
    assert.match(document.getText(), /Imported from the laptop/);
    assert.match(document.getText(), /# memory memory-imported@laptop%1 /);
  });

  it('editing the document and saving it makes a new version', async () => {
    const entity = await addMemory('Builds run on Node 24', { tags: ['build'] });
    await vscode.commands.executeCommand('workspaceMemory.edit', { kind: 'entity', entity });
    const editor = await waitFor('the entity editor', () =>
      vscode.window.activeTextEditor?.document.uri.toString() === entityUri(entity).toString()
        ? vscode.window.activeTextEditor
        : undefined,
    );
    const document = editor.document;
    const start = document.getText().indexOf('Builds run on Node 24');
    assert.ok(start > 0, document.getText());
    await editor.edit((edit) =>
      edit.replace(
        new vscode.Range(document.positionAt(start), document.positionAt(start + 'Builds run on Node 24'.length)),
        'Builds run on Node 24 and Node 22.13',
      ),
    );
    assert.equal(await document.save(), true);
    const { services } = await extensionApi();
    const memory = await services.memory();
    const updated = await memory.memories.get(entity.id);
    assert.equal(updated?.content, 'Builds run on Node 24 and Node 22.13');
    assert.equal((await memory.history(entity.id)).length, 2);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('History lists the versions, opens one read-only named by its first words and number, and diffs it with the previous', async () => {
    const entity = await addMemory('Release notes live in CHANGELOG.md', { tags: ['release'] });
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    await memory.memories.update(entity.id, {
      content: 'Release notes live in CHANGELOG.md, in Keep a Changelog style',
    });
    await vscode.commands.executeCommand('workspaceMemory.showHistory', { kind: 'entity', entity });
    const commits = await waitFor('two commits', async () => {
      const nodes = await views.history.getChildren();
      return nodes.length === 2 ? nodes : undefined;
    });
    assert.equal(commits[0]!.head, true);
    assert.equal(commits[1]!.commit.op, 'create');

    const opened = await vscode.commands.executeCommand<vscode.Uri>('workspaceMemory.openVersion', commits[1]);
    // Issue #17: an old version's tab read `memory-…@<hash>.md`; it is named like the current one, plus its number.
    assert.equal(path.posix.basename(opened.path), 'Release notes live in CHANGELOG.md (version 1).md');
    assert.equal(
      vscode.window.tabGroups.activeTabGroup.activeTab?.label,
      'Release notes live in CHANGELOG.md (version 1).md',
    );
    const old = await vscode.workspace.openTextDocument(versionUri(entity, commits[1]!.commit.hash));
    assert.match(old.getText(), /Release notes live in CHANGELOG.md\n/);
    const stat = await vscode.workspace.fs.stat(old.uri);
    assert.equal(stat.permissions, vscode.FilePermission.Readonly);
    assert.match(old.getText(), /An old version, read-only/);
    assert.doesNotMatch(old.getText(), /saving makes a new version/);

    await vscode.commands.executeCommand('workspaceMemory.compareWithPrevious', commits[0]);
    const tab = await waitFor('the diff editor', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    });
    // The same entity versions, whatever readable names the documents carry.
    assert.ok(sameEntityDocument(tab.original, versionUri(entity, commits[1]!.commit.hash)), tab.original.toString());
    assert.ok(sameEntityDocument(tab.modified, entityUri(entity)), tab.modified.toString());
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    await screenshot('history-diff', 1500);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a refused save keeps the store as it was and marks the field that was wrong', async () => {
    const entity = await addMemory('Deploys need two approvals', { category: 'decision' });
    const document = await vscode.workspace.openTextDocument(entityUri(entity));
    const editor = await vscode.window.showTextDocument(document);
    const line = document
      .getText()
      .split('\n')
      .findIndex((l) => l.startsWith('category:'));
    await editor.edit((edit) => edit.replace(document.lineAt(line).range, 'category: nonsense'));
    assert.equal(await document.save(), false, 'the save was refused');
    const problems = await waitFor('the mark on the category line', () => {
      const marks = vscode.languages.getDiagnostics(document.uri);
      return marks.length > 0 ? marks : undefined;
    });
    assert.equal(problems[0]!.range.start.line, line);
    assert.match(problems[0]!.message, /category/);
    const { services } = await extensionApi();
    assert.equal((await (await services.memory()).memories.get(entity.id))?.category, 'decision');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor(
      'the mark to go with the reverted edit',
      () => vscode.languages.getDiagnostics(document.uri).length === 0,
    );
  });

  it('Restore This Version says which version it restored, and its Undo puts back the version it replaced', async () => {
    const entity = await addMemory('Version A of a restorable memory');
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    await memory.memories.update(entity.id, { content: 'Version B of a restorable memory' });
    views.history.show(entity);
    const commits = await waitFor('two commits', async () => {
      const nodes = await views.history.getChildren();
      return nodes.length === 2 ? nodes : undefined;
    });
    const restored = await vscode.commands.executeCommand<{ version: number; undo: unknown }>(
      'workspaceMemory.restoreVersion',
      commits[1],
      { confirmed: true },
    );
    assert.equal(restored.version, 1);
    assert.equal((await memory.memories.get(entity.id))?.content, 'Version A of a restorable memory');
    const [restore] = await memory.history(entity.id);
    assert.equal(restore!.commit.message, 'restore version 1 of “Version A of a restorable memory”');
    assert.equal((await memory.history(entity.id)).length, 3);
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await vscode.commands.executeCommand('notifications.showList');
    await screenshot('restore-version', 1000);
    // The message's Undo button runs this command with what the restore handed it.
    assert.equal(await vscode.commands.executeCommand('workspaceMemory.undoChatSave', restored.undo), 1);
    assert.equal((await memory.memories.get(entity.id))?.content, 'Version B of a restorable memory');
    assert.equal((await memory.history(entity.id)).length, 4);
    // Clicked again, or after another change, it keeps what is there.
    assert.equal(await vscode.commands.executeCommand('workspaceMemory.undoChatSave', restored.undo), 0);
    assert.equal((await memory.memories.get(entity.id))?.content, 'Version B of a restorable memory');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('Compare with Previous Version diffs only the content and fields, not the header about writers and editing', async () => {
    const entity = await addMemory('Backups run nightly at 03:00', { tags: ['backup'] });
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    await memory.memories.update(entity.id, { content: 'Backups run nightly at 04:00', tags: ['backup', 'ops'] });
    views.history.show(entity);
    const commits = await waitFor('two commits', async () => {
      const nodes = await views.history.getChildren();
      return nodes.length === 2 ? nodes : undefined;
    });
    await vscode.commands.executeCommand('workspaceMemory.compareWithPrevious', commits[0]);
    const tab = await waitFor('the diff editor', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    });
    const [left, right] = await Promise.all(
      [tab.original, tab.modified].map(async (uri) => (await vscode.workspace.openTextDocument(uri)).getText()),
    );
    const leftLines = left!.split('\n');
    const differing = right!.split('\n').filter((line, index) => line !== leftLines[index]);
    assert.deepEqual(differing, ['tags: [backup, ops]', 'Backups run nightly at 04:00'], `${left}\n---\n${right}`);
    await screenshot('compare-versions', 1500);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Search finds memories, skills and docs; Preview Recall shows the context', async () => {
    await addMemory('Feature flags are read from LaunchDarkly at start-up', { tags: ['flags'] });
    await vscode.commands.executeCommand('workspaceMemory.addMemory', {
      type: 'skill',
      category: 'procedure',
      content: 'To add a feature flag: declare it in flags.ts, then register it in LaunchDarkly',
    });
    const items = await vscode.commands.executeCommand<{ entity: Entity }[]>('workspaceMemory.search', {
      query: 'launchdarkly feature flag',
    });
    await screenshot('search', 800);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    // Synced workspace docs may match too; the memory and the skill must be there.
    const types = new Set(items.map((item) => item.entity.type));
    assert.ok(types.has('memory') && types.has('skill'), [...types].join(', '));
    const recall = await vscode.commands.executeCommand<{ formatted: string; items: unknown[]; leftOut: number }>(
      'workspaceMemory.previewRecall',
      { query: 'how do feature flags work' },
    );
    assert.match(recall.formatted, /LaunchDarkly/);
    const preview = await waitFor('the recall preview', () => {
      const document = vscode.window.activeTextEditor?.document;
      return document && /This is the context a model would receive/.test(document.getText()) ? document : undefined;
    });
    // A read-only report titled by what it is, not a dirty Untitled document that asks to be saved.
    assert.equal(preview.uri.scheme, 'workspace-memory-report');
    assert.equal(path.posix.basename(preview.uri.path), 'Recall Preview: how do feature flags work.md');
    assert.equal(preview.isUntitled || preview.isDirty, false);
    assert.equal(preview.languageId, 'markdown');
    // Issue #17: the header said "0 more matching items did not fit the budget" when none were left out.
    assert.equal(
      /did not fit the budget/.test(preview.getText()),
      recall.leftOut > 0,
      preview.getText().split('\n')[0],
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Search labels a result by a short title cut at a word, and shows the rest of its text below it', async () => {
    const content =
      'Release candidates are tagged from the main branch after the nightly suite passes twice in a row\n' +
      'Then the changelog is frozen.';
    const entity = await addMemory(content);
    const items = await vscode.commands.executeCommand<(vscode.QuickPickItem & { entity: Entity })[]>(
      'workspaceMemory.search',
      { query: 'release candidates nightly suite' },
    );
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    const item = items.find((candidate) => candidate.entity.id === entity.id);
    assert.ok(item, JSON.stringify(items.map((candidate) => candidate.label)));
    assert.equal(item.label, '$(lightbulb) Release candidates are tagged from the main branch after…');
    assert.equal(item.detail, 'the nightly suite passes twice in a row Then the changelog is frozen.');
  });

  it("a row's tooltip wraps between words: plain spaces, the text cut at a word, the id last", async () => {
    const words = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
    const entity = await addMemory(`Harbour notes: ${words}`);
    const tooltip = entityTooltip(entity);
    assert.doesNotMatch(tooltip.value, /\w&nbsp;\w/, tooltip.value);
    assert.match(tooltip.value, /Harbour notes: word0 word1 /);
    // Cut after a whole word, before the ellipsis.
    assert.match(tooltip.value, /word\d+…\n/);
    assert.ok(tooltip.value.trimEnd().endsWith(`\`${entity.id}\``), tooltip.value);
  });

  it('snapshots restore the store, and export/import round-trip it', async () => {
    const kept = await addMemory('Kept across the snapshot');
    const snapshot = await vscode.commands.executeCommand<SnapshotInfo>('workspaceMemory.createSnapshot', {
      label: 'integration test',
    });
    assert.equal(snapshot.label, 'integration test');
    assert.ok(
      (await (await (await extensionApi()).services.memory()).listSnapshots()).some((s) => s.id === snapshot.id),
      'the snapshot is listed',
    );
    const later = await addMemory('Written after the snapshot');
    const restored = await vscode.commands.executeCommand<SnapshotInfo>('workspaceMemory.restoreSnapshot', {
      snapshotId: snapshot.id,
      confirmed: true,
    });
    assert.equal(restored.id, snapshot.id);
    const { services } = await extensionApi();
    const memory = await services.memory();
    assert.equal(await memory.memories.get(later.id), null);
    assert.ok(await memory.memories.get(kept.id));
    await waitFor(
      'the view to follow the restore',
      async () => !(await entitiesShown('memory')).some((e) => e.id === later.id),
    );

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wm-export-')), 'export.json');
    const exported = await vscode.commands.executeCommand<{ entities: number }>('workspaceMemory.export', {
      path: file,
    });
    assert.ok(exported.entities > 0);
    await memory.memories.delete(kept.id);
    const report = await vscode.commands.executeCommand<{ imported: number }>('workspaceMemory.import', {
      path: file,
      skipExisting: true,
    });
    assert.ok(report.imported >= 1, JSON.stringify(report));
    assert.ok(await memory.memories.get(kept.id), 'the deleted memory came back from the export');
  });

  it('Verify, Show Stats and Rebuild Index report on the store', async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    // Counted before and after a memory of its own: the figures do not depend on what other tests left.
    const before = await memory.stats();
    const entity = await addMemory('Moorings are inspected every spring by a diver');
    const report = await vscode.commands.executeCommand<{ valid: boolean }>('workspaceMemory.verify');
    assert.equal(report.valid, true);
    const stats = await vscode.commands.executeCommand<{ memories: number; path: string }>('workspaceMemory.showStats');
    assert.equal(stats.memories, before.memories + 1);
    // Rendered, not its Markdown source: the table drawn, no pipes or asterisks to read past.
    const preview = await waitFor('the stats preview', () => {
      const active = vscode.window.tabGroups.activeTabGroup.activeTab;
      return active?.input instanceof vscode.TabInputWebview && /Memory Stats/.test(active.label) ? active : undefined;
    });
    assert.match((preview.input as vscode.TabInputWebview).viewType, /markdown\.preview/);
    await screenshot('stats-report', 1500);
    const shown = vscode.workspace.textDocuments.find((document) => /# Workspace Memory/.test(document.getText()));
    assert.ok(shown, 'the report document');
    assert.equal(shown.uri.scheme, 'workspace-memory-report');
    assert.equal(path.posix.basename(shown.uri.path), 'Memory Stats.md');
    assert.equal(shown.isUntitled || shown.isDirty, false);
    assert.match(shown.getText(), new RegExp(`\\| Memories \\| ${stats.memories} \\|`));
    const indexed = await vscode.commands.executeCommand<number>('workspaceMemory.rebuildIndex');
    assert.ok(indexed >= stats.memories, `${indexed} entities indexed, ${stats.memories} memories alone`);
    // The rebuilt index still finds the memory.
    const found = await memory.memories.search(services.scope().agentId, services.scope().userId, 'moorings diver');
    assert.ok(
      found.some((result) => result.entity.id === entity.id),
      JSON.stringify(found.map((result) => result.entity.id)),
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('follows writes by another process (the CLI, the MCP server)', async () => {
    const { services } = await extensionApi();
    const other = await Memory.open({ dir: services.storeDir(), author: 'cli' });
    const [entity] = await other.memories.save(services.scope().agentId, services.scope().userId, {
      content: 'Written by another process',
    });
    await other.close();
    await waitFor('the view to show the external write', async () =>
      (await entitiesShown('memory')).some((e) => e.id === entity.id),
    );
  });

  it('shows a memory in Collections, its versions in History and its document in an editor', async () => {
    const { views } = await extensionApi();
    // A memory of its own with two versions, shown in Collections, History and its editor.
    const entity = await addMemory('Visitors pay harbour dues at the office', { category: 'fact' });
    await (
      await (await extensionApi()).services.memory()
    ).memories.update(entity.id, { content: 'Visitors pay harbour dues at the office or by the app' });
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    await waitFor('the Collections view to be visible', () => views.collectionsView.visible);
    await waitFor('the view to list the memory', async () =>
      (await entitiesShown('memory')).some((e) => e.id === entity.id),
    );
    views.history.show(entity);
    const commits = await waitFor('the two versions in History', async () => {
      const nodes = await views.history.getChildren();
      return nodes.length === 2 ? nodes : undefined;
    });
    assert.deepEqual(
      commits.map((node) => node.commit.op),
      ['update', 'create'],
    );
    assert.equal(views.history.view?.description, 'Visitors pay harbour dues at the office or by the app');
    await vscode.commands.executeCommand('workspaceMemory.open', { kind: 'entity', entity });
    const editor = await waitFor('the memory open in an editor', () => {
      const active = vscode.window.activeTextEditor;
      return active && sameEntityDocument(active.document.uri, entityUri(entity)) ? active : undefined;
    });
    assert.match(editor.document.getText(), /Visitors pay harbour dues at the office or by the app/);
    await screenshot('memory-views', 1500);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
