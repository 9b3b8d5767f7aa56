// Runs on a workspace VS Code opened in Restricted Mode (see the `restricted`
// run in test/vscode/run.mjs): features that need trust must stay off here.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

describe('restricted mode', () => {
  it('opens the workspace untrusted', () => {
    assert.ok(vscode.workspace.workspaceFolders?.length, 'a workspace folder is open');
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('still loads the extension', () => {
    assert.ok(vscode.extensions.getExtension('workspace-memory.workspace-memory'));
  });
});
