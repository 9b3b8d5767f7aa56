import * as path from 'node:path';

import { MemoryError } from '../errors';
import { assertExportable, GRAPH_FILE, readForRewrite, replaceFile } from './export-file';
import { mcpMemory } from './formats-graph';
import { entityLine, isStoreLine, readGraph } from './mcp-graph';
import { type ExportSelection, type ExportSource, idsFromFile, selectEntries } from './select';
import { Workspace } from './workspace';

/**
 * Gives memories and skills to the MCP reference memory server, as entities
 * of its JSONL graph (see mcp-graph.ts for how one reads). The graph may
 * hold the server's own entities and relations: those lines are kept byte
 * for byte, broken ones too; only the entities this store wrote are
 * replaced by the selection as it is now.
 */

/** Where the MCP memory server keeps its graph when MEMORY_FILE_PATH does not say otherwise. */
export const DEFAULT_GRAPH_FILE = 'memory.jsonl';

export interface GraphExportOptions {
  workspaceRoot: string;
  /** Workspace-relative. Default DEFAULT_GRAPH_FILE. */
  file?: string;
  select: ExportSelection;
  dryRun?: boolean;
}

export interface GraphExportReport {
  file: string;
  action: 'created' | 'updated' | 'unchanged';
  dryRun: boolean;
  ids: string[];
  /** Lines of the graph that are not this store's, kept as they were. */
  kept: number;
  /** This store's entity lines as written (or, in a dry run, as they would be): what a preview shows. */
  content: string;
}

export async function exportToMcpGraph(source: ExportSource, options: GraphExportOptions): Promise<GraphExportReport> {
  const ws = Workspace.open(options?.workspaceRoot);
  const named = path.posix.normalize((options.file ?? DEFAULT_GRAPH_FILE).replace(/\\/g, '/'));
  const file = ws.writable(named);
  assertExportable([named, file.relative], 'mcp-memory', GRAPH_FILE);
  const text = readForRewrite(file.absolute, file.relative);
  const graph = readGraph(text);
  if (graph.entities.length === 0 && graph.relations.length === 0 && graph.problems.length > 0) {
    throw new MemoryError(
      'EXPORT_CONFLICT',
      `${file.relative} is not an MCP memory graph (${graph.problems[0]!.message}): it was not written, so that none of it is lost.`,
    );
  }
  const kept = text.split('\n').filter((line) => line.trim() !== '' && !isStoreLine(line));
  // The server's entities imported into this store are in the graph already, under their names.
  const exclude = file.exists ? idsFromFile(ws, mcpMemory, named, options.select) : new Set<string>();
  const entries = await selectEntries(source, options.select, exclude);
  const own = entries.map(entityLine);
  const lines = [...kept, ...own];
  const next = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  const action = next === text ? 'unchanged' : file.exists ? 'updated' : 'created';
  const dryRun = options.dryRun === true;
  if (action !== 'unchanged' && !dryRun) replaceFile(file.absolute, file.relative, text, next);
  return {
    file: file.relative,
    action,
    dryRun,
    ids: entries.map((entry) => entry.id),
    kept: kept.length,
    content: own.map((line) => `${line}\n`).join(''),
  };
}
