// Sets up the `installed` run: packages the extension exactly as a release
// is packaged (`npm run package`, which also runs vscode:prepublish, the
// production build) and installs the .vsix into the run's extensions folder
// with VS Code's own `--install-extension`, as a user installs one. The run
// then starts VS Code without Workspace Memory under development, so every
// test drives the installed copy: a file .vscodeignore leaves out, or one the
// production bundle needs and lacks, fails here and nowhere else.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { ensureCodeServer } from '../../../scripts/code-server-install.mjs';

export const EXTENSION_ID = 'workspace-memory.workspace-memory';

/** Resolves with the environment the tests read: where the package went and where VS Code installed it. */
export async function prepareInstalled({ repoRoot, sandbox, log }) {
  const vsix = path.join(sandbox.root, 'workspace-memory.vsix');
  packageExtension({ repoRoot, vsix, log });
  const installedPath = await installVsix({ sandbox, vsix, log });
  return {
    WORKSPACE_MEMORY_TEST_VSIX: vsix,
    WORKSPACE_MEMORY_TEST_INSTALLED_PATH: installedPath,
  };
}

/**
 * `npm run package` with the output moved into the sandbox: the script's own
 * flags (and any added later) apply, and the repo's dist/workspace-memory.vsix
 * is left alone. vsce takes the last --out it is given.
 */
function packageExtension({ repoRoot, vsix, log }) {
  const started = Date.now();
  const npm = npmCommand();
  const result = spawnSync(npm.command, [...npm.args, 'run', 'package', '--', '--out', vsix], {
    cwd: repoRoot,
    encoding: 'utf8',
    // vsce asks before packaging without a repository field and the like; with
    // no terminal to answer, a question must fail the run, not hang it.
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0 || !fs.existsSync(vsix)) {
    throw new Error(
      `npm run package failed (exit ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${output.slice(-4000)}`,
    );
  }
  const kb = (fs.statSync(vsix).size / 1024).toFixed(0);
  log(`[vscode] packaged ${path.basename(vsix)} (${kb} KB) with npm run package in ${seconds(started)}`);
}

/** npm as the npm scripts run it (npm_execpath), else the one on PATH. */
function npmCommand() {
  const execPath = process.env.npm_execpath;
  if (execPath && /\.c?js$/.test(execPath) && fs.existsSync(execPath)) {
    return { command: process.execPath, args: [execPath] };
  }
  return { command: process.platform === 'win32' ? 'npm.cmd' : 'npm', args: [] };
}

/**
 * VS Code's server installs the .vsix into the sandbox's extensions folder
 * (the same code path as the Extensions view's "Install from VSIX…": it
 * checks the manifest and the engine, unpacks and records the extension).
 * Resolves with the folder it was installed into.
 */
async function installVsix({ sandbox, vsix, log }) {
  const started = Date.now();
  const vscodeDir = await ensureCodeServer({ log });
  const result = spawnSync(
    process.execPath,
    [
      path.join(vscodeDir, 'out', 'server-main.js'),
      '--install-extension',
      vsix,
      '--extensions-dir',
      sandbox.extensions,
      '--server-data-dir',
      sandbox.serverData,
      '--user-data-dir',
      sandbox.userData,
      '--accept-server-license-terms',
    ],
    {
      cwd: sandbox.home,
      encoding: 'utf8',
      // As startVSCodeServer: the sandbox's HOME and XDG folders, no marketplace.
      env: { ...process.env, EXTENSIONS_GALLERY: '{}', ...sandbox.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    },
  );
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  fs.writeFileSync(path.join(sandbox.logs, 'install.log'), output);
  // The server's CLI reports a failed install on its output and may still exit 0.
  if (result.status !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`installing ${vsix} failed (exit ${result.status}):\n${output.slice(-4000)}`);
  }
  const installed = installedFolder(sandbox.extensions);
  log(`[vscode] installed ${EXTENSION_ID} into ${installed} in ${seconds(started)}`);
  return installed;
}

/** The folder VS Code recorded for the extension in <extensions>/extensions.json. */
function installedFolder(extensionsDir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionsDir, 'extensions.json'), 'utf8'));
  const entry = manifest.find((item) => item.identifier?.id?.toLowerCase() === EXTENSION_ID);
  const folder = entry?.location?.fsPath ?? entry?.location?.path;
  if (!folder || !fs.existsSync(path.join(folder, 'package.json'))) {
    throw new Error(`${EXTENSION_ID} is not in ${extensionsDir}/extensions.json after the install`);
  }
  return folder;
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
