import * as path from 'node:path';

import { assertId, assertOptionalId } from '../validation';
import type { SourceCollector } from './collector';
import { gather } from './gather';
import { importRoot, nameByFolder } from './memory-folder';
import { type ImportTarget, place, planItems, type PlannedItem } from './plan';
import { findGoneFiles, findRemovals, type Removal, removalOutcome, removeImported } from './prune';
import { assertFormat } from './registry';
import type { ImportFromReport, ImportProgress, InteropScope, ItemOutcome } from './types';
import { Workspace } from './workspace';
import { writePlanned } from './write';

export interface ImportFromOptions {
  /** One of IMPORT_FORMATS: which tool's files `path` holds. */
  format: string;
  /**
   * A file of that format, or a folder to look in ('' or '.' for the workspace folder), inside the
   * workspace; for the memory-folder formats (copilot-memory, claude-memory) also a folder or file the
   * user chose outside it, read there and nowhere else.
   */
  path: string;
  /** The workspace folder: nothing outside it is read, whatever a path or link says. */
  workspaceRoot: string;
  /** Whose memory receives the items. */
  agentId: string;
  /** Left out (what a repository's rules want): the agent's memory every user sees. */
  userId?: string;
  /** Plan only: the report says what would be done, and nothing is written. */
  dryRun?: boolean;
  /**
   * Remove what an earlier import took from a file read whole this time that
   * no longer holds it (unless edited in the store since). Default true: the
   * store follows its sources, as a re-import is expected to.
   */
  prune?: boolean;
  /** Aborting stops the import (CANCELLED) while it reads and plans; once it has started writing, it finishes. */
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Brings in what another agent tool remembers (see IMPORT_FORMATS) as
 * memories and skills of `agentId`, under ids derived from where each item
 * is, so that importing again updates what changed, leaves the rest, and
 * never duplicates. Refused before anything is read: an unknown format, a
 * path outside the workspace, and a file given by name that is not of the
 * format. Everything else that goes wrong is reported item by item in the
 * report's `errors`, and the rest is imported.
 */
export async function importFrom(target: ImportTarget, options: ImportFromOptions): Promise<ImportFromReport> {
  const format = assertFormat(options?.format);
  const scope: InteropScope = { agentId: assertId(options.agentId, 'agent id') };
  const userId = assertOptionalId(options.userId, 'user id');
  if (userId !== undefined) scope.userId = userId;
  const dryRun = options.dryRun === true;
  const root = importRoot(
    format,
    Workspace.open(options.workspaceRoot, options.signal),
    options.path ?? '',
    options.signal,
  );
  const { ws } = root;
  const located = ws.locate(root.path);
  const sources = await gather(ws, format, located, options.onProgress);
  if (root.outside) nameByFolder(sources, root.outside);
  ws.checkAborted();
  const planned = await planItems(target, sources.items, scope, options.onProgress, () => ws.pause());
  const removals = options.prune === false ? [] : await findRemovals(target, scope, sources.complete, planned);
  // A folder read finds every file of the format in it: one imported before and not there now is gone.
  if (options.prune !== false && located.kind === 'folder' && !root.outside) {
    const read = new Set(sources.files);
    const exists = (file: string) => ws.kindOf(file) !== undefined;
    removals.push(...(await findGoneFiles(target, scope, format, located.path, read, exists)));
  }
  ws.checkAborted();
  if (!dryRun) {
    await writePlanned(target, planned, format, options.onProgress);
    await removeImported(target, removals, format);
  }
  return report(
    format,
    root.outside ? path.posix.join(root.outside, located.path) : located.path,
    dryRun,
    sources,
    planned,
    removals,
  );
}

function report(
  format: ImportFromReport['format'],
  path: string,
  dryRun: boolean,
  sources: SourceCollector,
  planned: readonly PlannedItem[],
  removals: readonly Removal[],
): ImportFromReport {
  const items: ItemOutcome[] = [
    ...planned.map(outcomeOf),
    ...sources.skipped.map((skip) => ({
      title: skip.title,
      source: place(skip),
      action: 'skip' as const,
      reason: skip.reason,
    })),
    ...removals.map(removalOutcome),
  ];
  const count = (action: ItemOutcome['action']) => items.filter((item) => item.action === action).length;
  return {
    format,
    path,
    dryRun,
    created: count('create'),
    updated: count('update'),
    unchanged: count('unchanged'),
    skipped: count('skip'),
    removed: count('remove'),
    errors: [
      ...sources.problems.map((problem) => ({
        source: problem.path,
        message: problem.message,
        ...(problem.line === undefined ? {} : { line: problem.line }),
      })),
      ...planned
        .filter((plan) => plan.action === 'error')
        .map((plan) => ({
          source: plan.item.path,
          ...(plan.item.line === undefined ? {} : { line: plan.item.line }),
          message: `${plan.item.title}: ${plan.reason ?? 'not imported'}`,
          ...(plan.code ? { code: plan.code } : {}),
          id: plan.id,
        })),
    ],
    items,
    files: [...sources.files],
  };
}

function outcomeOf(plan: PlannedItem): ItemOutcome {
  const reason =
    plan.reason ??
    (plan.secrets
      ? `holds a secret (${plan.secrets}): redacted or refused as the store's secret policy says`
      : undefined);
  return {
    id: plan.id,
    type: plan.item.type,
    title: plan.item.title,
    source: place(plan.item),
    action: plan.action,
    ...(reason === undefined ? {} : { reason }),
  };
}
