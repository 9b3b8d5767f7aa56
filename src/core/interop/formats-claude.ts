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
      // .claude/CLAUDE.md is its project's, as CLAUDE.md beside .claude would be.
      const folder = ownerOf(file, '.claude') ?? folderOf(file);
      const mapping: SectionMapping = { type: 'skill', category: 'procedure', appliesTo: scopedGlobs(folder, []) };
      collectWithImports(ws, realOf(ws, file), into, mapping, 0);
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

/** A CLAUDE.md, then each file it imports, mapped alike (an import is part of the file that imports it). */
function collectWithImports(
  ws: Workspace,
  file: string,
  into: SourceCollector,
  mapping: SectionMapping,
  depth: number,
): void {
  const text = ws.readText(file);
  if (!collectMarkdown(into, file, text, () => mapping)) return;
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
    if (into.files.includes(real)) continue; // Read already: a cycle, or a file two CLAUDE.md import.
    if (depth + 1 > MAX_IMPORT_DEPTH) {
      into.skip(file, title, `imports go at most ${MAX_IMPORT_DEPTH} levels deep`, ref.line);
      continue;
    }
    try {
      collectWithImports(ws, real, into, mapping, depth + 1);
    } catch (error) {
      into.problem(real, (error as Error).message);
    }
  }
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
