import * as assert from 'node:assert/strict';
import * as path from 'node:path';

import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ (core ← extension, core ← server) are kept by lint:
 * these lint a few lines as if they were files in each layer, so a change to
 * eslint.config.mjs that stops guarding a boundary fails here.
 */
const root = path.resolve(__dirname, '../..');
// Linted without type information: the text is not a file the TypeScript project knows, and the
// layer rules need no types.
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

async function restricted(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layers', function () {
  // Loading the TypeScript parser takes a moment on a busy machine.
  this.timeout(60_000);

  it('src/core may not import vscode, the extension or the server', async () => {
    assert.equal(
      (await restricted('src/core/x.ts', "import * as vscode from 'vscode';\nexport { vscode };\n")).length,
      1,
    );
    assert.equal((await restricted('src/core/search/x.ts', "export { activate } from '../../extension';\n")).length, 1);
    assert.equal(
      (await restricted('src/core/x.ts', "export { StoreService } from '../extension/services';\n")).length,
      1,
    );
    assert.equal((await restricted('src/core/x.ts', "export { run } from '../server/cli/main';\n")).length, 1);
  });

  it('src/server may not import vscode or the extension, and may import the core', async () => {
    assert.equal((await restricted('src/server/cli/x.ts', "import 'vscode';\n")).length, 1);
    assert.equal(
      (await restricted('src/server/mcp/x.ts', "export { currentScope } from '../../extension/config';\n")).length,
      1,
    );
    assert.deepEqual(await restricted('src/server/cli/x.ts', "export { Memory } from '../../core/memory';\n"), []);
  });

  it('src/extension may import the core', async () => {
    assert.deepEqual(await restricted('src/extension/x.ts', "export { Memory } from '../core/memory';\n"), []);
  });
});
