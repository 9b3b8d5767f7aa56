#!/usr/bin/env node
// The `workspace-memory` command, as `npm link` (or a global install) puts it
// on the PATH. The CLI needs node:sqlite (Node.js 22.13 or newer); where the
// `node` on the PATH is older, it runs under the Node 24 this project brings
// as a devDependency, so the command works the same from any folder.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
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
  run(bundled);
}

/**
 * Runs the CLI under `node` as a child that stands in for this process: its
 * standard streams are this one's, the signals that stop a program
 * (SIGTERM from `kill`, systemd or docker; SIGINT; SIGHUP) are passed on to
 * it, and this process ends the way the child ended (its exit status, or the
 * signal that killed it). The child is told this process's id
 * (WORKSPACE_MEMORY_LAUNCHER_PID) so that `serve` can stop by itself if this
 * process is killed outright (SIGKILL), which leaves nothing to pass on.
 */
function run(node) {
  const child = spawn(node, [cli, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, WORKSPACE_MEMORY_LAUNCHER_PID: String(process.pid) },
  });
  const handlers = new Map();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    const handler = () => {
      // Ctrl-C (and a terminal hanging up) reaches the whole foreground process group, the child
      // included: passing it on would make it a second Ctrl-C, which ends a command at once rather
      // than cleanly. A SIGINT sent to this process alone (`kill -INT`) is passed on.
      if (signal === 'SIGINT' && fromTerminal()) return;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  child.on('error', (error) => {
    process.stderr.write(`workspace-memory: cannot start ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const [name, handler] of handlers) process.off(name, handler);
    if (signal) {
      // Ends this process by the same signal, so its parent sees what the child saw.
      process.kill(process.pid, signal);
      // A signal whose default is not to end the process (none of the usual ones): the shell's convention.
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 0)), 1000).unref();
      return;
    }
    process.exit(code ?? 1);
  });
}

/**
 * Whether this process is in its terminal's foreground process group, the
 * one the terminal sends Ctrl-C to. Known on Linux (/proc); elsewhere a
 * terminal on standard input stands for it.
 */
function fromTerminal() {
  try {
    // Fields after the command name (which is in parentheses): state, ppid, pgrp, session, tty_nr, tpgid.
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const [, , pgrp, , tty, tpgid] = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return tty !== 0 && pgrp === tpgid;
  } catch {
    return Boolean(process.stdin.isTTY);
  }
}
