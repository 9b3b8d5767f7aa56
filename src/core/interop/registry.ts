import { MemoryError } from '../errors';
import type { FormatHandler } from './format-handler';
import { claude, claudeMemory } from './formats-claude';
import { copilot, copilotMemory } from './formats-copilot';
import { mcpMemory } from './formats-graph';
import { cline, cursor, windsurf } from './formats-rules';
import { aipack, repomemory } from './formats-stores';
import { IMPORT_FORMATS, type ImportFormat } from './types';

/** Each format's reader, by the name `import --from` takes. */
export const FORMAT_HANDLERS: Readonly<Record<ImportFormat, FormatHandler>> = {
  copilot,
  'copilot-memory': copilotMemory,
  claude,
  'claude-memory': claudeMemory,
  cursor,
  windsurf,
  cline,
  'mcp-memory': mcpMemory,
  repomemory,
  aipack,
};

/** The format named, or INVALID_INPUT listing the known ones. */
export function assertFormat(value: unknown): ImportFormat {
  if (typeof value === 'string' && (IMPORT_FORMATS as readonly string[]).includes(value)) return value as ImportFormat;
  const shown = typeof value === 'string' ? `"${value.slice(0, 60)}"` : String(value);
  throw new MemoryError(
    'INVALID_INPUT',
    `Unknown import format ${shown}; the formats are ${IMPORT_FORMATS.join(', ')}.`,
  );
}

/**
 * What each format reads, for a help text: `claude: CLAUDE.md, … (Claude
 * Code)`, and whether detectSources looks for it (a format whose files are
 * only known by the folder given, such as the VS Code memory tool's, is not).
 */
export function describeFormats(): { format: ImportFormat; label: string; reads: string; detectable: boolean }[] {
  return IMPORT_FORMATS.map((format) => ({
    format,
    label: FORMAT_HANDLERS[format].label,
    reads: FORMAT_HANDLERS[format].looksFor,
    detectable: FORMAT_HANDLERS[format].detectable,
  }));
}
