// The rest of the commands a user reaches from the editor and the palette,
// and the MCP server VS Code is offered, run beside the extension on the
// same store.
import * as assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';

import type { MemoryEntity } from '../../../src/core/types';
import { entitiesShownIn } from './collections-walk';
import { EXTENSION_ID, extensionApi, waitFor } from './extension-api';

describe('editor and workspace commands', () => {
  it('registers every command the manifest declares', async () => {
    await extensionApi();
    const declared = (
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: { command: string }[] } }
    ).contributes.commands.map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      declared.filter((command) => !registered.has(command)),
      [],
    );
  });

  it('Save Selection as Memory saves the selected text, tagged with its language', async () => {
    const document = await vscode.workspace.openTextDocument({
      language: 'typescript',
      content: 'const retries = 3;\n// Retries stop after three attempts, then the job is parked.\nexport {};\n',
    });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(1, 0, 1, document.lineAt(1).text.length);
    const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.saveSelection');
    assert.equal(entity.content, '// Retries stop after three attempts, then the job is parked.');
    assert.deepEqual(entity.tags, ['typescript']);
    assert.equal(entity.citations, undefined, 'an untitled file has no lines on disk to cite');
    const { services } = await extensionApi();
    assert.ok(await (await services.memory()).memories.get(entity.id));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Save Selection as Memory cites the selected lines of a workspace file, with the heading around them', async () => {
    const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, `cited-${Date.now().toString(36)}.md`);
    const text = '# Harbour guide\n\n## Fuel dock\n\nDiesel only, no petrol.\nCash or card, 08:00 to 18:00.\n';
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    try {
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      // The built-in Markdown support answers for headings once its language server is up.
      await waitFor(
        'the Markdown headings as document symbols',
        async () =>
          (await vscode.commands.executeCommand<unknown[] | undefined>('vscode.executeDocumentSymbolProvider', uri))
            ?.length || undefined,
        30_000,
      );
      // Lines 5 and 6, ending at the start of line 7 (which is not taken).
      editor.selection = new vscode.Selection(4, 0, 6, 0);
      const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.saveSelection');
      const [citation] = entity.citations ?? [];
      assert.deepEqual(
        [citation?.path, citation?.startLine, citation?.endLine, citation?.text],
        [vscode.workspace.asRelativePath(uri, false), 5, 6, 'Diesel only, no petrol.\nCash or card, 08:00 to 18:00.'],
      );
      assert.equal(citation?.symbol, 'Harbour guide.Fuel dock');
      // Unsaved changes: the lines on disk may not be the selected ones, so nothing is cited.
      await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), 'Draft\n'));
      editor.selection = new vscode.Selection(5, 0, 5, 10);
      const unsaved = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.saveSelection');
      assert.equal(unsaved.citations, undefined);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await vscode.workspace.fs.delete(uri);
    }
  });

  it('Sync Workspace Docs Now ingests the sample documents', async () => {
    const { services } = await extensionApi();
    await vscode.commands.executeCommand('workspaceMemory.syncDocs');
    const status = await waitFor('the sample docs', async () => {
      const current = await (await services.memory()).rag.status(services.scope().agentId);
      return current.files >= 4 ? current : undefined;
    });
    const paths = status.documents.map((d) => d.path);
    for (const expected of ['README.md', 'CONTRIBUTING.md', 'docs/architecture.md', 'docs/decisions.md']) {
      assert.ok(paths.includes(expected), `${expected} in ${paths.join(', ')}`);
    }
  });
});

describe('MCP server definition', () => {
  it('starts the workspace store over MCP; its writes reach the views, for review', async () => {
    const { mcpServer, services, views } = await extensionApi();
    const definition = mcpServer();
    assert.ok(definition.args.includes(services.storeDir()), definition.args.join(' '));
    const client = new Client({ name: 'integration-test', version: '1.0.0' });
    const env = Object.fromEntries(
      Object.entries({ ...process.env, ...definition.env }).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    await client.connect(new StdioClientTransport({ command: definition.command, args: definition.args, env }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'memory_save'));
      // Agents in VS Code get this workspace's scoped tools only: no store-wide export.
      assert.ok(!tools.some((tool) => tool.name === 'export'), tools.map((tool) => tool.name).join(', '));
      const result = await client.callTool({
        name: 'memory_save',
        arguments: { content: 'Saved by an MCP client', tags: ['mcp'] },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
    } finally {
      await client.close();
    }
    // An MCP client's write waits for review (see review.test.ts), under its client's name.
    const row = await waitFor('the view to show the MCP write under Pending Review', async () => {
      const group = (await views.collections.getChildren()).find((node) => node.kind === 'pending');
      const rows = group ? await views.collections.getChildren(group) : [];
      return rows.find((node) => node.kind === 'pendingItem' && node.entity.content === 'Saved by an MCP client');
    });
    assert.match(String(views.collections.getTreeItem(row).description), /by integration-test 1\.0\.0 \(MCP\)$/);
    await vscode.commands.executeCommand('workspaceMemory.approve', row);
    await waitFor('the view to show the approved MCP write', async () => {
      const shown = await entitiesShownIn(views, 'memory');
      return shown.some((entity) => entity.content === 'Saved by an MCP client');
    });
  });
});

describe('store worker crashes', () => {
  it('restarts a crashed worker, gives up after three crashes in a minute, and starts again when the store is reopened', async function () {
    this.timeout(90_000);
    const { services, storeClient } = await extensionApi();
    const crash = async () => {
      const client = await storeClient();
      const stopped = new Promise<void>((resolve) => client.onDidStop(() => resolve()));
      // What an out-of-memory kill looks like from here: the thread ends without being closed.
      await (client as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      await stopped;
    };
    await crash();
    // Started again on the next use: it writes and reads back.
    const { agentId } = services.scope();
    const [saved] = await (await services.memory()).memories.save(agentId, undefined, { content: 'after a crash' });
    assert.equal((await (await services.memory()).get(saved.id))?.content, 'after a crash');
    await crash();
    await crash();
    await assert.rejects(storeClient(), /stopped unexpectedly 3 times/);

    // Reopening the store (here: for another user, then back) is a fresh start.
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    const user = config.inspect<string>('userId')?.workspaceValue;
    await config.update('userId', 'crash-test', vscode.ConfigurationTarget.Workspace);
    await config.update('userId', user, vscode.ConfigurationTarget.Workspace);
    // Open again: what was written before the crashes is still there, and a new write reads back.
    await waitFor(
      'the store to open again',
      async () => (await (await services.memory()).get(saved.id))?.content === 'after a crash',
    );
    const [reopened] = await (
      await services.memory()
    ).memories.save(agentId, undefined, { content: 'after reopening' });
    assert.equal((await (await services.memory()).get(reopened.id))?.content, 'after reopening');
  });
});
