import { execFile } from 'node:child_process';

/*
 * git, run for a look in the background: asynchronously, bounded in time and
 * output, never pointed at another repository than the folder's, and
 * saying nothing (undefined) rather than failing where git cannot answer.
 */

/** How long one git command may take; a repository that needs longer is treated as saying nothing. */
const GIT_TIMEOUT_MS = 60_000;
const GIT_MAX_BUFFER = 64 * 1024 * 1024;

/**
 * The environment git runs in: the caller's, without what would point it at
 * another repository or index than the folder's (a process started from a
 * git hook has GIT_DIR and GIT_INDEX_FILE set), and without taking the
 * index's lock: this is a look in the background, never a write.
 */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  for (const name of [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_COMMON_DIR',
    'GIT_OBJECT_DIRECTORY',
    'GIT_ALTERNATE_OBJECT_DIRECTORIES',
    'GIT_NAMESPACE',
  ]) {
    delete env[name];
  }
  return env;
}

/**
 * What git prints for `args` run in `folder`, or undefined when it fails for
 * any reason: git not installed, not a repository, a commit it does not
 * have, a repository owned by someone else. The commands used never touch
 * the working tree, so no filter or fsmonitor a repository configures runs;
 * fsmonitor is switched off all the same. Shared by the citation check
 * (renames) and the team folder (authors, states).
 */
export function git(folder: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      // Paths as they are (not quoted octal escapes), taken literally in pathspecs.
      ['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false', '--literal-pathspecs', ...args],
      {
        cwd: folder,
        env: gitEnvironment(),
        encoding: 'utf8',
        maxBuffer: GIT_MAX_BUFFER,
        timeout: GIT_TIMEOUT_MS,
        windowsHide: true,
      },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}
