// Restricted Mode: the memory store works, but nothing from the untrusted
// workspace is ingested automatically, and the views and the command say why.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as vscode from 'vscode';

import { extensionApi, waitFor } from '../suite/extension-api';
import { screenshot } from '../suite/harness';

describe('restricted mode: doc sync', () => {
  it('reports doc sync as restricted and ingests nothing, also after a file is created', async () => {
    const { docSync, services } = await extensionApi();
    await waitFor('the restricted state', () => docSync.status.state === 'restricted');
    assert.match(docSync.status.message ?? '', /Restricted Mode|trust/i);
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    fs.writeFileSync(path.join(folder, 'untrusted-note.md'), '# Untrusted\n\nThis must not be ingested.\n');
    // Longer than the watcher's debounce: a trusted workspace would have ingested it by now.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const status = await (await services.memory()).rag.status(services.scope().agentId);
    assert.equal(status.files, 0, JSON.stringify(status.documents.map((d) => d.path)));
  });

  it('Sync Workspace Docs Now refuses in Restricted Mode', async () => {
    const { services } = await extensionApi();
    await vscode.commands.executeCommand('workspaceMemory.syncDocs');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const status = await (await services.memory()).rag.status(services.scope().agentId);
    assert.equal(status.files, 0);
  });

  it('keeps the memory store usable', async () => {
    const entity = await vscode.commands.executeCommand<{ id: string }>('workspaceMemory.addMemory', {
      content: 'Memories work in Restricted Mode',
    });
    const { services } = await extensionApi();
    assert.equal(
      (await (await services.memory()).memories.get(entity.id))?.content,
      'Memories work in Restricted Mode',
    );
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    const { views } = await extensionApi();
    assert.match(views.collectionsMessage() ?? '', /Restricted Mode/);
    await screenshot('restricted-mode', 1000);
  });
});
