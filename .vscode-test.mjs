// Runs the main integration suite in a desktop VS Code through
// @vscode/test-cli, for developers whose machine can download VS Code
// (neither package is a devDependency: npx fetches them on first use):
//   npm run test:vscode -- --bundle-only
//   npx -p @vscode/test-cli -p @vscode/test-electron vscode-test
// On an offline
// machine and in CI, `npm run test:vscode` runs the same tests in VS Code's
// server and web workbench instead; see test/vscode/run.mjs.
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'main',
  files: 'out/vscode-test/main/**/*.test.js',
  workspaceFolder: 'samples/workspace',
  mocha: { ui: 'bdd', timeout: 60_000 },
});
