/**
 * Interop (issue #15): what other agent tools remember, brought in as
 * memories and skills, and given back in the files they read.
 *
 * - detectSources: what a workspace holds, per format and file, with counts;
 * - importFrom: one format's file or folder into the store, again and again
 *   without duplicates (dry run: the plan only);
 * - exportToInstructions: a generated block in AGENTS.md, CLAUDE.md or
 *   Copilot's instructions; exportToMcpGraph: the MCP memory server's graph;
 *   exportForTool: either, by the target's name.
 */
export { detectSources } from './detect';
export { DEFAULT_GRAPH_FILE, exportToMcpGraph, type GraphExportOptions, type GraphExportReport } from './export-graph';
export {
  EXPORT_TARGETS,
  type ExportTarget,
  exportToInstructions,
  type InstructionsExportOptions,
  type InstructionsExportReport,
} from './export-instructions';
export {
  defaultExportFile,
  exportForTool,
  TOOL_TARGETS,
  type ToolExportOptions,
  type ToolExportReport,
  type ToolTarget,
} from './export-tool';
export { importFrom, type ImportFromOptions } from './import';
export type { ImportTarget } from './plan';
export { assertFormat, describeFormats } from './registry';
export type { ExportSelection, ExportSource } from './select';
export {
  type DetectedSource,
  IMPORT_FORMATS,
  type ImportedType,
  type ImportFormat,
  type ImportFromReport,
  type ImportProblem,
  type ImportProgress,
  type ItemAction,
  type ItemOutcome,
} from './types';
