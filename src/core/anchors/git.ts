import * as fs from 'node:fs';
import * as path from 'node:path';

import { readBoundedSync } from '../bounded-read';
import { git } from '../git-process';

/*
 * What git knows of a workspace folder, for citations (issue #13): the
 * commit it is at when lines are cited, read from the repository's own
 * files (a save pays a few small reads, never a process), and where a cited
 * file that is gone was renamed to, asked of git itself (only for missing
 * files, in the full check, which is asynchronous).
 */

/** A commit id: SHA-1, or SHA-256 in a repository that uses it. */
const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** HEAD, `.git` files and loose refs are a line; anything longer is not what git writes. */
const MAX_SMALL_FILE = 4096;
/** packed-refs holds every branch and tag; a repository with more than this many is not read. */
const MAX_PACKED_REFS = 64 * 1024 * 1024;
/** Symbolic refs pointing at symbolic refs: git itself stops at 5. */
const MAX_REF_DEPTH = 5;

/** Where a working tree's repository keeps what naming HEAD's commit needs. */
interface Repository {
  /** The folder holding HEAD: `.git`, or a linked worktree's folder under the main `.git/worktrees`. */
  gitDir: string;
  /** Where shared refs and packed-refs are: gitDir itself, or the main repository's for a linked worktree. */
  commonDir: string;
  /** What HEAD holds: a commit id, or `ref: <name>`. */
  head: string;
}

/** A small file's text, or undefined when it is not there or not a regular file (a FIFO must not block a save). */
function readSmall(file: string, maxBytes = MAX_SMALL_FILE): string | undefined {
  try {
    const read = readBoundedSync(file, maxBytes);
    return read.kind === 'read' ? read.bytes.toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** The repository whose `.git` is in `dir`: a folder, or a file naming one (a linked worktree, a submodule). */
function repositoryAt(dir: string): Repository | undefined {
  const dotGit = path.join(dir, '.git');
  const stats = fs.statSync(dotGit, { throwIfNoEntry: false });
  let gitDir: string;
  if (stats?.isDirectory()) gitDir = dotGit;
  else if (stats?.isFile()) {
    const named = /^gitdir: (.+)$/m.exec(readSmall(dotGit) ?? '')?.[1]?.trim();
    if (!named) return undefined;
    gitDir = path.resolve(dir, named);
  } else return undefined;
  // Git's own test of a repository folder, in short: it has HEAD.
  const head = readSmall(path.join(gitDir, 'HEAD'));
  if (head === undefined) return undefined;
  // Only a linked worktree's folder (named by a .git file) has a commondir.
  const common = stats.isFile() ? readSmall(path.join(gitDir, 'commondir'))?.trim() : undefined;
  return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir, head: head.trim() };
}

/** The repository holding `folder`, looked for as git does: in the folder, then in each one above it. */
function findRepository(folder: string): Repository | undefined {
  let dir = fs.realpathSync.native(folder);
  for (;;) {
    const found = repositoryAt(dir);
    if (found) return found;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** packed-refs as read last, by file: parsed again only when its size or time changed. */
const packedCache = new Map<string, { size: number; mtimeMs: number; refs: Map<string, string> }>();

/** The refs in a repository's packed-refs (`<id> <name>` lines; `#` and peeled `^` lines skipped). */
function packedRefs(commonDir: string): Map<string, string> {
  const file = path.join(commonDir, 'packed-refs');
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  if (!stats) return new Map();
  const known = packedCache.get(file);
  if (known && known.size === stats.size && known.mtimeMs === stats.mtimeMs) return known.refs;
  const refs = new Map<string, string>();
  for (const line of (readSmall(file, MAX_PACKED_REFS) ?? '').split('\n')) {
    const match = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (refs\/\S+)$/.exec(line.trim());
    if (match) refs.set(match[2]!, match[1]!);
  }
  packedCache.set(file, { size: stats.size, mtimeMs: stats.mtimeMs, refs });
  return refs;
}

/**
 * The commit a ref names: a loose ref file (the worktree's own first, then
 * the shared ones), else packed-refs. A name that is not under refs/ (a
 * HEAD written by hand to lead elsewhere) names nothing.
 */
function resolveRef(repository: Repository, name: string, depth: number): string | undefined {
  if (depth > MAX_REF_DEPTH || !name.startsWith('refs/') || name.split('/').includes('..')) return undefined;
  const loose =
    readSmall(path.join(repository.gitDir, name)) ??
    (repository.commonDir === repository.gitDir ? undefined : readSmall(path.join(repository.commonDir, name)));
  if (loose !== undefined) return resolveContent(repository, loose.trim(), depth + 1);
  return packedRefs(repository.commonDir).get(name);
}

/** What HEAD or a loose ref holds: a commit id (detached), or `ref: <name>` to follow. */
function resolveContent(repository: Repository, content: string, depth: number): string | undefined {
  if (COMMIT_ID.test(content)) return content;
  const symbolic = /^ref: (\S+)$/.exec(content)?.[1];
  return symbolic === undefined ? undefined : resolveRef(repository, symbolic, depth);
}

/**
 * The commit the git repository holding `folder` is at (HEAD), or undefined
 * where there is none to name: not a repository, a branch without commits
 * yet, or refs kept in a form read only by git itself (reftable, whose HEAD
 * names `refs/heads/.invalid`). Reads files, runs nothing, never throws:
 * anchoring a citation must not fail or wait for git.
 */
export function headCommit(folder: string): string | undefined {
  try {
    const repository = findRepository(folder);
    return repository && resolveContent(repository, repository.head, 0);
  } catch {
    return undefined;
  }
}

/** The renames in `git diff --name-status -z` output: old path → new path. Copies leave the old file, so they are not moves. */
function parseRenames(output: string): Map<string, string> {
  const renames = new Map<string, string>();
  const fields = output.split('\0');
  for (let i = 0; i < fields.length;) {
    const status = fields[i]!;
    if (status.startsWith('R')) renames.set(fields[i + 1]!, fields[i + 2]!);
    i += status.startsWith('R') || status.startsWith('C') ? 3 : 2;
  }
  return renames;
}

/**
 * Renames git can tell in a workspace folder, asked once per folder and
 * base commit for as long as the object lives (one check run: many missing
 * citations share a folder and a commit). Paths are the folder's own,
 * `/`-separated: git runs in the folder with `--relative`, so a file moved
 * out of the folder shows as deleted, never as a path outside it.
 */
export class GitRenames {
  private readonly renames = new Map<string, Promise<Map<string, string> | undefined>>();
  private readonly removals = new Map<string, Promise<string | undefined>>();

  /**
   * Where the file at `relative` in `folder` was renamed to, if git says it
   * was: since `commit` (the citation's, when the repository has it), in
   * the commits since and in what is staged; else staged since HEAD; else
   * since just before the commit that last removed the path (a citation
   * without a commit, or of a file not yet committed when it was cited). A
   * rename in the working tree alone (`mv` without `git mv` or `git add`)
   * git cannot tell from a deletion.
   */
  async renamedTo(folder: string, relative: string, commit: string | undefined): Promise<string | undefined> {
    // Checked again here, not only where a citation is stored: it goes on git's command line.
    const sinceCommit =
      commit !== undefined && COMMIT_ID.test(commit)
        ? (await this.renamesSince(folder, commit))?.get(relative)
        : undefined;
    if (sinceCommit !== undefined) return sinceCommit;
    const staged = (await this.renamesSince(folder, 'HEAD'))?.get(relative);
    if (staged !== undefined) return staged;
    const removal = await this.removal(folder, relative);
    return removal === undefined ? undefined : (await this.renamesSince(folder, `${removal}^`))?.get(relative);
  }

  /** The renames from `base` to the index: committed since, and staged. */
  private renamesSince(folder: string, base: string): Promise<Map<string, string> | undefined> {
    const key = `${folder}\0${base}`;
    let asked = this.renames.get(key);
    if (!asked) {
      asked = git(folder, [
        'diff',
        '--cached',
        '-M',
        '--name-status',
        '-z',
        '--relative',
        '--no-ext-diff',
        '--no-textconv',
        base,
        '--',
      ]).then((output) => (output === undefined ? undefined : parseRenames(output)));
      this.renames.set(key, asked);
    }
    return asked;
  }

  /** The last commit that removed `relative` (a rename removes its old path), if any did. */
  private removal(folder: string, relative: string): Promise<string | undefined> {
    const key = `${folder}\0${relative}`;
    let asked = this.removals.get(key);
    if (!asked) {
      asked = git(folder, [
        'log',
        '-1',
        // A rename shows as its old path's removal only when not followed (log.follow may be set).
        '--no-follow',
        '--no-show-signature',
        '--format=%H',
        '--diff-filter=D',
        '--',
        relative,
      ]).then((output) => {
        const id = output?.trim();
        return id && COMMIT_ID.test(id) ? id : undefined;
      });
      this.removals.set(key, asked);
    }
    return asked;
  }
}
