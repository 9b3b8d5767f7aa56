// Team memory in a real VS Code: files that land in the workspace's team
// folder (a pull, a checkout, an edit by hand) show in the Team group and
// are searched with the rest; Share with Team writes a memory's file, Make
// Personal takes it back; a broken file is listed with its problem.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import { COMMANDS } from '../../../src/extension/commands/ids';
import type { CollectionNode } from '../../../src/extension/views/collections-tree';
import { extensionApi, waitFor } from './extension-api';
import { lastReply, sendChat } from './fake-model';
import { screenshot } from './harness';

const encode = (text: string) => new TextEncoder().encode(text);

describe('team memory in the team folder', () => {
  const folder = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, '.memory');
  after(async () => {
    // The folder goes, and with it (at the next sync) the team memory it held.
    await vscode.workspace.fs.delete(folder(), { recursive: true }).then(undefined, () => undefined);
    const { views } = await extensionApi();
    await waitFor(
      'the Team group to go',
      async () => (await views.collections.getChildren()).every((node) => node.kind !== 'team') || undefined,
    );
  });

  async function teamRows(): Promise<CollectionNode[]> {
    const { views } = await extensionApi();
    const group = (await views.collections.getChildren()).find((node) => node.kind === 'team');
    return group ? views.collections.getChildren(group) : [];
  }

  it('a file written into the team folder (as a pull would) shows in the Team group and is found by search', async () => {
    const id = `memory-mx0000000${'a1b2c3d4e5f6'}`;
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(folder(), 'memory', 'releases-a1b2c3d4e5f6.md'),
      encode(
        `---\nid: ${id}\ntype: memory\ncategory: decision\ntags: [release]\ncreatedBy: Ana <ana@example.org>\n---\nReleases are cut on Tuesdays, from main.\n`,
      ),
    );
    const row = await waitFor(
      'the team memory in the Team group',
      async () => (await teamRows()).find((node) => node.kind === 'teamItem' && node.entity.id === id),
      30_000,
    );
    const { views, services } = await extensionApi();
    assert.match(String(views.collections.getTreeItem(row).description), /new, not committed|committed|modified/);
    const memory = await services.memory();
    const found = await memory.memories.search(
      services.scope().agentId,
      services.scope().userId,
      'when are releases cut',
      5,
    );
    assert.ok(
      found.some(({ entity }) => entity.id === id),
      'searched with every agent’s own memories',
    );
  });

  /** Shows the Collections view with the Team group open. */
  async function revealTeamGroup(): Promise<void> {
    const { views } = await extensionApi();
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    // The view may be drawing a refresh: reveal the group once it is there.
    await waitFor('the Team group revealed', async () => {
      const group = (await views.collections.getChildren()).find((node) => node.kind === 'team');
      return (
        group &&
        views.collectionsView.reveal(group, { expand: true, focus: false, select: false }).then(
          () => true,
          () => undefined,
        )
      );
    });
  }

  it('Share with Team writes a memory’s file and moves it to the team; Make Personal takes it back and removes the file', async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    const [entity] = await memory.memories.save(services.scope().agentId, services.scope().userId, {
      content: 'The staging database is called blue',
    });
    await vscode.commands.executeCommand(COMMANDS.shareWithTeam, { kind: 'entity', entity });
    const file = await waitFor('the team file', async () => {
      const names = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(folder(), 'memory'));
      return names.map(([name]) => name).find((name) => name.endsWith(`-${entity.id.slice(-12)}.md`));
    });
    assert.match(file, /^the-staging-database-is-called-blue-/);
    assert.equal((await memory.memories.get(entity.id))?.agentId, '_team');
    await waitFor(
      'the shared memory in the Team group',
      async () =>
        (await teamRows()).some((node) => node.kind === 'teamItem' && node.entity.id === entity.id) || undefined,
    );

    await vscode.commands.executeCommand(COMMANDS.makePersonal, { kind: 'entity', entity });
    assert.equal((await memory.memories.get(entity.id))?.agentId, services.scope().agentId);
    const left = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(folder(), 'memory'));
    assert.ok(
      left.every(([name]) => !name.endsWith(`-${entity.id.slice(-12)}.md`)),
      'its file is gone',
    );
    await memory.memories.delete(entity.id);
  });

  it('@memory /share offers the memory with a Share with Team button and shares nothing by itself', async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    const [entity] = await memory.memories.save(services.scope().agentId, services.scope().userId, {
      content: 'Invoices are numbered per year',
    });
    const { metadata } = await sendChat(`@memory /share ${entity.id}`);
    assert.match(await lastReply(metadata!), /\[Share with Team\]/);
    assert.equal(
      (await memory.memories.get(entity.id))?.agentId,
      services.scope().agentId,
      'not shared until the click',
    );
    await memory.memories.delete(entity.id);
  });

  it('a file with a merge conflict is listed with its problem, and its memory keeps its last good version', async () => {
    const id = `memory-mx0000000${'0f1e2d3c4b5a'}`;
    const uri = vscode.Uri.joinPath(folder(), 'memory', 'port-0f1e2d3c4b5a.md');
    await vscode.workspace.fs.writeFile(uri, encode(`---\nid: ${id}\ntype: memory\n---\nThe API listens on 8080\n`));
    const { services } = await extensionApi();
    const memory = await services.memory();
    // A sync follows the file's creation (the watcher, then a settle of 300 ms; git is asked too).
    await waitFor('the memory', async () => (await memory.memories.get(id)) ?? undefined, 30_000);
    await vscode.workspace.fs.writeFile(
      uri,
      encode(
        `---\nid: ${id}\ntype: memory\n---\n<<<<<<< HEAD\nThe API listens on 9090\n=======\nThe API listens on 7070\n>>>>>>> theirs\n`,
      ),
    );
    const problem = await waitFor('the problem row', async () =>
      (await teamRows()).find((node) => node.kind === 'teamProblem' && node.file === 'memory/port-0f1e2d3c4b5a.md'),
    );
    assert.equal(problem.kind === 'teamProblem' && problem.problem.code, 'CONFLICT');
    assert.equal((await memory.memories.get(id))?.content, 'The API listens on 8080', 'the last good version');
    // What the README shows: the Team group with the problem, and the file open where its fix is.
    await revealTeamGroup();
    await vscode.window.showTextDocument(uri, { preview: false });
    await screenshot('team-group', 1000);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await vscode.workspace.fs.delete(uri);
  });
});
