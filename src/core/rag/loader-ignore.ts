import * as fs from 'node:fs';
import * as path from 'node:path';

import ignore, { type Ignore } from 'ignore';

import { readBoundedSync } from '../bounded-read';
import { isInside, outsideReason } from '../paths';
import { errorCode, formatBytes, ioMessage } from './loader-util';

/**
 * The ignore rules of document sync: `.gitignore` files (nested, negations,
 * the enclosing repository's) applied exactly as Git applies them.
 */

/** How far up the walk looks for the `.git` of an enclosing repository. */
const MAX_REPO_LEVELS = 64;
/** A .gitignore bigger than this is no list of patterns: it is not applied (and not read whole). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;
// Git's own default on each platform (core.ignorecase).
export const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** One .gitignore's rules, and how to express a walked path relative to its folder. */
export interface IgnoreFile {
  rules: Ignore;
  /** Prefix from the .gitignore's folder to the walk root: '' for the root's own, 'docs/' for a repo's above it. */
  prefix: string;
  /** Folder of the .gitignore relative to the walk root: '' for the root and above, 'a/b' below. */
  base: string;
  /** Copies of `rules` told that a known-not-ignored folder is not ignored (see `isGitignored`). */
  cleared: Map<string, Ignore>;
}

/** A folder of the walk, as far as the rules care: where it is and the .gitignore files in force there. */
export interface IgnoreContext {
  /** POSIX, relative to the root; '' for the root. */
  relative: string;
  ignores: IgnoreFile[];
}

export function newRules(patterns: string | string[]): Ignore {
  return ignore({ ignorecase: IGNORE_CASE }).add(patterns);
}

/**
 * Git's precedence: the .gitignore nearest the path speaks first, and the
 * last matching rule in it decides; a file with no matching rule defers to
 * the .gitignore above. `ignore` answers for one rule set, but it also
 * counts a path as ignored when its rules ignore a parent folder, even one a
 * deeper .gitignore re-included with `!folder/`. The walk only tests paths
 * whose folders it entered (so are known not ignored); when a rule set
 * disagrees about such a folder, the path is tested again against a copy of
 * the rules that ends by re-including the folders on the way.
 */
export function isGitignored(folder: IgnoreContext, relative: string, isFolder: boolean): boolean {
  for (let i = folder.ignores.length - 1; i >= 0; i--) {
    const file = folder.ignores[i]!;
    const local = localPath(file, relative);
    if (local === undefined) continue;
    let result = safeTest(file.rules, isFolder ? `${local}/` : local);
    if (result.ignored) {
      const parent = localPath(file, folder.relative);
      if (parent && safeTest(file.rules, `${parent}/`).ignored) {
        result = safeTest(clearedRules(file, parent), isFolder ? `${local}/` : local);
      }
    }
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/** The path relative to the .gitignore's folder, or undefined if the path is not below it. */
function localPath(file: IgnoreFile, relative: string): string | undefined {
  if (file.base === '') return (relative ? file.prefix + relative : file.prefix.slice(0, -1)) || undefined;
  if (relative === file.base) return undefined;
  return relative.startsWith(`${file.base}/`) ? relative.slice(file.base.length + 1) : undefined;
}

function clearedRules(file: IgnoreFile, folder: string): Ignore {
  let rules = file.cleared.get(folder);
  if (!rules) {
    const escaped = folder.split('/').map(escapeGlob);
    const negations = escaped.map((_, i) => `!/${escaped.slice(0, i + 1).join('/')}/`);
    rules = ignore({ ignorecase: IGNORE_CASE }).add(file.rules).add(negations);
    file.cleared.set(folder, rules);
  }
  return rules;
}

function escapeGlob(name: string): string {
  return name.replace(/[\\*?[\]!# ]/g, (char) => `\\${char}`);
}

/** `ignore` throws on paths it thinks are not relative (odd names like '..foo' are fine, but be safe). */
export function safeTest(rules: Ignore, tested: string): { ignored: boolean; unignored: boolean } {
  try {
    return rules.test(tested);
  } catch {
    return { ignored: false, unignored: false };
  }
}

/**
 * The rules of a .gitignore, undefined if there is none, or why they are not
 * applied. One inside the synced tree (`within`, a real path) must not lead
 * out of it; none is read whole if it is huge, or at all if it is a FIFO
 * or a device (the walk would hang on it).
 */
export function readIgnoreFile(file: string, within?: string): Ignore | string | undefined {
  try {
    const real = fs.realpathSync(file);
    if (within !== undefined && !isInside(within, real)) return notApplied(outsideReason(real));
    const read = readBoundedSync(real, MAX_IGNORE_FILE_BYTES);
    if (read.kind === 'not-a-file') return notApplied('not a regular file');
    if (read.kind === 'too-large') return notApplied(`larger than ${formatBytes(MAX_IGNORE_FILE_BYTES)}`);
    return newRules(read.bytes.toString('utf8'));
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    return notApplied(ioMessage(error));
  }
}

function notApplied(reason: string): string {
  return `unreadable .gitignore, not applied: ${reason}`;
}

/**
 * The .gitignore files of the Git repository enclosing `root`, from the
 * repository's top down to root's parent: Git applies them to root's files
 * too. Nothing is applied above root unless a `.git` is found there.
 */
export function repositoryIgnores(root: string): IgnoreFile[] {
  const above: string[] = [];
  let current = root;
  for (let level = 0; level < MAX_REPO_LEVELS; level++) {
    if (exists(path.join(current, '.git'))) {
      const files: IgnoreFile[] = [];
      for (const folder of above.reverse()) {
        const rules = readIgnoreFile(path.join(folder, '.gitignore'));
        if (rules === undefined || typeof rules === 'string') continue;
        const prefix = `${path.relative(folder, root).split(path.sep).join('/')}/`;
        files.push({ rules, prefix, base: '', cleared: new Map() });
      }
      return files;
    }
    const parent = path.dirname(current);
    if (parent === current) return [];
    current = parent;
    above.push(current);
  }
  return [];
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
