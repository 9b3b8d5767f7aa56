import * as fs from 'node:fs';
import * as path from 'node:path';

import { isMemoryError, MemoryError } from '../errors';
import { isInside } from '../paths';
import { TEAM_TYPES } from '../types';
import {
  duplicateIdProblem,
  findDuplicateIds,
  parseTeamFile,
  shortId,
  TEAM_FILE_MAX_BYTES,
  type TeamFileEntry,
  type TeamFileParse,
  type TeamFileProblem,
} from './format';

/*
 * The team folder on disk: where it is (always inside the workspace), and
 * what is in it, read whole. A file that cannot be imported is listed with
 * its problem, never half-read; the rest of the folder still counts.
 */

/** The team folder's place in the workspace by default (`workspaceMemory.team.folder`). */
export const DEFAULT_TEAM_FOLDER = '.memory';

/**
 * A team file read whole, with its path relative to the team folder
 * (`/`-separated) and its stamp when it was read: size, time and inode, which
 * a write through a temporary file always changes.
 */
export type TeamFolderEntry = TeamFileEntry & { path: string; stamp: string };

/** A file's stamp now (see TeamFolderEntry), or undefined when it is gone. */
export function fileStamp(file: string): string | undefined {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  return stats && stampOf(stats);
}

const stampOf = (stats: fs.Stats): string => `${stats.size}:${stats.mtimeMs}:${stats.ino}`;

export interface TeamFolderProblem {
  path: string;
  problem: TeamFileProblem;
}

export interface TeamFolderScan {
  entries: TeamFolderEntry[];
  /** Files and folders that were not imported, and why. */
  problems: TeamFolderProblem[];
}

/** Files at the folder's top that are not entities and are left alone (a team's README, git's attributes). */
const LEFT_ALONE = new Set(['readme.md', '.gitattributes', '.gitignore']);

/**
 * The team folder of a workspace: `folder` (relative to the workspace,
 * `.memory` by default) resolved, refused when it names a place outside the
 * workspace, by its path or, where it exists, through a link.
 */
export function teamFolderPath(workspace: string, folder: string = DEFAULT_TEAM_FOLDER): string {
  const root = path.resolve(workspace);
  const given = folder.trim();
  const resolved = path.resolve(root, given);
  const relative = path.relative(root, resolved);
  const parts = relative.split(path.sep);
  if (!given || !relative || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new MemoryError('INVALID_INPUT', `The team folder must be a folder inside the workspace, not "${folder}".`);
  }
  // git does not carry what is in its own folder, and the store's folder is the store's.
  if (parts.includes('.git') || parts.includes('.workspace-memory')) {
    throw new MemoryError(
      'INVALID_INPUT',
      `The team folder cannot be in git's or the store's own folder ("${folder}").`,
    );
  }
  const elsewhere = 'or choose another (workspaceMemory.team.folder, WORKSPACE_MEMORY_TEAM_FOLDER)';
  const stats = fs.lstatSync(resolved, { throwIfNoEntry: false });
  // A link is refused whatever it leads to: into .git, out of the repository, or nowhere.
  if (stats?.isSymbolicLink()) {
    throw new MemoryError(
      'INVALID_INPUT',
      `The team folder ${given} is a link; team memory is kept in a folder of the repository itself. Put the folder in its place, ${elsewhere}.`,
    );
  }
  if (stats && !stats.isDirectory()) {
    throw new MemoryError('INVALID_INPUT', `The team folder ${given} is a file, not a folder: move it, ${elsewhere}.`);
  }
  if (stats && !isInside(fs.realpathSync.native(root), fs.realpathSync.native(resolved))) {
    throw new MemoryError(
      'INVALID_INPUT',
      `The team folder ${given} leads outside the workspace (through a link above it): ${elsewhere}.`,
    );
  }
  return resolved;
}

const problem = (file: string, code: TeamFileProblem['code'], message: string, fix: string): TeamFolderProblem => ({
  path: file,
  problem: { code, message, fix },
});

/**
 * Everything in the team folder: its memory/ and skill/ files read whole,
 * and a problem for each thing that cannot be imported. Links are never
 * followed (one could lead out of the repository); a folder that does not
 * exist is an empty one.
 */
/** Files read by an earlier scan, by path: one unchanged since (same size and time) is not read again. */
export type TeamScanCache = Map<string, { size: number; mtimeMs: number; parsed: TeamFileParse }>;

export function scanTeamFolder(root: string, cache?: TeamScanCache): TeamFolderScan {
  const entries: TeamFolderEntry[] = [];
  const problems: TeamFolderProblem[] = [];
  let top: fs.Dirent[];
  try {
    top = readFolder(root, root);
  } catch (error) {
    if (!isMemoryError(error, 'TEAM_FOLDER_ACCESS')) throw error;
    // Nothing can be read: every team entity keeps its last good version (see mayHold).
    const fix = 'Give yourself read access to the team folder.';
    return { entries: [], problems: [problem(WHOLE_FOLDER, 'UNREADABLE', error.message, fix)] };
  }
  for (const item of top) {
    // memory/ and skill/ are looked at below, whatever they are (a link, a file).
    if ((TEAM_TYPES as readonly string[]).includes(item.name)) continue;
    if (item.isFile() && LEFT_ALONE.has(item.name.toLowerCase())) continue;
    problems.push(
      problem(
        item.name,
        'LOCATION',
        `${item.name} is not a team entity: the team folder holds memory/ and skill/ folders of Markdown files.`,
        'Move it out of the team folder, or into memory/ or skill/ as a team file.',
      ),
    );
  }
  const files: ListedFile[] = [];
  for (const type of TEAM_TYPES) {
    const folder = path.join(root, type);
    const stats = fs.lstatSync(folder, { throwIfNoEntry: false });
    if (!stats) continue;
    const unusable = typeFolderProblem(type, stats);
    if (unusable) {
      problems.push(unusable);
      continue;
    }
    let items: fs.Dirent[];
    try {
      items = readFolder(folder, root);
    } catch (error) {
      if (!isMemoryError(error, 'TEAM_FOLDER_ACCESS')) throw error;
      problems.push(problem(type, 'UNREADABLE', error.message, 'Give yourself read access to the folder.'));
      continue;
    }
    for (const item of items) files.push(...listed(type, folder, item, problems));
  }
  const kept = withoutCaseTwins(files, problems);
  const seen = new Set<string>();
  for (const file of kept) {
    seen.add(file.path);
    const known = cache?.get(file.path);
    let parsed: TeamFileParse;
    if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) parsed = known.parsed;
    else {
      parsed = readTeamFileAt(root, file.path);
      // A file that could not be read is read again next time: a change of its access leaves its time as it was.
      if (parsed.ok || parsed.problem.code !== 'UNREADABLE') {
        cache?.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, parsed });
      } else cache?.delete(file.path);
    }
    if (parsed.ok) entries.push({ ...parsed, path: file.path, stamp: file.stamp });
    else problems.push({ path: file.path, problem: parsed.problem });
  }
  for (const file of cache?.keys() ?? []) if (!seen.has(file)) cache!.delete(file);
  // Two files claiming one id: neither is taken, since either could be the one meant.
  const duplicates = findDuplicateIds(entries);
  for (const [id, paths] of duplicates) {
    for (const file of paths) problems.push({ path: file, problem: duplicateIdProblem(id, paths) });
  }
  return {
    entries: entries.filter((entry) => !duplicates.has(entry.id)),
    problems: problems.sort((a, b) => a.path.localeCompare(b.path)),
  };
}

/** Why memory/ or skill/ cannot be read as a folder of team files, if it cannot. */
function typeFolderProblem(type: string, stats: fs.Stats): TeamFolderProblem | undefined {
  if (stats.isSymbolicLink()) {
    return problem(
      type,
      'LOCATION',
      `${type}/ is a link; the team folder's files are not read through links, since one could lead out of the repository. Its ${type === 'memory' ? 'memories' : 'skills'} stay as they were.`,
      `Put the folder itself in the team folder in place of the link.`,
    );
  }
  if (!stats.isDirectory()) {
    return problem(type, 'LOCATION', `${type} is not a folder.`, `Make ${type} a folder of team files.`);
  }
  return undefined;
}

/** A file of memory/ or skill/ to read. */
interface ListedFile {
  path: string;
  size: number;
  mtimeMs: number;
  stamp: string;
}

/** A folder's entries, sorted; none when it does not exist; TEAM_FOLDER_ACCESS when it cannot be read. */
function readFolder(folder: string, root: string): fs.Dirent[] {
  try {
    return fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw teamFolderAccessError(
      error,
      folder === root ? 'read the team folder' : `read the team folder's ${path.relative(root, folder)}/`,
    );
  }
}

/** The names in memory/ and skill/ now, as `<type>/<name>`, without reading a file; none where a folder is missing. */
export function teamFileNames(root: string): string[] {
  return TEAM_TYPES.flatMap((type) => {
    try {
      return fs.readdirSync(path.join(root, type)).map((name) => `${type}/${name}`);
    } catch {
      return [];
    }
  });
}

/** One team file (path relative to the folder) read and parsed, as a scan would. */
export function readTeamFileAt(root: string, file: string): TeamFileParse {
  const bytes = readTeamFile(root, file);
  return bytes instanceof Uint8Array ? parseTeamFile(bytes, file) : bytes;
}

/** A team file's bytes; a problem the scan lists when the file cannot be read. */
function readTeamFile(root: string, file: string): Uint8Array | TeamFileParse {
  try {
    return fs.readFileSync(path.join(root, file));
  } catch (error) {
    return {
      ok: false,
      problem: {
        code: 'UNREADABLE',
        message: teamFolderAccessError(error, `read the team file ${file}`).message,
        fix: 'Give yourself read access to the file.',
      },
    };
  }
}

/**
 * TEAM_FOLDER_ACCESS for a file system error in the team folder: what could
 * not be done and why, in words (permission, a read-only or full disk).
 */
export function teamFolderAccessError(error: unknown, what: string): MemoryError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'ENOSPC'
          ? 'the disk is full'
          : (error as Error).message;
  return new MemoryError('TEAM_FOLDER_ACCESS', `Could not ${what}: ${why}.`, { cause: error });
}

/** One entry of memory/ or skill/: a team file to read, or a problem. */
function listed(type: string, folder: string, item: fs.Dirent, problems: TeamFolderProblem[]): ListedFile[] {
  const file = `${type}/${item.name}`;
  if (item.isSymbolicLink()) {
    problems.push(
      problem(
        file,
        'LOCATION',
        `${file} is a link; links are not followed, since one could lead out of the repository.`,
        'Put the file itself in its place.',
      ),
    );
    return [];
  }
  if (!item.isFile() || !item.name.endsWith('.md')) {
    problems.push(
      problem(
        file,
        'LOCATION',
        `${file} is not a Markdown file of the team folder.`,
        `Team files are ${type}/<name>.md; move it out of the team folder.`,
      ),
    );
    return [];
  }
  let stats: fs.Stats;
  try {
    stats = fs.statSync(path.join(folder, item.name));
  } catch (error) {
    const message = teamFolderAccessError(error, `read the team file ${file}`).message;
    problems.push(problem(file, 'UNREADABLE', message, 'Give yourself read access to the file and its folder.'));
    return [];
  }
  const { size, mtimeMs } = stats;
  const stamp = stampOf(stats);
  if (size > TEAM_FILE_MAX_BYTES) {
    problems.push(
      problem(
        file,
        'TOO_LARGE',
        `${file} is ${(size / 1024 / 1024).toFixed(1)} MB; a team file holds at most ${TEAM_FILE_MAX_BYTES / 1024 / 1024} MB.`,
        'Shorten the memory, or split it into several.',
      ),
    );
    return [];
  }
  return [{ path: file, size, mtimeMs, stamp }];
}

/**
 * The files whose names differ only in case are left out, each with a
 * problem: on a case-insensitive file system (macOS, Windows) they are one
 * file, and a clone there would hold only one of them.
 */
function withoutCaseTwins<T extends { path: string }>(files: readonly T[], problems: TeamFolderProblem[]): T[] {
  const byFolded = new Map<string, T[]>();
  for (const file of files) {
    const key = file.path.toLowerCase();
    byFolded.set(key, [...(byFolded.get(key) ?? []), file]);
  }
  return files.filter((file) => {
    const twins = byFolded.get(file.path.toLowerCase())!;
    if (twins.length === 1) return true;
    problems.push(
      problem(
        file.path,
        'LOCATION',
        `${twins.map((twin) => twin.path).join(' and ')} differ only in case: on macOS and Windows they are one file.`,
        'Rename or remove all but one of them.',
      ),
    );
    return false;
  });
}

/** The short id a team file's name ends in (`…-<12 hex>.md`), or undefined when it does not end in one. */
export function shortIdOfPath(file: string): string | undefined {
  return /-([0-9a-f]{12})\.md$/.exec(file)?.[1];
}

/** The path of a problem with the team folder itself (it cannot be read). */
const WHOLE_FOLDER = '.';

/**
 * Whether a problem may hide the file that holds `id`, a team entity of
 * `type`: a file whose name ends in its short id, or its type's folder (a
 * link, say), or the team folder, that could not be read.
 */
export function mayHold(problems: readonly TeamFolderProblem[], id: string, type: string): boolean {
  const short = shortId(id);
  return problems.some(
    (entry) => entry.path === WHOLE_FOLDER || entry.path === type || shortIdOfPath(entry.path) === short,
  );
}
