import { execFile } from 'node:child_process';

/*
 * What git knows of the team folder's files: who changed each last, and
 * whether a file is new, modified or as committed. Asked of the `git` on
 * PATH; where there is none, or the folder is not in a repository, the
 * answers are empty and everything else works.
 */

/** A file's state against git: not yet committed, changed since, or as committed. */
export type TeamGitState = 'new' | 'modified' | 'committed';

/** Environment for git: no variable of the caller's points it at another repository or index. */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR']) {
    delete env[name];
  }
  return env;
}

/** git's standard output for `args` run in `cwd`, or undefined when git fails or is not there. */
function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false', ...args],
      { cwd, env: gitEnvironment(), maxBuffer: 256 * 1024 * 1024, timeout: 60_000, encoding: 'utf8' },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}

const RECORD = '\u001e';

/**
 * Who last committed each file under `root` (paths relative to it, `/`
 * separated): "Name <email>", from one walk of the folder's history, newest
 * first, so the first time a path shows is its last change.
 */
export async function lastAuthors(root: string): Promise<Map<string, string>> {
  const out = await git(root, [
    'log',
    `--format=${RECORD}%an <%ae>`,
    '--name-only',
    '--relative',
    '--no-renames',
    '--',
    '.',
  ]);
  const authors = new Map<string, string>();
  for (const record of (out ?? '').split(RECORD).slice(1)) {
    const [author, ...files] = record.split('\n');
    for (const file of files) if (file && !authors.has(file)) authors.set(file, author!);
  }
  return authors;
}

/**
 * The state of each file under `root` that git does not have as committed:
 * new (untracked or only staged) or modified (staged or not). A file not
 * listed is as committed, or git is not there.
 */
export async function gitStates(root: string): Promise<Map<string, TeamGitState>> {
  const out = await git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', '.']);
  const prefix = (await git(root, ['rev-parse', '--show-prefix']))?.trim() ?? '';
  const states = new Map<string, TeamGitState>();
  for (const entry of (out ?? '').split('\0')) {
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    // Porcelain paths are relative to the repository's top; the folder's own prefix comes off.
    const file = entry.slice(3);
    const relative = file.startsWith(prefix) ? file.slice(prefix.length) : file;
    states.set(relative, code === '??' || code.startsWith('A') ? 'new' : 'modified');
  }
  return states;
}
