import { git } from '../git-process';

/*
 * What git knows of the team folder's files: who changed each last, and
 * whether a file is new, modified or as committed. Asked of the `git` on
 * PATH (see git-process.ts); where there is none, or the folder is not in a
 * repository, the answers are empty and everything else works.
 */

/** A file's state against git: not yet committed, changed since, or as committed. */
export type TeamGitState = 'new' | 'modified' | 'committed';

const RECORD = '\u001e';

/** Who last committed each file of the folder, and who removed each file whose last commit removed it. */
export interface TeamAuthors {
  /** Path (relative to the folder, `/` separated) to "Name <email>". */
  lastAuthors: Map<string, string>;
  /** Paths gone from the folder by a commit: who committed their removal. */
  removedBy: Map<string, string>;
}

/**
 * Who last committed each file under `root`, from one walk of the folder's
 * history, newest first, so the first time a path shows is its last change:
 * a `D` there means the file was removed by that commit's author.
 */
export async function teamAuthors(root: string): Promise<TeamAuthors> {
  const out = await git(root, [
    'log',
    `--format=${RECORD}%an <%ae>`,
    '--name-status',
    '--relative',
    '--no-renames',
    '--',
    '.',
  ]);
  const found: TeamAuthors = { lastAuthors: new Map(), removedBy: new Map() };
  for (const record of (out ?? '').split(RECORD).slice(1)) {
    const [author, ...lines] = record.split('\n');
    for (const line of lines) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const file = line.slice(tab + 1);
      if (found.lastAuthors.has(file) || found.removedBy.has(file)) continue;
      if (line.startsWith('D')) found.removedBy.set(file, author!);
      else found.lastAuthors.set(file, author!);
    }
  }
  return found;
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

/** Who git says is writing in `folder` ("Name <email>"), or undefined when it does not say. */
export async function gitIdentity(folder: string): Promise<string | undefined> {
  const [name, email] = await Promise.all([
    git(folder, ['config', 'user.name']),
    git(folder, ['config', 'user.email']),
  ]);
  const who = name?.trim();
  if (!who) return undefined;
  return email?.trim() ? `${who} <${email.trim()}>` : who;
}
