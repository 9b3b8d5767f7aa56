// A temporary home for one VS Code server run. The server writes under
// ~/.local/share, ~/.config and ~/.cache; pointing HOME and XDG_* here keeps
// the developer's own VS Code and code-server state untouched, and makes each
// run start from the same clean state.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Creates the folders of a sandbox. `settings` become the user settings
 * (User/settings.json in the user-data-dir).
 */
export function createSandbox({ prefix = 'wm-vscode-', settings = {} } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dirs = {
    root,
    home: path.join(root, 'home'),
    serverData: path.join(root, 'server-data'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    logs: path.join(root, 'logs'),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  writeUserSettings(dirs, settings);
  const env = {
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
    XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
    XDG_STATE_HOME: path.join(dirs.home, '.local', 'state'),
    XDG_RUNTIME_DIR: path.join(root, 'runtime'),
  };
  fs.mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return {
    ...dirs,
    env,
    remove() {
      fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * code-server's workbench keeps its user settings on the server, in
 * <user-data-dir>/User/settings.json (the desktop layout), not in the
 * browser's storage; so a run's settings are simply written there.
 */
function writeUserSettings(dirs, settings) {
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
}

/** Copies a folder (a fixture workspace) into the sandbox, so tests can write to it. */
export function copyWorkspace(sandbox, source, name = path.basename(source)) {
  const target = path.join(sandbox.root, 'workspaces', name);
  fs.cpSync(source, target, { recursive: true });
  return target;
}
