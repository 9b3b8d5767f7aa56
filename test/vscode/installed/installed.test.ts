// Workspace Memory installed from its .vsix (see prepare.mjs), not loaded
// from the source tree: it activates, its views and commands work, document
// sync ingests the workspace's Markdown and the MCP server starts from the
// installed files. Each check reaches a file of the package at run time, so
// one that .vscodeignore leaves out fails here.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';

import type { MemoryEntity } from '../../../src/core/types';
import { descendants, entitiesShownIn } from '../suite/collections-walk';
import { EXTENSION_ID, extensionApi, waitFor } from '../suite/extension-api';

/** Where VS Code installed the .vsix (from <extensions>/extensions.json); set by prepare.mjs. */
const installedPath = process.env.WORKSPACE_MEMORY_TEST_INSTALLED_PATH;

function installedExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed`);
  return extension;
}

interface Manifest {
  displayName: string;
  description: string;
  main: string;
  icon: string;
  contributes: {
    commands: { command: string; title: string; icon?: unknown }[];
    viewsContainers: Record<string, { id: string; title: string; icon: string }[]>;
    views: Record<string, { id: string; name: string; icon?: string }[]>;
  };
}

/** Saves a memory through the installed extension's Add Memory command. */
async function addMemory(content: string): Promise<MemoryEntity> {
  const entity = await vscode.commands.executeCommand<MemoryEntity>('workspaceMemory.addMemory', {
    content,
    tags: ['installed'],
  });
  assert.ok(entity?.id, 'Add Memory returned no entity');
  return entity;
}

/** Waits for the sync that starts with the extension to ingest the sample workspace's four Markdown files. */
async function syncedDocuments(): Promise<string[]> {
  const { services } = await extensionApi();
  const status = await waitFor(
    'doc sync to ingest the sample documents',
    async () => {
      const current = await (await services.memory()).rag.status(services.scope().agentId);
      return current.files >= 4 ? current : undefined;
    },
    60_000,
  );
  return status.documents.map((document) => document.path).sort();
}

describe('installed from the .vsix', () => {
  it('runs the installed copy, not the source tree', () => {
    assert.ok(installedPath, 'WORKSPACE_MEMORY_TEST_INSTALLED_PATH is not set: run through test/vscode/run.mjs');
    const extension = installedExtension();
    assert.equal(fs.realpathSync(extension.extensionPath), fs.realpathSync(installedPath));
    // What a package holds: the bundles, never the sources the development host would run from.
    for (const absent of ['src', 'node_modules', 'test', 'tsconfig.json']) {
      assert.ok(!fs.existsSync(path.join(extension.extensionPath, absent)), `${absent} is in the package`);
    }
  });

  it('ships every file its manifest names, and its localized strings', () => {
    const extension = installedExtension();
    const manifest = extension.packageJSON as Manifest;
    const named = [
      manifest.main,
      manifest.icon,
      ...Object.values(manifest.contributes.viewsContainers)
        .flat()
        .map((container) => container.icon),
      ...Object.values(manifest.contributes.views)
        .flat()
        .flatMap((view) => (view.icon ? [view.icon] : [])),
      ...manifest.contributes.commands.flatMap((command) =>
        typeof command.icon === 'string' && !command.icon.startsWith('$(') ? [command.icon] : [],
      ),
    ];
    const missing = named.filter((file) => !fs.existsSync(path.join(extension.extensionPath, file)));
    assert.deepEqual(missing, [], `named in package.json but not in the package`);
    // VS Code replaces %key% with package.nls.json's text when it reads the
    // manifest; without that file the user sees the keys.
    const texts = [
      manifest.displayName,
      manifest.description,
      ...manifest.contributes.commands.map((command) => command.title),
      ...Object.values(manifest.contributes.views)
        .flat()
        .map((view) => view.name),
    ];
    assert.deepEqual(
      texts.filter((text) => /^%[\w.-]+%$/.test(text)),
      [],
      'untranslated manifest strings',
    );
    assert.equal(manifest.displayName, 'Workspace Memory');
  });

  it('ships the images its README shows in the Extensions view', () => {
    const extension = installedExtension();
    // vsce writes the README as readme.md; relative links resolve against the installed folder.
    const readme = fs.readFileSync(path.join(extension.extensionPath, 'readme.md'), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img[^>]*\ssrc="([^"]+)"/g)].map(
      (match) => match[1] ?? match[2] ?? '',
    );
    assert.ok(images.length > 0, 'the README shows no image');
    const relative = images.filter((src) => !/^(https:|data:)/.test(src));
    assert.deepEqual(
      relative.filter((src) => !fs.existsSync(path.join(extension.extensionPath, decodeURI(src.split('#')[0]!)))),
      [],
      // http: lands here too: the Marketplace and VS Code's details page load only https images.
      'README images that are neither https nor in the package',
    );
  });

  it('activates with every feature, and its store opens in the packaged worker', async () => {
    const api = await extensionApi();
    assert.equal(installedExtension().isActive, true);
    // The store runs in dist/worker.js + dist/store-worker.js: it answers only if both were packaged.
    const readyMs = await api.startup.ready;
    assert.ok(readyMs > 0);
  });

  it('registers every command the manifest declares, and they work', async () => {
    await extensionApi();
    const declared = (installedExtension().packageJSON as Manifest).contributes.commands.map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      declared.filter((command) => !registered.has(command)),
      [],
    );
    const entity = await addMemory('Saved through the Add Memory command of the installed extension');
    const { services } = await extensionApi();
    assert.equal((await (await services.memory()).memories.get(entity.id))?.tags.includes('installed'), true);
    const snapshot = await vscode.commands.executeCommand<{ id: string; entities: number }>(
      'workspaceMemory.createSnapshot',
      { label: 'installed' },
    );
    assert.ok(snapshot.entities >= 1, JSON.stringify(snapshot));
    const report = await vscode.commands.executeCommand<{ valid: boolean }>('workspaceMemory.verify');
    assert.equal(report.valid, true, JSON.stringify(report));
  });

  it('shows the store in the Collections view', async () => {
    const { views } = await extensionApi();
    await addMemory('Shown in the Collections view of the installed extension');
    await vscode.commands.executeCommand('workbench.view.extension.workspaceMemory');
    await waitFor('the memory saved above in the Collections view', async () => {
      const shown = await entitiesShownIn(views, 'memory');
      return shown.some((entity) => entity.content === 'Shown in the Collections view of the installed extension');
    });
  });

  it('syncs the workspace documents on its own', async function () {
    // Room for the waits below to say what they waited for before mocha's 60 s cut in.
    this.timeout(120_000);
    const { docSync, views } = await extensionApi();
    // No Sync Workspace Docs Now here: the sync that starts with the extension must ingest them.
    const paths = await syncedDocuments();
    for (const expected of ['CONTRIBUTING.md', 'README.md', 'docs/architecture.md', 'docs/decisions.md']) {
      assert.ok(paths.includes(expected), `${expected} in ${paths.join(', ')}`);
    }
    await waitFor('doc sync to settle', () => docSync.status.state === 'idle', 30_000);
    assert.ok((docSync.status.chunks ?? 0) > 0, JSON.stringify(docSync.status));
    // And the Collections view lists them, as a user sees them under Knowledge.
    await waitFor('the synced documents in the Collections view', async () => {
      const knowledge = (await views.collections.getChildren()).find(
        (node) => node.kind === 'type' && node.type === 'knowledge',
      );
      if (!knowledge) return false;
      const shown = (await descendants(views, knowledge)).flatMap((node) =>
        node.kind === 'document' ? [node.source] : [],
      );
      return paths.every((source) => shown.includes(source));
    });
  });

  it('starts the MCP server from the installed files, on the same store', async () => {
    const { mcpServer, services } = await extensionApi();
    await addMemory('Installed from the vsix: bookings close at midnight in the marina timezone');
    await syncedDocuments();
    const definition = mcpServer();
    const script = path.join(installedExtension().extensionPath, 'dist', 'mcp.js');
    assert.equal(definition.args[0], script, definition.args.join(' '));
    assert.ok(definition.args.includes(services.storeDir()), definition.args.join(' '));
    const env = Object.fromEntries(
      Object.entries({ ...process.env, ...definition.env }).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    const client = new Client({ name: 'installed-test', version: '1.0.0' });
    // The server's stderr, so that a server that cannot start (a module missing from the package) says why.
    const transport = new StdioClientTransport({
      command: definition.command,
      args: definition.args,
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    try {
      await client.connect(transport);
    } catch (error) {
      throw new Error(`the MCP server did not start: ${String(error)}\n${stderr}`, { cause: error });
    }
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const expected of ['memory_save', 'memory_search', 'docs_search']) {
        assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
      }
      // It reads what the installed extension wrote: the memory saved above and the synced documents.
      const memories = await client.callTool({ name: 'memory_search', arguments: { query: 'marina midnight' } });
      assert.notEqual(memories.isError, true, JSON.stringify(memories.content));
      assert.match(JSON.stringify(memories.content), /Installed from the vsix/);
      const docs = await client.callTool({ name: 'docs_search', arguments: { query: 'PostgreSQL over SQLite' } });
      assert.notEqual(docs.isError, true, JSON.stringify(docs.content));
      assert.match(JSON.stringify(docs.content), /docs\/decisions\.md:\d+/);
    } finally {
      await client.close();
    }
  });
});
