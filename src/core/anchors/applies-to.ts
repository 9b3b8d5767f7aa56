import picomatch from 'picomatch';

import { normalCitedPath, type WorkspaceFolder } from './workspace-paths';

/*
 * `appliesTo`: globs naming the kind of file a memory or skill is about
 * (`src/**\/*.ts`, `*.md`), as Copilot's `applyTo` does, for knowledge that
 * belongs to many files rather than to lines of one. Matched against the
 * workspace-relative path; in a multi-root workspace against the path inside
 * its folder and against the path led by the folder's name, so a glob can
 * name one folder (`api/**`) or any (`**\/*.sql`).
 */

/** Globs as picomatch reads them: `/`-separated paths, dot files matched by `*` too. */
const OPTIONS: picomatch.PicomatchOptions = { dot: true, nocase: false, strictBrackets: true };

/** Why a glob cannot be used, or undefined when it compiles. */
export function globProblem(glob: string): string | undefined {
  if (!glob.trim()) return 'a glob cannot be empty';
  if (/^([a-zA-Z]:)?[\\/]/.test(glob.trim()) || /(^|[\\/])\.\.([\\/]|$)/.test(glob)) {
    return `"${glob}" must name files inside the workspace (no absolute path, no "..")`;
  }
  try {
    picomatch.makeRe(glob, OPTIONS);
    return undefined;
  } catch (error) {
    return `"${glob}" is not a glob: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Compiled matchers, kept: the same few globs are matched against every file the editor opens. */
const compiled = new Map<string, (path: string) => boolean>();
const MAX_COMPILED = 1_000;

function matcher(glob: string): (path: string) => boolean {
  let match = compiled.get(glob);
  if (!match) {
    try {
      match = picomatch(normalCitedPath(glob), OPTIONS);
    } catch {
      // Stored before a check existed, or by hand in an imported file: a glob that cannot compile matches nothing.
      match = () => false;
    }
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(glob, match);
  }
  return match;
}

/**
 * Whether any of `globs` matches `cited` (a path as citations name it:
 * led by its folder's name in a multi-root workspace).
 */
export function appliesTo(
  globs: readonly string[] | undefined,
  cited: string,
  folders: readonly WorkspaceFolder[],
): boolean {
  if (!globs?.length) return false;
  const full = normalCitedPath(cited);
  const inFolder = folders.length > 1 ? full.split('/').slice(1).join('/') : full;
  return globs.some((glob) => {
    const match = matcher(glob);
    return match(full) || (inFolder !== full && inFolder !== '' && match(inFolder));
  });
}
