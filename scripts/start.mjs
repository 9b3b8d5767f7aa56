// `npm start`: VS Code (the web workbench of VS Code's server) with this
// extension loaded from the working tree, on a copy of the sample workspace.
// Prints the URL to open and runs until Ctrl-C, then stops the server and
// removes its temporary folder.
//
//   node scripts/start.mjs [--folder <path>] [--restricted] [--no-build]
//
// --folder opens that folder in place instead of a copy of samples/workspace;
// --restricted opens it in Restricted Mode (untrusted), as the `restricted`
// test run does. Rebuild with `npm run watch` in another terminal and run
// "Developer: Reload Window" in the workbench to pick up changes.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { COMMON_SETTINGS, RUNS } from '../test/vscode/runs.mjs';
import { cleanup, onCleanup } from './cleanup.mjs';
import { repoRoot } from './code-server-install.mjs';
import { copyWorkspace, createSandbox } from './sandbox.mjs';
import { assertServerNode, startVSCodeServer } from './vscode-server.mjs';

async function main() {
  const { values } = parseArgs({
    options: {
      folder: { type: 'string' },
      restricted: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
    },
  });
  assertServerNode();
  if (!values['no-build']) {
    const build = spawnSync(process.execPath, ['esbuild.js'], { cwd: repoRoot, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('building the extension (node esbuild.js) failed');
  }
  const run = RUNS.find((candidate) => candidate.name === (values.restricted ? 'restricted' : 'main'));
  const sandbox = createSandbox({ prefix: 'wm-vscode-start-', settings: { ...COMMON_SETTINGS, ...run.settings } });
  onCleanup(() => sandbox.remove());
  const folder = values.folder
    ? path.resolve(values.folder)
    : copyWorkspace(sandbox, path.join(repoRoot, 'samples', 'workspace'));

  const server = await startVSCodeServer({ sandbox });
  onCleanup(() => server.stop());
  const url = server.workbenchUrl({ folder, extensionDevelopmentPath: repoRoot });
  console.log(
    [
      '',
      `Workspace Memory in VS Code ${values.restricted ? '(Restricted Mode) ' : ''}on ${folder}`,
      '',
      `  ${url}`,
      '',
      `Server log: ${server.logFile}. Press Ctrl-C to stop.`,
    ].join('\n'),
  );
  // Registered last, so it runs first when Ctrl-C starts the clean-up: the
  // server's exit that follows is then expected.
  let stopping = false;
  onCleanup(() => {
    stopping = true;
  });
  const { code, signal } = await server.exited;
  if (stopping) return;
  // The log lives in the temporary folder that clean-up removes: show it now.
  const tail = fs.readFileSync(server.logFile, 'utf8').trim().split('\n').slice(-30).join('\n');
  throw new Error(`the VS Code server stopped on its own (code ${code}, signal ${signal}):\n${tail}`);
}

main().catch(async (error) => {
  console.error(`[vscode] ${error?.message ?? error}`);
  await cleanup();
  process.exit(1);
});
