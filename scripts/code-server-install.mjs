// Installs the code-server npm package into a cache folder of its own
// (.vscode-test/code-server/), once. We only use the VS Code server and web
// workbench it carries under lib/vscode.
//
// Why a folder of its own, and why the machine's Node: code-server's
// postinstall builds VS Code's native modules with node-gyp. The project's
// Node 24 (the `node` devDependency) ships headers but no common.gypi, so
// node-gyp fails with it; the machine's Node (20 here) builds against the
// headers npm is configured with. FORCE_NODE_VERSION lets the postinstall
// accept that Node. The server itself is later run with Node 24.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.139.1';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const cacheDir = path.join(repoRoot, '.vscode-test', 'code-server');
const packageDir = path.join(cacheDir, 'node_modules', 'code-server');
// Written only after a successful install, so an interrupted one is redone.
const markerFile = path.join(cacheDir, 'installed.json');

/** The VS Code folder inside code-server (holds out/server-main.js). */
export const vscodeDir = path.join(packageDir, 'lib', 'vscode');

function isInstalled() {
  try {
    const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8'));
    return marker.version === CODE_SERVER_VERSION && fs.existsSync(path.join(vscodeDir, 'out', 'server-main.js'));
  } catch {
    return false;
  }
}

const underNodeModules = (file) => file.split(path.sep).includes('node_modules');

function nodeMajor(nodePath) {
  const result = spawnSync(nodePath, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  return Number(result.stdout.trim().split('.')[0]);
}

/**
 * The machine's own Node: the one npm runs on (npm_node_execpath) or the
 * first `node` on PATH outside node_modules (npm scripts put the project's
 * node_modules/.bin, and so Node 24, first on PATH).
 */
export function findMachineNode() {
  const candidates = [];
  if (process.env.npm_node_execpath) candidates.push(process.env.npm_node_execpath);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir) candidates.push(path.join(dir, 'node'));
  }
  for (const candidate of candidates) {
    if (underNodeModules(candidate) || !fs.existsSync(candidate)) continue;
    const real = fs.realpathSync(candidate);
    if (underNodeModules(real)) continue;
    const major = nodeMajor(real);
    if (major) return { path: real, major };
  }
  throw new Error('code-server install: no Node.js outside node_modules found on PATH (the machine Node is needed).');
}

/** The environment npm would see in a plain shell on this machine. */
function machineEnv(machineNode) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    // npm scripts add their own npm_* variables (package, lifecycle, prefix);
    // they would make the nested install act on the repo instead of the cache.
    if (key.startsWith('npm_') || key.startsWith('NPM_')) continue;
    env[key] = value;
  }
  const pathDirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !underNodeModules(dir));
  env.PATH = [path.dirname(machineNode.path), ...pathDirs].join(path.delimiter);
  env.FORCE_NODE_VERSION = String(machineNode.major);
  return env;
}

function findNpmCli(machineNode) {
  // npm next to the machine's node (Debian/nodesource and official tarballs).
  const beside = [
    path.join(path.dirname(machineNode.path), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    path.join(path.dirname(machineNode.path), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ];
  if (process.env.npm_execpath && !underNodeModules(process.env.npm_execpath)) beside.unshift(process.env.npm_execpath);
  const found = beside.find((file) => fs.existsSync(file));
  if (!found) throw new Error(`code-server install: npm not found beside ${machineNode.path}`);
  return found;
}

/** Whether `command` is an executable on PATH. */
function onPath(command) {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, process.platform === 'win32' ? `${command}.exe` : command)));
}

/**
 * What code-server's install needs from the system and this machine lacks,
 * each with how to get it. Its postinstall compiles native modules, and a
 * missing header otherwise fails minutes in with a raw compiler error.
 */
export function missingPrerequisites({ platform = process.platform, exists = fs.existsSync, has = onPath } = {}) {
  const missing = [];
  if (platform === 'linux') {
    if (!['/usr/include/gssapi/gssapi.h', '/usr/include/gssapi.h'].some((file) => exists(file))) {
      missing.push('the Kerberos headers (Debian/Ubuntu: libkrb5-dev; Fedora: krb5-devel)');
    }
    if (!has('g++') && !has('c++')) missing.push('a C++ compiler (Debian/Ubuntu: build-essential; Fedora: gcc-c++)');
    if (!has('make')) missing.push('make');
    if (!has('python3')) missing.push('python3');
  } else if (platform === 'darwin') {
    if (!has('clang++')) missing.push("Xcode's command line tools (xcode-select --install)");
  }
  return missing;
}

/** Installs code-server when missing; resolves with the VS Code folder. */
export async function ensureCodeServer({ log = (line) => console.log(line) } = {}) {
  if (isInstalled()) return vscodeDir;
  const missing = missingPrerequisites();
  if (missing.length > 0) {
    throw new Error(
      `VS Code's server (code-server) builds native modules on its first install and needs ${missing.join(', ')}. ` +
        "On Debian or Ubuntu: sudo apt-get install -y libkrb5-dev build-essential python3. See the README's Quick start.",
    );
  }
  const machineNode = findMachineNode();
  const npmCli = findNpmCli(machineNode);
  log(
    `[vscode] installing code-server@${CODE_SERVER_VERSION} into ${path.relative(repoRoot, cacheDir)} ` +
      `with Node ${machineNode.major} (${machineNode.path}); the first install takes a few minutes…`,
  );
  fs.mkdirSync(cacheDir, { recursive: true });
  fs.writeFileSync(
    path.join(cacheDir, 'package.json'),
    JSON.stringify({ name: 'code-server-cache', private: true }, null, 2) + '\n',
  );
  fs.rmSync(markerFile, { force: true });
  const started = Date.now();
  const args = [npmCli, 'install', '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`];
  const child = spawn(machineNode.path, args, { cwd: cacheDir, env: machineEnv(machineNode), stdio: 'pipe' });
  // A heartbeat shows the install is alive while npm's postinstall is quiet.
  const heartbeat = setInterval(() => log(`[vscode] still installing code-server (${elapsed(started)})…`), 30_000);
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).finally(() => clearInterval(heartbeat));
  if (code !== 0 || !fs.existsSync(path.join(vscodeDir, 'out', 'server-main.js'))) {
    throw new Error(`code-server install failed (exit ${code}). Last output:\n${output}`);
  }
  fs.writeFileSync(markerFile, JSON.stringify({ version: CODE_SERVER_VERSION, node: machineNode.major }) + '\n');
  log(`[vscode] code-server installed in ${elapsed(started)}`);
  return vscodeDir;
}

function elapsed(since) {
  return `${Math.round((Date.now() - since) / 1000)} s`;
}
