import { MemoryError } from '../errors';
import { DEFAULT_GRAPH_FILE, exportToMcpGraph, type GraphExportReport } from './export-graph';
import {
  EXPORT_TARGETS,
  type ExportTarget,
  exportToInstructions,
  type InstructionsExportReport,
} from './export-instructions';
import type { ExportSelection, ExportSource } from './select';

/**
 * One entry point for every file an export writes, by the name `export --to`
 * takes, so that the CLI and the extension offer the same targets and do
 * not each decide which writer a name means.
 */

export const TOOL_TARGETS = ['agents-md', 'claude-md', 'copilot-instructions', 'mcp-memory'] as const;
export type ToolTarget = (typeof TOOL_TARGETS)[number];

export interface ToolExportOptions {
  target: ToolTarget;
  workspaceRoot: string;
  /** Another file of the target's kind than its usual one (see defaultExportFile), workspace-relative or absolute. */
  file?: string;
  select: ExportSelection;
  /** The block's heading (instruction files only). */
  title?: string;
  dryRun?: boolean;
}

export type ToolExportReport =
  ({ target: ExportTarget } & InstructionsExportReport) | ({ target: 'mcp-memory' } & GraphExportReport);

/** The file a target is written to when none is named. */
export function defaultExportFile(target: ToolTarget): string {
  return target === 'mcp-memory' ? DEFAULT_GRAPH_FILE : EXPORT_TARGETS[target].file;
}

export async function exportForTool(source: ExportSource, options: ToolExportOptions): Promise<ToolExportReport> {
  const { target, workspaceRoot, file, select, title, dryRun } = options ?? {};
  if (target === 'mcp-memory') {
    return { target, ...(await exportToMcpGraph(source, { workspaceRoot, file, select, dryRun })) };
  }
  if (!(TOOL_TARGETS as readonly unknown[]).includes(target)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `Unknown export target "${String(target)}"; the targets are ${TOOL_TARGETS.join(', ')}.`,
    );
  }
  return { target, ...(await exportToInstructions(source, { target, workspaceRoot, file, select, title, dryRun })) };
}
