import * as path from 'node:path';

import { MemoryError } from '../errors';

/*
 * How citations and `appliesTo` globs name files: by a workspace-relative
 * path, led by the folder's name in a multi-root workspace. Kept apart from
 * citations.ts so input validation can check globs without the file reading.
 */

/** A workspace folder citations resolve against; `name` leads the path in a multi-root workspace. */
export interface WorkspaceFolder {
  name: string;
  path: string;
}

/** A cited path as it is stored: `/`-separated, without `./`, `//` or a trailing `/`. */
export function normalCitedPath(cited: string): string {
  return cited
    .trim()
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/**
 * A file as citations name it, from a workspace-relative path or an
 * absolute one inside a workspace folder (what an MCP client gives).
 * INVALID_INPUT for a path outside every folder or with `..` in it.
 */
export function workspaceRelative(folders: readonly WorkspaceFolder[], given: string): string {
  const trimmed = given.trim();
  if (!isAbsolutePath(trimmed)) {
    const relative = normalCitedPath(trimmed);
    if (!relative || relative.split('/').includes('..')) {
      throw new MemoryError(
        'INVALID_INPUT',
        `A workspace file is named by a path inside the workspace, not "${given}".`,
      );
    }
    return relative;
  }
  for (const folder of folders) {
    const inside = path.relative(folder.path, path.resolve(trimmed));
    if (inside && !inside.startsWith('..') && !path.isAbsolute(inside)) {
      const relative = inside.split(path.sep).join('/');
      return folders.length > 1 ? `${folder.name}/${relative}` : relative;
    }
  }
  throw new MemoryError('INVALID_INPUT', `${given} is not inside the workspace.`);
}

/** Absolute on this system or on Windows (`C:\…`), whatever this system is. */
const isAbsolutePath = (given: string): boolean => path.isAbsolute(given) || /^[a-zA-Z]:[\\/]/.test(given);
