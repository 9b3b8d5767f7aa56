// Runs the main integration suite in a desktop VS Code through
// @vscode/test-cli (`npx vscode-test`), for developers whose machine can
// download VS Code. Build the bundles first:
//   npm run test:vscode -- --bundle-only && npx vscode-test
// (test-cli also needs @vscode/test-electron installed.) On an offline
// machine and in CI, `npm run test:vscode` runs the same tests in VS Code's
// server and web workbench instead; see test/vscode/run.mjs.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'main',
  files: 'out/vscode-test/main/**/*.test.js',
  workspaceFolder: 'samples/workspace',
  mocha: { ui: 'bdd', timeout: 60_000 },
});
