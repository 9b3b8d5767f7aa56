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
