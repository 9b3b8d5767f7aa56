import { importPath, importRefs } from './claude-imports';
import { collectMarkdown, folderOf, type SectionMapping, type SourceCollector, stemTag } from './collector';
import {
  baseName,
  fileAt,
  filesIn,
  type FormatHandler,
  isMarkdown,
  isUnder,
  join,
  notThisFormat,
  ownerOf,
  realOf,
} from './format-handler';
import { globList, scopedGlobs, textField } from './front-matter';
import type { Workspace } from './workspace';

/**
 * Claude Code's memory files. CLAUDE.md (and CLAUDE.local.md,
 * .claude/CLAUDE.md) at any depth and `.claude/rules/*.md` are skills
 * (procedures), a nested one for its folder, a rule for the files its
 * `paths` globs name; a CLAUDE.md's `@path` imports are read with it, as
 * Claude Code reads them: inside the workspace only, each file once, at most
 * MAX_IMPORT_DEPTH hops. The auto memory's MEMORY.md (and its topic files,
 * given one by one) are facts.
 */

/** Claude Code follows imports this many hops deep. */
const MAX_IMPORT_DEPTH = 5;
const MEMORY_FILES = new Set(['CLAUDE.md', 'CLAUDE.local.md']);

export const claude: FormatHandler = {
  label: 'Claude Code',
  looksFor: 'CLAUDE.md, CLAUDE.local.md and .claude/CLAUDE.md files, and .claude/rules/*.md',
  detectable: true,
  async locate(ws, folder) {
    const nested = (await ws.walkNamed(new Set(['CLAUDE.md']))).filter((file) => isUnder(folder, file));
    return filesIn(
      ws,
      folder,
      (base) => [
        ...fileAt(ws, join(base, 'CLAUDE.md')),
        ...fileAt(ws, join(base, 'CLAUDE.local.md')),
        ...fileAt(ws, join(base, '.claude/CLAUDE.md')),
        ...ws.listFolder(join(base, '.claude/rules'), isMarkdown),
      ],
      nested,
    );
  },
  collect(ws, file, into) {
    if (MEMORY_FILES.has(baseName(file))) {
      collectWithImports(ws, realOf(ws, file), into, memoryFileMapping(file), 0, importsOf(into));
      return;
    }
    const owner = ownerOf(file, '.claude');
    if (owner === undefined || !file.includes('.claude/rules/') || !isMarkdown(file)) throw notThisFormat(file, claude);
    const real = realOf(ws, file);
    collectMarkdown(into, real, ws.readText(real), (front) => {
      const globs = globList(front.paths);
      return {
        type: 'skill',
        category: 'procedure',
        tags: [stemTag(file)].filter(Boolean),
        // A rule without paths is loaded for every file: its project's, when it is nested.
        appliesTo: scopedGlobs(owner, globs),
        lead: textField(front, 'description'),
      };
    });
  },
};

/** Who imports what among the files a collector read: kept across the files of one import (see widen). */
const IMPORTS = new WeakMap<SourceCollector, Map<string, string[]>>();

function importsOf(into: SourceCollector): Map<string, string[]> {
  let imports = IMPORTS.get(into);
  if (!imports) IMPORTS.set(into, (imports = new Map<string, string[]>()));
  return imports;
}

/** A CLAUDE.md (or CLAUDE.local.md, .claude/CLAUDE.md) is for its folder; .claude/CLAUDE.md for the folder holding .claude. */
function memoryFileMapping(file: string): SectionMapping {
  const folder = ownerOf(file, '.claude') ?? folderOf(file);
  return { type: 'skill', category: 'procedure', appliesTo: scopedGlobs(folder, []) };
}

/**
 * A CLAUDE.md, then each file it imports, mapped alike (an import is part of
 * the file that imports it), except another CLAUDE.md: Claude Code loads that
 * one for its own folder anyway, so it keeps its own scope whoever imports
 * it. A file two importers reach is read once and applies where either
 * wants it: no scope if one is project-wide, else both (`imports` records
 * who imports what, so what it imports is widened too).
 */
function collectWithImports(
  ws: Workspace,
  file: string,
  into: SourceCollector,
  mapping: SectionMapping,
  depth: number,
  imports: Map<string, string[]>,
): void {
  const text = ws.readText(file);
  if (!collectMarkdown(into, file, text, () => mapping)) return;
  const followed: string[] = [];
  imports.set(file, followed);
  for (const ref of importRefs(text)) {
    const where = importPath(file, ref.target);
    const title = `@${ref.target}`;
    if ('outside' in where) {
      into.skip(file, title, 'the import leads outside the workspace', ref.line);
      continue;
    }
    const kind = ws.kindOf(where.path);
    const real = kind === 'file' ? ws.realRelative(where.path) : undefined;
    if (real === undefined) {
      // `@alice` is a mention, not a file; only what reads as a path is worth a word.
      if (/[./]/.test(ref.target)) {
        into.skip(file, title, kind === undefined ? 'no such file in the workspace' : 'not a file', ref.line);
      }
      continue;
    }
    const own = MEMORY_FILES.has(baseName(real));
    if (!own) followed.push(real);
    if (into.files.includes(real)) {
      // Read already: a cycle, or a file two CLAUDE.md import.
      if (!own) widen(into, real, mapping.appliesTo, imports, new Set());
      continue;
    }
    if (depth + 1 > MAX_IMPORT_DEPTH) {
      into.skip(file, title, `imports go at most ${MAX_IMPORT_DEPTH} levels deep`, ref.line);
      continue;
    }
    try {
      collectWithImports(ws, real, into, own ? memoryFileMapping(real) : mapping, depth + 1, imports);
    } catch (error) {
      into.problem(real, (error as Error).message);
    }
  }
}

/** Makes the items of `file` (and of what it imports) apply where `appliesTo` says too. */
function widen(
  into: SourceCollector,
  file: string,
  appliesTo: readonly string[] | undefined,
  imports: ReadonlyMap<string, readonly string[]>,
  seen: Set<string>,
): void {
  if (seen.has(file)) return;
  seen.add(file);
  for (const item of into.items) {
    if (item.path !== file || item.storeId || !item.appliesTo?.length) continue;
    if (!appliesTo?.length) delete item.appliesTo;
    else item.appliesTo = [...new Set([...item.appliesTo, ...appliesTo])];
  }
  for (const next of imports.get(file) ?? []) widen(into, next, appliesTo, imports, seen);
}

export const claudeMemory: FormatHandler = {
  label: 'Claude Code auto memory',
  looksFor: 'MEMORY.md files (and, given by name, the topic files beside one)',
  detectable: true,
  async locate(ws, folder) {
    // The walk leaves hidden folders out: a memory folder given by name (.claude/memory) is looked in too.
    const walked = (await ws.walkNamed(new Set(['MEMORY.md']))).filter((file) => isUnder(folder, file));
    return filesIn(ws, folder, (base) => fileAt(ws, join(base, 'MEMORY.md')), walked);
  },
  collect(ws, file, into) {
    if (!isMarkdown(file)) throw notThisFormat(file, claudeMemory);
    const real = realOf(ws, file);
    collectMarkdown(into, real, ws.readText(real), () => ({ type: 'memory', category: 'fact' }));
  },
};
