import * as os from 'node:os';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { ImportFormat } from '../../core/interop';
import type { SourceRequest } from '../store/methods';

/**
 * The memory other tools keep in the user's home rather than in the
 * repository: the VS Code memory tool's notes and Claude Code's auto memory.
 * The user points at the folder; the import reads that folder and nothing
 * outside it (see core/interop/memory-folder.ts).
 */
interface MemoryFolderKind {
  format: Extract<ImportFormat, 'copilot-memory' | 'claude-memory'>;
  label: string;
  detail: string;
  /** Where the dialog opens. */
  near: string;
}

const KINDS: readonly MemoryFolderKind[] = [
  {
    format: 'claude-memory',
    label: vscode.l10n.t("Claude Code's auto memory…"),
    detail: vscode.l10n.t('A project folder of ~/.claude/projects, holding memory/MEMORY.md'),
    near: path.join(os.homedir(), '.claude', 'projects'),
  },
  {
    format: 'copilot-memory',
    label: vscode.l10n.t("The VS Code memory tool's notes…"),
    detail: vscode.l10n.t('A folder of Markdown memory files'),
    near: os.homedir(),
  },
];

/** A quick pick entry that asks for a memory folder when it is picked. */
export interface MemoryFolderItem extends vscode.QuickPickItem {
  choose: MemoryFolderKind['format'];
}

/** The entries the import's picker offers below what it found. */
export function memoryFolderItems(): MemoryFolderItem[] {
  return KINDS.map((kind) => ({
    label: `$(folder-opened) ${kind.label}`,
    description: vscode.l10n.t('choose a folder outside the workspace'),
    detail: kind.detail,
    choose: kind.format,
  }));
}

/** Asks which kind of memory folder, when not known, then for the folder; undefined when the user leaves. */
export async function chooseMemoryFolder(
  root: string,
  format?: MemoryFolderKind['format'],
): Promise<SourceRequest | undefined> {
  const kind =
    KINDS.find((known) => known.format === format) ??
    (
      await vscode.window.showQuickPick(
        KINDS.map((known) => ({ label: known.label, detail: known.detail, folderKind: known })),
        { title: vscode.l10n.t('Import a Memory Folder') },
      )
    )?.folderKind;
  if (!kind) return undefined;
  const [folder] =
    (await vscode.window.showOpenDialog({
      title: kind.label,
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: vscode.Uri.file(kind.near),
      openLabel: vscode.l10n.t('Import This Folder'),
    })) ?? [];
  return folder && { root, format: kind.format, path: folder.fsPath };
}
