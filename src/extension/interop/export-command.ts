import * as path from 'node:path';

import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import type { ExportSelection, ToolExportReport, ToolTarget } from '../../core/interop';
import { TEAM_AGENT_ID } from '../../core/types';
import { showReport } from '../documents/reports';
import type { Services } from '../services';
import type { ExportChoices } from '../store/methods';
import { confirm, withProgress } from '../ui';
import { itemCount } from './counts';
import { localFolders, noFolder } from './folders';

/**
 * "Export Memory to Agent Instructions…": memories and skills written where
 * other agents read them (a generated block in AGENTS.md, CLAUDE.md or
 * Copilot's instructions, or the MCP memory server's graph), previewed
 * first. The user's own memories are never exported: the files are the
 * repository's.
 */

/** The command's answers, for keybindings, other extensions and tests: with all of them it asks nothing. */
export interface ExportCommandOptions {
  /** The workspace folder's path on disk (default: the only one, or the one picked). */
  folder?: string;
  target?: ToolTarget;
  /** Another file of the target's kind, relative to the folder. */
  file?: string;
  /** What to export; `teamOnly`: the team folder's memories and skills alone. Default: all. */
  select?: { categories?: string[]; tags?: string[]; teamOnly?: boolean };
  /** Write without showing the preview and asking (the caller confirmed already). */
  confirmed?: boolean;
}

interface TargetItem extends vscode.QuickPickItem {
  target: ToolTarget;
}

function targetItems(): TargetItem[] {
  return [
    {
      label: 'AGENTS.md',
      description: vscode.l10n.t('Codex, Copilot, Cursor and other agents'),
      detail: vscode.l10n.t('A generated block after your own text, replaced on each export'),
      target: 'agents-md',
    },
    {
      label: 'CLAUDE.md',
      description: vscode.l10n.t('Claude Code'),
      detail: vscode.l10n.t('A generated block after your own text, replaced on each export'),
      target: 'claude-md',
    },
    {
      label: '.github/copilot-instructions.md',
      description: vscode.l10n.t('GitHub Copilot'),
      detail: vscode.l10n.t('A generated block after your own text, replaced on each export'),
      target: 'copilot-instructions',
    },
    {
      label: 'memory.jsonl',
      description: vscode.l10n.t('MCP memory server'),
      detail: vscode.l10n.t("Entities of its knowledge graph; the graph's own entities and relations are kept"),
      target: 'mcp-memory',
    },
  ];
}

type SelectionKind = 'all' | 'category' | 'tag' | 'team';
/** How many tags the "By tag…" choice names. */
const TAGS_SHOWN = 12;

interface SelectionItem extends vscode.QuickPickItem {
  selects: SelectionKind;
}

function countsItems(counts: ExportChoices['categories']): vscode.QuickPickItem[] {
  return counts.map(({ name, count }) => ({ label: name, description: itemCount(count) }));
}

/** Asks what to export; undefined when the user leaves. */
async function pickSelection(services: Services): Promise<ExportCommandOptions['select'] | undefined> {
  const choices = await services.use((memory) => memory.worker.exportChoices(services.scope().agentId));
  const items: SelectionItem[] = [
    {
      label: vscode.l10n.t('All memories and skills'),
      detail: vscode.l10n.t("This workspace's and the team's; your own personal memories are never exported"),
      selects: 'all',
    },
    {
      label: vscode.l10n.t('By category…'),
      detail: choices.categories.map((category) => category.name).join(', '),
      selects: 'category',
    },
    {
      label: vscode.l10n.t('By tag…'),
      // The most used, as a hint: the next step lists them all.
      detail: choices.tags.length
        ? choices.tags
            .slice(0, TAGS_SHOWN)
            .map((tag) => tag.name)
            .join(', ')
        : vscode.l10n.t('Nothing is tagged'),
      selects: 'tag',
    },
  ];
  if (choices.team > 0) {
    items.push({
      label: vscode.l10n.t('Team memory only'),
      detail: vscode.l10n.t("{0} in the repository's team folder", itemCount(choices.team)),
      selects: 'team',
    });
  }
  const choice = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Export Memory: what to export'),
  });
  if (!choice) return undefined;
  if (choice.selects === 'all') return {};
  if (choice.selects === 'team') return { teamOnly: true };
  const counts = choice.selects === 'category' ? choices.categories : choices.tags;
  if (counts.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There is nothing to pick from.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(countsItems(counts), {
    title:
      choice.selects === 'category'
        ? vscode.l10n.t('Export Memory: categories to export')
        : vscode.l10n.t('Export Memory: tags to export (an item with any of them is exported)'),
    canPickMany: true,
  });
  if (!picked?.length) return undefined;
  const names = picked.map((item) => item.label);
  return choice.selects === 'category' ? { categories: names } : { tags: names };
}

/** The store's selection for the command's: the workspace's and the team's, or the team's alone. */
function selectionOf(agentId: string, select: NonNullable<ExportCommandOptions['select']>): ExportSelection {
  if (select.teamOnly) return { agentId: TEAM_AGENT_ID };
  return { agentId, team: true, categories: select.categories, tags: select.tags };
}

/** The preview: what the export writes, in a fence long enough for what it holds. */
function previewOf(report: ToolExportReport): string {
  const longest = Math.max(2, ...(report.content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const where =
    report.target === 'mcp-memory'
      ? vscode.l10n.t(
          "These lines replace the entities Workspace Memory wrote in {0} before; the graph's other {1} lines are kept.",
          report.file,
          report.kept,
        )
      : report.action === 'created'
        ? vscode.l10n.t('This block goes after the text of {0}; nothing else in the file changes.', report.file)
        : vscode.l10n.t(
            'This block replaces the one exported to {0} before; nothing else in the file changes.',
            report.file,
          );
  return [
    `# ${vscode.l10n.t('Export preview: {0} to {1}', itemCount(report.ids.length), report.file)}`,
    '',
    where,
    '',
    `${fence}${report.target === 'mcp-memory' ? 'jsonl' : 'markdown'}`,
    report.content.trimEnd(),
    fence,
    '',
  ].join('\n');
}

/**
 * Shows a refused export (a block edited by hand, markers out of place, a
 * file that is not a graph) with its reason and a way to the file.
 */
function showRefusal(message: string, file: vscode.Uri): void {
  const open = vscode.l10n.t('Open File');
  void vscode.window
    .showErrorMessage(vscode.l10n.t('Not exported: {0}', message), open)
    .then((choice) => (choice === open ? vscode.window.showTextDocument(file) : undefined))
    .then(undefined, () => undefined);
}

export async function exportToTools(
  services: Services,
  options: ExportCommandOptions,
): Promise<ToolExportReport | undefined> {
  const folders = localFolders();
  if (folders.length === 0) {
    noFolder();
    return undefined;
  }
  const folder =
    options.folder ??
    (folders.length === 1
      ? folders[0]!.uri.fsPath
      : (await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('The folder to export to') }))?.uri
          .fsPath);
  if (!folder) return undefined;
  const target =
    options.target ??
    (
      await vscode.window.showQuickPick(targetItems(), {
        title: vscode.l10n.t('Export Memory to Agent Instructions'),
        placeHolder: vscode.l10n.t('Where other agents should read the memories and skills'),
      })
    )?.target;
  if (!target) return undefined;
  const select = options.select ?? (await pickSelection(services));
  if (!select) return undefined;
  const request = {
    target,
    workspaceRoot: folder,
    file: options.file,
    select: selectionOf(services.scope().agentId, select),
  };
  const memory = await services.memory();
  // A target's item is named by its usual file.
  const fileUri = (report?: ToolExportReport) =>
    vscode.Uri.file(
      path.join(folder, report?.file ?? options.file ?? targetItems().find((item) => item.target === target)!.label),
    );
  const run = async (dryRun: boolean): Promise<ToolExportReport | undefined> => {
    try {
      return await withProgress(
        dryRun ? vscode.l10n.t('Preparing the export') : vscode.l10n.t('Exporting'),
        () => memory.worker.exportForTool({ ...request, dryRun }),
        false,
      );
    } catch (error) {
      // The export refused the file as it is: the reason is the way forward, next to the file.
      if (!isMemoryError(error, 'EXPORT_CONFLICT') && !isMemoryError(error, 'INVALID_INPUT')) throw error;
      showRefusal(error.message, fileUri());
      return undefined;
    }
  };
  const preview = await run(true);
  if (!preview) return undefined;
  if (preview.ids.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No memories or skills match: nothing was exported.'));
    return preview;
  }
  if (preview.action === 'unchanged') {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('{0} already holds these {1}: nothing to write.', preview.file, itemCount(preview.ids.length)),
    );
    return preview;
  }
  if (!options.confirmed) {
    await showReport(vscode.l10n.t('Export Preview: {0}', preview.file), previewOf(preview));
    const write = vscode.l10n.t('Write');
    const ok = await confirm(
      vscode.l10n.t('Write {0} to {1}?', itemCount(preview.ids.length), preview.file),
      write,
      vscode.l10n.t(
        'The preview shows what is written. The next export replaces it; an edit made to it by hand is refused then, not overwritten.',
      ),
    );
    if (!ok) return undefined;
  }
  const written = await run(false);
  if (!written) return undefined;
  const open = vscode.l10n.t('Open File');
  void vscode.window
    .showInformationMessage(vscode.l10n.t('Exported {0} to {1}.', itemCount(written.ids.length), written.file), open)
    .then((choice) => (choice === open ? vscode.window.showTextDocument(fileUri(written)) : undefined))
    .then(undefined, (error: unknown) => services.reportError(vscode.l10n.t('Opening'), error));
  return written;
}
