/**
 * Glob settings translated for the core's loader, which knows file
 * extensions and gitignore-style patterns rather than VS Code globs. Pure
 * functions: no vscode import, so they are unit-tested on their own.
 */

/** `a{b,c}d` → `abd`, `acd`; nested braces too. An unbalanced brace is left as written. */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf('{');
  if (open < 0) return [glob];
  let depth = 0;
  let close = -1;
  const commas: number[] = [];
  for (let i = open; i < glob.length && close < 0; i++) {
    const char = glob[i];
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) close = i;
    else if (char === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) return [glob];
  const bounds = [open, ...commas, close];
  const alternatives = bounds.slice(0, -1).map((start, i) => glob.slice(start + 1, bounds[i + 1]));
  const head = glob.slice(0, open);
  const tails = expandBraces(glob.slice(close + 1));
  return alternatives.flatMap((alternative) =>
    expandBraces(head + alternative).flatMap((start) => tails.map((tail) => start + tail)),
  );
}

export interface IncludeMapping {
  /** Lower-case, with the dot: what the loader lists when it walks a folder. */
  extensions: string[];
  /** Include globs whose files cannot be told by extension (`**\/README`): watched, but not found by a full sync. */
  unmapped: string[];
}

/**
 * The extensions the include globs name in their last segment (`*.md`,
 * `*.{md,txt}`). A glob's folder part (`docs/**\/*.md`) narrows what the
 * watcher reports, but the loader walks by extension alone.
 */
export function extensionsOf(includes: readonly string[]): IncludeMapping {
  const extensions = new Set<string>();
  const unmapped: string[] = [];
  for (const include of includes) {
    let mapped = false;
    for (const glob of expandBraces(include)) {
      const name = glob.slice(glob.lastIndexOf('/') + 1);
      const match = /^\*(\.[^*?[\]{}/]+)$/.exec(name);
      if (match) {
        extensions.add(match[1]!.toLowerCase());
        mapped = true;
      }
    }
    if (!mapped) unmapped.push(include);
  }
  return { extensions: [...extensions].sort(), unmapped };
}

/**
 * VS Code exclude globs as gitignore patterns. Both are relative to the
 * folder and `**` means any depth in both; gitignore has no braces, so they
 * are expanded. `files.exclude` maps globs to true, false or a `when`
 * condition: only plain `true` entries exclude unconditionally.
 */
export function ignorePatterns(
  excludes: readonly string[],
  filesExclude: Readonly<Record<string, unknown>> = {},
): string[] {
  const globs = [
    ...excludes,
    ...Object.entries(filesExclude)
      .filter(([, value]) => value === true)
      .map(([glob]) => glob),
  ];
  const patterns = globs
    .map((glob) => glob.trim())
    .filter((glob) => glob && !glob.startsWith('#'))
    .flatMap(expandBraces)
    .map((glob) => glob.replace(/^\.\//, ''));
  return [...new Set(patterns)];
}
