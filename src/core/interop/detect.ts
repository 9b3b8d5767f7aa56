import { MemoryError } from '../errors';
import { SourceCollector } from './collector';
import { realOf } from './format-handler';
import { FORMAT_HANDLERS } from './registry';
import { type DetectedSource, IMPORT_FORMATS } from './types';
import { Workspace } from './workspace';

/** Sources read at most, for a workspace with hundreds of AGENTS.md: the list is for a person to pick from. */
const MAX_SOURCES = 200;

/**
 * What other agent tools keep in a workspace, for a person to see before
 * importing: each file (or store folder) with its format and how many
 * memories and skills it would give. Reads the files (to count), writes
 * nothing. The walk for files found at any depth (AGENTS.md, CLAUDE.md,
 * MEMORY.md, memory.jsonl) is the document loader's: `.gitignore`d and
 * hidden folders and node_modules are left out; the tools' own folders
 * (.github, .claude, .cursor, .windsurf, memory-bank, .aipack) are looked
 * into by name. A file a format's name matches but whose content is not of
 * it (a memory.json of something else) is left out. Aborting the signal
 * stops it with CANCELLED.
 */
export async function detectSources(
  workspaceRoot: string,
  options: { signal?: AbortSignal } = {},
): Promise<DetectedSource[]> {
  const ws = Workspace.open(workspaceRoot, options.signal);
  const detected: DetectedSource[] = [];
  const seen = new Set<string>();
  for (const format of IMPORT_FORMATS) {
    const handler = FORMAT_HANDLERS[format];
    if (!handler.detectable) continue;
    for (const file of await handler.locate(ws, '')) {
      await ws.pause();
      if (detected.length >= MAX_SOURCES) return detected;
      // A link read under two names, or two formats' names for one file, is one source.
      const key = `${format}\u0000${realOf(ws, file)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const into = new SourceCollector();
      try {
        handler.collect(ws, file, into);
      } catch (error) {
        if (error instanceof MemoryError && error.code !== 'CANCELLED') continue;
        throw error;
      }
      const [first] = into.problems;
      detected.push({
        format,
        path: file,
        items: into.items.length,
        problems: into.problems.length,
        ...(first
          ? { problem: first.line === undefined ? first.message : `line ${first.line}: ${first.message}` }
          : {}),
      });
    }
  }
  return detected;
}
