// `npm run mutate`: mutation testing of the store's core with StrykerJS
// (stryker.config.mjs says what is mutated and which tests run). Not in CI: a
// full run takes a long while on two cores.
//
// Stryker is installed on first use into a folder of its own (.cache/stryker/)
// rather than as devDependencies: its packages need Node 22+ to install
// without engine warnings on every `npm ci`, and it must load TypeScript 5
// (its TypeScript checker would otherwise pull the newest TypeScript, whose
// package has no JavaScript API). Extra arguments go to `stryker run`.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, '.cache', 'stryker');
const VERSION = '10.1.1';
const packages = {
  '@stryker-mutator/core': VERSION,
  '@stryker-mutator/mocha-runner': VERSION,
  '@stryker-mutator/typescript-checker': VERSION,
  // The project's own TypeScript, for the checker and for Stryker's tsconfig rewriting.
  typescript: JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.typescript,
};

const manifest = JSON.stringify({ name: 'stryker-cache', private: true, dependencies: packages }, null, 2) + '\n';
const manifestFile = path.join(cache, 'package.json');
const stryker = path.join(cache, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
if (!fs.existsSync(stryker) || !fs.existsSync(manifestFile) || fs.readFileSync(manifestFile, 'utf8') !== manifest) {
  console.log(`[mutate] installing StrykerJS ${VERSION} into ${path.relative(root, cache)}…`);
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(manifestFile, manifest);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: cache,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (install.status !== 0) process.exit(install.status ?? 1);
}
const run = spawnSync(process.execPath, [stryker, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
