// The Collections view at the scale of a real workspace: memories by
// category (users told apart), knowledge by folder → document → chunks in
// order, and paging inside a group. Each test makes its own entities, under
// names no other test uses.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { Entity } from '../../../src/core/types';
import type { CollectionNode } from '../../../src/extension/views/collections-tree';
import { descendants } from './collections-walk';
import { extensionApi, type RegisteredApi, waitFor } from './extension-api';
import { screenshot } from './harness';

type Views = RegisteredApi['views'];

async function typeNode(views: Views, type: Entity['type']): Promise<CollectionNode> {
  return waitFor(`the ${type} row`, async () =>
    (await views.collections.getChildren()).find((n) => n.kind === 'type' && n.type === type),
  );
}

/** The own scope's row of a type (this agent). */
async function ownScope(views: Views, type: Entity['type'], agentId: string): Promise<CollectionNode> {
  const scopes = await views.collections.getChildren(await typeNode(views, type));
  const scope = scopes.find((n) => n.kind === 'scope' && n.agentId === agentId);
  assert.ok(scope, `a scope row for ${agentId}`);
  return scope;
}

function ids(rows: readonly CollectionNode[]): string[] {
  return rows.flatMap((row) => (row.kind === 'entity' ? [row.entity.id] : []));
}

describe('Collections view groups', () => {
  // The knowledge made here goes after the suite: views shown later (and their screenshots) list the
  // workspace's own documents, not these.
  const made: string[] = [];
  const keep = (results: readonly ([Entity, unknown] | null)[]) =>
    made.push(...results.flatMap((result) => (result ? [result[0].id] : [])));
  after(async () => {
    const { services } = await extensionApi();
    if (made.length) await (await services.memory()).knowledge.deleteMany(made);
  });

  it('an empty Memories group says how to add the first memory instead of a lone "0" scope row', async () => {
    const { services, views } = await extensionApi();
    // An agent with nothing stored yet: its Memories group is empty.
    const agentId = `h3-empty-${Date.now().toString(36)}`;
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('agentId', agentId, vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor('the new agent in scope', () => services.scope().agentId === agentId);
      const memories = await waitFor('an empty Memories row', async () =>
        (await views.collections.getChildren()).find((n) => n.kind === 'type' && n.type === 'memory' && n.count === 0),
      );
      const rows = await views.collections.getChildren(memories);
      assert.equal(rows.length, 1);
      const item = views.collections.getTreeItem(rows[0]!);
      assert.equal(item.label, 'No memories yet — Add Memory…');
      assert.equal(item.command?.command, 'workspaceMemory.addMemory');
    } finally {
      await config.update('agentId', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('groups memories by category, with user-less and per-user items apart', async () => {
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const { agentId } = services.scope();
    const user = `h3-user-${Date.now().toString(36)}`;
    const [everyone] = await memory.memories.saveMany([
      { agentId, input: { content: `A correction for everyone ${user}`, category: 'correction' } },
    ]);
    const [mine] = await memory.memories.saveMany([
      { agentId, userId: user, input: { content: `A correction for one user ${user}`, category: 'correction' } },
    ]);
    assert.ok(everyone && mine);
    views.collections.refresh();

    const categories = await views.collections.getChildren(await ownScope(views, 'memory', agentId));
    const correction = categories.find((n) => n.kind === 'category' && n.category === 'correction');
    assert.ok(correction?.kind === 'category', 'a "correction" category row');
    assert.ok(
      categories.every((n) => n.kind === 'category'),
      'memories are listed by category, not one flat list',
    );
    const item = views.collections.getTreeItem(correction);
    assert.equal(item.label, 'correction');
    assert.equal(item.description, String(correction.count));

    // The category holds items without a user and for `user`: each is its own row.
    const users = await views.collections.getChildren(correction);
    const noUser = users.find((n) => n.kind === 'user' && n.userId === null);
    const ofUser = users.find((n) => n.kind === 'user' && n.userId === user);
    assert.ok(noUser && ofUser, JSON.stringify(users));
    assert.equal(views.collections.getTreeItem(ofUser).label, `@${user}`);
    assert.ok(ids(await views.collections.getChildren(noUser)).includes(everyone[0].id));
    const forUser = ids(await views.collections.getChildren(ofUser));
    assert.deepEqual(forUser, [mine[0].id]);
    assert.ok(!ids(await views.collections.getChildren(noUser)).includes(mine[0].id));
  });

  it('groups knowledge by folder, then document with its chunk count, chunks in order', async () => {
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const { agentId } = services.scope();
    const folder = `h3-docs-${Date.now().toString(36)}`;
    const guide = `${folder}/guide.md`;
    // Saved out of order: the view orders a document's chunks by their place in it.
    const chunk = (index: number, heading: string) => ({
      agentId,
      input: { content: `${heading} section of the guide`, source: guide, chunkIndex: index, headingPath: [heading] },
    });
    keep(await memory.knowledge.saveMany([chunk(2, 'Deploying'), chunk(0, 'Installing'), chunk(1, 'Configuring')]));
    keep(
      await memory.knowledge.saveMany([
        { agentId, input: { content: 'Notes in a sub-folder', source: `${folder}/sub/notes.md`, chunkIndex: 0 } },
      ]),
    );
    views.collections.refresh();

    const groups = await views.collections.getChildren(await ownScope(views, 'knowledge', agentId));
    const folderRow = groups.find((n) => n.kind === 'folder' && n.folder === folder);
    const subRow = groups.find((n) => n.kind === 'folder' && n.folder === `${folder}/sub`);
    assert.ok(folderRow?.kind === 'folder' && subRow, JSON.stringify(groups.map((g) => g.kind)));
    assert.equal(folderRow.documents, 1);
    assert.equal(folderRow.chunks, 3);
    assert.equal(views.collections.getTreeItem(folderRow).description, '1 document · 3 chunks');

    const [documentRow] = await views.collections.getChildren(folderRow);
    assert.ok(documentRow?.kind === 'document');
    const documentItem = views.collections.getTreeItem(documentRow);
    assert.equal(documentItem.label, 'guide.md');
    assert.equal(documentItem.description, '3 chunks');
    assert.equal(documentItem.tooltip, guide);

    const chunks = await views.collections.getChildren(documentRow);
    const labels = chunks.map((row) => views.collections.getTreeItem(row).label);
    assert.deepEqual(labels, ['1. Installing', '2. Configuring', '3. Deploying']);
    // Knowledge saved by hand stays editable (only synced chunks are read-only).
    assert.equal(views.collections.getTreeItem(chunks[0]!).contextValue, 'entity.knowledge');

    // What a user sees: the document open under its folder, its chunks in order.
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    // After the refresh the writes above cause (throttled), which would otherwise redraw the tree under the reveal.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await views.collectionsView.reveal(chunks[0]!, { expand: true, focus: false, select: false });
    assert.equal(views.collections.getParent(chunks[0]!), documentRow);
    assert.equal(views.collections.getParent(documentRow), folderRow);
    // What the screenshot shows: the Collections view open on that chunk.
    await waitFor('the Collections view to be visible', () => views.collectionsView.visible);
    await screenshot('collections-groups', 1000);
  });

  it('pages inside a group: 200 chunks, then "Show more" for the rest', async function () {
    this.timeout(120_000);
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const { agentId } = services.scope();
    const source = `h3-big-${Date.now().toString(36)}/manual.md`;
    const inputs = Array.from({ length: 205 }, (_, index) => ({
      agentId,
      input: { content: `Paragraph ${index} of the manual`, source, chunkIndex: index },
    }));
    keep(await memory.knowledge.saveMany(inputs));
    views.collections.refresh();

    const groups = await descendants(views, await ownScope(views, 'knowledge', agentId));
    const documentRow = groups.find((n) => n.kind === 'document' && n.source === source);
    assert.ok(documentRow, 'the document row');
    const first = await views.collections.getChildren(documentRow);
    assert.equal(ids(first).length, 200);
    const more = first.at(-1);
    assert.ok(more?.kind === 'more', 'a "Show more" row ends the page');
    assert.equal(more.total, 205);
    assert.equal(views.collections.getTreeItem(more).label, 'Show more (200 of 205)');

    await vscode.commands.executeCommand('workspaceMemory.showMore', more);
    const all = await views.collections.getChildren(documentRow);
    assert.equal(ids(all).length, 205);
    assert.ok(!all.some((row) => row.kind === 'more'));
    // In chunk order across the page boundary.
    const contents = all.flatMap((row) => (row.kind === 'entity' ? [row.entity.content] : []));
    assert.equal(contents[199], 'Paragraph 199 of the manual');
    assert.equal(contents[204], 'Paragraph 204 of the manual');
  });
});
