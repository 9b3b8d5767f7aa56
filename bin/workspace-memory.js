#!/usr/bin/env node
// The `workspace-memory` command, as `npm link` (or a global install) puts it
// on the PATH. The CLI needs node:sqlite (Node.js 22.13 or newer); where the
// `node` on the PATH is older, it runs under the Node 24 this project brings
// as a devDependency, so the command works the same from any folder.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write(`workspace-memory: ${cli} is missing: run \`npm run build\` in ${path.dirname(__dirname)}.\n`);
  process.exit(1);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major > 22 || (major === 22 && minor >= 13)) {
  require(cli);
} else {
  const bundled = path.join(
    __dirname,
    '..',
    'node_modules',
    'node',
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
  if (!fs.existsSync(bundled)) {
    process.stderr.write(
      `workspace-memory: needs Node.js 22.13 or newer (for node:sqlite); this is Node.js ${process.versions.node}. ` +
        'Install a newer Node.js, or run `npm ci` in the project to get its own Node 24.\n',
    );
    process.exit(1);
  }
  // Ctrl-C reaches the child through the terminal's process group and it stops cleanly
  // (exit 130); this process waits for it instead of dying first.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  const result = spawnSync(bundled, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`workspace-memory: cannot start ${bundled}: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.signal) process.kill(process.pid, result.signal);
  process.exit(result.status ?? 1);
}
