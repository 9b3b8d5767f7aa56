// Smoke test: the extension is installed in the development host and activates.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import { HARNESS_ENV, hasHarness, screenshot } from './harness';

const EXTENSION_ID = 'workspace-memory.workspace-memory';

describe('activation', () => {
  it('finds the extension under development', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not loaded`);
  });

  it('activates on a Node with node:sqlite', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    assert.equal(extension.isActive, true);
    // The extension host is the server's Node 24, so node:sqlite loads.
    assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `Node ${process.versions.node}`);
  });

  it('opens the trusted sample workspace', () => {
    assert.equal(vscode.workspace.isTrusted, true);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a workspace folder is open');
    // The extension host runs on the server, so it sees the folder as a local file.
    assert.equal(folder.uri.scheme, 'file');
    assert.equal(folder.name, 'workspace');
  });

  it('reaches the harness through the inherited environment', function () {
    // Under @vscode/test-cli on the desktop there is no harness: nothing to check.
    if (!process.env[HARNESS_ENV]) this.skip();
    assert.equal(hasHarness, true);
  });

  it('captures the workbench with the sample README open', async () => {
    const readme = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'README.md');
    await vscode.window.showTextDocument(readme);
    // What the screenshot shows: the README in the active editor, as it is on disk.
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'an active editor');
    assert.equal(editor.document.uri.toString(), readme.toString());
    const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(readme));
    assert.match(onDisk, /^# /, 'the sample README starts with a heading');
    assert.equal(editor.document.getText(), onDisk);
    assert.equal(editor.document.isDirty, false);
    const file = await screenshot('workbench');
    if (hasHarness) assert.ok(file?.endsWith('workbench.png'), String(file));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
