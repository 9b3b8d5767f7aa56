// Starts VS Code's own server (from the code-server package) with this
// process's Node, which must be the project's Node 24: the server needs
// node:module registerHooks. Shared by the integration tests and `npm start`.
//
// We start lib/vscode/out/server-main.js directly instead of the
// `code-server` command because only the former accepts
// --enable-smoke-test-driver, without which a built workbench ignores the
// extension-development payload.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureCodeServer } from './code-server-install.mjs';

const STARTUP_TIMEOUT_MS = 60_000;

export function assertServerNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 24) {
    throw new Error(
      `VS Code's server needs Node 24; this is Node ${process.versions.node}. ` +
        'Run it through npm (npm start, npm run test:vscode), which puts the project’s Node 24 first.',
    );
  }
}

/**
 * Starts the server in `sandbox` (see sandbox.mjs). `env` is added to the
 * server's environment, which its extension hosts inherit.
 * Resolves with { port, origin, logFile, exited (a promise of { code, signal }),
 * workbenchUrl(options), stop() }.
 */
export async function startVSCodeServer({ sandbox, env = {}, log = (line) => console.log(line) }) {
  assertServerNode();
  const vscodeDir = await ensureCodeServer({ log });
  const args = [
    path.join(vscodeDir, 'out', 'server-main.js'),
    '--host',
    '127.0.0.1',
    // Port 0: the OS picks a free port and the server prints it, so there is
    // no window between choosing a port and binding it.
    '--port',
    '0',
    '--without-connection-token',
    '--enable-smoke-test-driver',
    '--accept-server-license-terms',
    '--disable-telemetry',
    '--server-data-dir',
    sandbox.serverData,
    '--user-data-dir',
    sandbox.userData,
    '--extensions-dir',
    sandbox.extensions,
  ];
  const logFile = path.join(sandbox.logs, 'server.log');
  const logStream = fs.createWriteStream(logFile);
  const child = spawn(process.execPath, args, {
    cwd: sandbox.home,
    // EXTENSIONS_GALLERY (read by code-server's build): none, so the server
    // and the workbench never query an extension marketplace over the network.
    env: { ...process.env, EXTENSIONS_GALLERY: '{}', ...sandbox.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stop() also ends the extension hosts and
    // other helpers the server forks.
    detached: true,
  });
  child.stdout.pipe(logStream, { end: false });
  child.stderr.pipe(logStream, { end: false });

  let stopped = false;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // Last resort if this process dies without running its clean-up (an
  // uncaught exception): the detached server would otherwise outlive it.
  const killOnExit = () => killGroup(child.pid, 'SIGKILL');
  process.once('exit', killOnExit);
  async function stop() {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child.pid, 'SIGTERM');
      const done = await Promise.race([exited.then(() => true), delay(5000).then(() => false)]);
      if (!done) killGroup(child.pid, 'SIGKILL');
    }
    // Helpers forked by the server share its group; SIGKILL anything left.
    killGroup(child.pid, 'SIGKILL');
    process.off('exit', killOnExit);
    logStream.end();
  }

  try {
    const port = await waitForPort(child, exited, logFile);
    const origin = `http://127.0.0.1:${port}`;
    return { port, origin, logFile, exited, workbenchUrl: (options) => workbenchUrl(port, options), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for "Extension host agent listening on <port>". */
function waitForPort(child, exited, logFile) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => reject(new Error(`VS Code server did not start in ${STARTUP_TIMEOUT_MS / 1000} s; see ${logFile}`)),
      STARTUP_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      const match = /Extension host agent listening on (\d+)/.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-4000) : '';
      reject(new Error(`VS Code server exited before listening (code ${code}, signal ${signal}):\n${tail}`));
    });
  });
}

/**
 * The workbench URL for `folder`, with the extension-development payload the
 * smoke-test driver honours. Paths are absolute paths on this machine; the
 * payload names them as vscode-remote:// URIs of the server.
 */
export function workbenchUrl(port, { folder, extensionDevelopmentPath, extensionTestsPath, enableProposedApi }) {
  const remote = (file) => `vscode-remote://127.0.0.1:${port}${encodeURI(file)}`;
  const payload = [];
  // The workbench reads the payload into a map: one development path only.
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  // Proposed API for every extension (as --enable-proposed-api): test-only extensions need some.
  if (enableProposedApi) payload.push(['enableProposedApi', '']);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  payload.push(['skipWelcome', 'true']);
  const query = new URLSearchParams();
  if (folder) query.set('folder', folder);
  query.set('payload', JSON.stringify(payload));
  return `http://127.0.0.1:${port}/?${query.toString()}`;
}
