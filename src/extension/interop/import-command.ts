import * as vscode from 'vscode';

import type { DetectedSource, ImportFormat } from '../../core/interop';
import { showReport } from '../documents/reports';
import type { Services } from '../services';
import type { DetectedSources, SourceRequest, SourcesImport, SourcesProgress } from '../store/methods';
import { withProgress } from '../ui';
import { itemCount, problemCount } from './counts';
import { localFolders, noFolder } from './folders';
import { importReport, sourceName, summaryText } from './import-report';
import { chooseMemoryFolder, type MemoryFolderItem, memoryFolderItems } from './memory-folder';

/**
 * "Import From Other Tools…": finds what other agent tools keep in the
 * workspace (Copilot instructions, CLAUDE.md, Cursor rules…), lets the user
 * pick, and imports the picks as memories and skills in the store's worker.
 */

/**
 * The command's answers, for keybindings, other extensions and tests: with
 * `sources` it imports those without detecting or asking.
 */
export interface ImportCommandOptions {
  /** Each a format and a path relative to its workspace folder (`folder`: its path on disk; default the first). */
  sources?: { format: ImportFormat; path: string; folder?: string }[];
  /** Report what would be done; write nothing. */
  dryRun?: boolean;
  /** false: keep what an earlier import took from a file that no longer holds it. */
  prune?: boolean;
}

/** Where each phase starts within one source, and its share of it, for the progress bar. */
const PHASE_SPAN: Record<SourcesProgress['phase'], [start: number, share: number]> = {
  reading: [0, 0.2],
  planning: [0.2, 0.4],
  writing: [0.6, 0.4],
};

/** How much of the whole import is done, in percent. */
function percentOf({ phase, done, total, source, sources }: SourcesProgress): number {
  const [start, share] = PHASE_SPAN[phase];
  const within = start + (total > 0 ? Math.min(done / total, 1) : 1) * share;
  return ((source + within) / sources) * 100;
}

function phaseText(progress: SourcesProgress): string {
  const { phase, done, total } = progress;
  if (phase === 'reading') return vscode.l10n.t('reading files ({0} of {1})', done, total);
  if (phase === 'planning') return vscode.l10n.t('comparing with the store ({0} of {1})', done, total);
  return vscode.l10n.t('writing ({0} of {1})', done, total);
}

function warnRestricted(): void {
  const manage = vscode.l10n.t('Manage Workspace Trust');
  // What is imported is recalled into prompts: Restricted Mode keeps a workspace's files out, as doc sync does.
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t(
        "Workspace Memory does not import other tools' files from a workspace in Restricted Mode. Trust this workspace to import them.",
      ),
      manage,
    )
    .then((choice) => choice === manage && vscode.commands.executeCommand('workbench.trust.manage'));
}

interface SourceItem extends vscode.QuickPickItem {
  request: SourceRequest;
}

function sourceItem(
  root: string,
  source: DetectedSource,
  labels: ReadonlyMap<string, string>,
  multiRoot: boolean,
): SourceItem {
  const request: SourceRequest = { root, format: source.format, path: source.path };
  const items = itemCount(source.items);
  return {
    label: sourceName(request, multiRoot),
    description: labels.get(source.format) ?? source.format,
    detail:
      source.problems > 0
        ? vscode.l10n.t('{0} · {1} (first: {2})', items, problemCount(source.problems), source.problem ?? '')
        : items,
    // What holds nothing to import is listed (the user may wonder where their file went) but not chosen.
    picked: source.items > 0,
    request,
  };
}

/** The sources to import, and each format's name for people ("Cursor rules") where it is known. */
interface Picked {
  requests: SourceRequest[];
  labels: ReadonlyMap<string, string>;
}

/** Detects, then asks which sources to import; undefined when the user leaves or nothing is there. */
async function pickSources(
  services: Services,
  folders: readonly vscode.WorkspaceFolder[],
): Promise<Picked | undefined> {
  const detected = await withProgress(vscode.l10n.t("Looking for other tools' memories"), (_report, signal) =>
    services.task<DetectedSources>('worker.detectSources', [folders.map((folder) => folder.uri.fsPath), {}], {
      signal,
    }),
  );
  const labels = new Map(detected.looksFor.map((format) => [format.format, format.label]));
  const multiRoot = folders.length > 1;
  const items = detected.folders.flatMap(({ root, sources }) =>
    sources.map((source) => sourceItem(root, source, labels, multiRoot)),
  );
  const root = folders[0]!.uri.fsPath;
  if (items.length === 0) {
    const choose = vscode.l10n.t('Choose a Memory Folder…');
    const answer = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        "No other tools' memories were found in this workspace. Workspace Memory looks for {0}. Claude Code's auto memory and the VS Code memory tool's notes live outside the workspace: choose their folder.",
        detected.looksFor
          .filter((format) => format.detectable)
          .map((format) => format.reads)
          .join('; '),
      ),
      choose,
    );
    const chosen = answer === choose ? await chooseMemoryFolder(root) : undefined;
    return chosen && { requests: [chosen], labels };
  }
  const outside: vscode.QuickPickItem = {
    label: vscode.l10n.t('Outside the workspace'),
    kind: vscode.QuickPickItemKind.Separator,
  };
  const picked = await vscode.window.showQuickPick<SourceItem | MemoryFolderItem | vscode.QuickPickItem>(
    [...items, outside, ...memoryFolderItems()],
    {
      title: vscode.l10n.t('Import From Other Tools'),
      placeHolder: vscode.l10n.t('Pick what to import as memories and skills'),
      canPickMany: true,
      matchOnDescription: true,
    },
  );
  if (!picked) return undefined;
  const requests: SourceRequest[] = [];
  for (const item of picked) {
    if ('request' in item) requests.push(item.request);
    else if ('choose' in item) {
      const chosen = await chooseMemoryFolder(root, item.choose);
      if (chosen) requests.push(chosen);
    }
  }
  return { requests, labels };
}

/** The sources named in the options, in the workspace folder each names (the first by default). */
function namedSources(
  sources: NonNullable<ImportCommandOptions['sources']>,
  folders: readonly vscode.WorkspaceFolder[],
): SourceRequest[] {
  return sources.map(({ format, path, folder }) => ({
    root: folder ?? folders[0]!.uri.fsPath,
    format,
    path,
  }));
}

async function showSummary(
  result: SourcesImport,
  requested: number,
  labels: ReadonlyMap<string, string>,
  multiRoot: boolean,
  dryRun: boolean,
): Promise<void> {
  const details = vscode.l10n.t('Show Details');
  const text = summaryText(result, requested);
  const failed = result.outcomes.some((outcome) => 'error' in outcome || outcome.report.errors.length > 0);
  const choice = await (failed
    ? vscode.window.showWarningMessage(text, details)
    : vscode.window.showInformationMessage(text, details));
  if (choice === details) {
    await showReport(vscode.l10n.t('Import From Other Tools'), importReport(result, labels, multiRoot, dryRun), true);
  }
}

export async function importFromTools(
  services: Services,
  options: ImportCommandOptions,
): Promise<SourcesImport | undefined> {
  if (!vscode.workspace.isTrusted) {
    warnRestricted();
    return undefined;
  }
  const folders = localFolders();
  if (folders.length === 0) {
    noFolder();
    return undefined;
  }
  const picked = options.sources
    ? { requests: namedSources(options.sources, folders), labels: new Map<string, string>() }
    : await pickSources(services, folders);
  if (!picked?.requests.length) return undefined;
  const { requests, labels } = picked;
  const dryRun = options.dryRun === true;
  const multiRoot = folders.length > 1;
  // A repository's rules are everyone's: they go to the agent's memory, not the user's own.
  const { agentId } = services.scope();
  let shown = 0;
  const result = await withProgress(vscode.l10n.t('Importing from other tools'), (report, signal) =>
    services.task<SourcesImport, SourcesProgress>(
      'worker.importSources',
      [requests, { agentId }, { dryRun, prune: options.prune !== false }],
      {
        signal,
        onProgress: (progress) => {
          const percent = percentOf(progress);
          const name = sourceName(requests[progress.source]!, multiRoot);
          report(`${name}: ${phaseText(progress)}`, Math.max(0, percent - shown));
          shown = Math.max(shown, percent);
        },
      },
    ),
  );
  // Not awaited: the command is over; "Show Details" acts whenever it is clicked.
  void showSummary(result, requests.length, labels, multiRoot, dryRun).then(undefined, (error: unknown) =>
    services.reportError(vscode.l10n.t('Showing the import report'), error),
  );
  return result;
}
