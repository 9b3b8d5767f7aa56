import * as os from 'node:os';
import * as path from 'node:path';

import * as vscode from 'vscode';

import { DEFAULT_TEAM_FOLDER } from '../core/team/folder';
import { MAX_UNUSED_DAYS } from '../core/trust/unused';
import { SHARED_AGENT_ID } from '../core/types';
import { LIMITS } from '../core/validation';

/** Every setting lives under this section (see `contributes.configuration`). */
export const SECTION = 'workspaceMemory';

export interface Scope {
  agentId: string;
  userId: string | undefined;
}

/** What ids may not contain (see the core's validation): path separators, colons, `..`, control characters. */
const UNSAFE_ID = /[/\\:\p{Cc}]|\.\./u;

/** The OS user name, made a valid id: the default user of a workspace's memories and profile. */
function defaultUser(): string | undefined {
  try {
    return os.userInfo().username.replace(new RegExp(UNSAFE_ID.source, 'gu'), '-') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who the memories belong to. It comes from settings, never from a model's
 * arguments, so a tool call cannot read or write another agent's memory.
 */
export function currentScope(): Scope {
  const config = vscode.workspace.getConfiguration(SECTION);
  const agentId = config.get<string>('agentId')?.trim() || 'default';
  const userId = config.get<string>('userId')?.trim() || defaultUser();
  const agentProblem = idProblem(agentId) ?? (agentId === SHARED_AGENT_ID ? 'is the shared scope' : undefined);
  const userProblem = userId === undefined ? undefined : idProblem(userId);
  if (agentProblem) warnOnce('agentId', agentId, agentProblem);
  if (userProblem) warnOnce('userId', userId!, userProblem);
  // A bad setting falls back to the default instead of failing every call.
  return { agentId: agentProblem ? 'default' : agentId, userId: userProblem ? defaultUser() : userId };
}

function idProblem(id: string): string | undefined {
  if (id.length > LIMITS.maxIdLength) return `is longer than ${LIMITS.maxIdLength} characters`;
  return UNSAFE_ID.test(id) ? 'contains "/", "\\", ":", ".." or a control character' : undefined;
}

const warned = new Set<string>();

function warnOnce(setting: string, value: string, problem: string): void {
  const key = `${setting}=${value}`;
  if (warned.has(key)) return;
  warned.add(key);
  const open = vscode.l10n.t('Open Settings');
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t(
        'The setting {0}.{1} ("{2}") {3}; Workspace Memory uses the default instead.',
        SECTION,
        setting,
        value,
        problem,
      ),
      open,
    )
    .then(
      (choice) =>
        choice === open && vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.${setting}`),
    );
}

/**
 * Where the store lives: the `storePath` setting if set (so the CLI and
 * other tools can share a known folder), else this workspace's storage
 * folder, else the global one when no folder is open.
 */
export function storeDirectory(context: vscode.ExtensionContext): string {
  const configured = vscode.workspace.getConfiguration(SECTION).get<string>('storePath')?.trim();
  if (configured) {
    const expanded = configured.replace(/^~(?=$|[/\\])/, os.homedir());
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return folder ? path.resolve(folder, expanded) : path.resolve(expanded);
  }
  return (context.storageUri ?? context.globalStorageUri).fsPath;
}

/** Recall's budget from the settings: Preview Recall and every @memory answer use the same one. */
/**
 * A whole-number setting within its bounds. settings.json takes any value
 * (20.5, -3, "ten") whatever the manifest says: one out of bounds is brought
 * within them, and one that is no number falls back to the default, rather
 * than failing (or flooding) whatever uses it.
 */
export function wholeSetting(key: string, fallback: number, min: number, max: number): number {
  const value = vscode.workspace.getConfiguration(SECTION).get<unknown>(key);
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(Math.round(value), min), max);
}

export function recallBudget(): { maxItems: number; maxChars: number } {
  return {
    maxItems: wholeSetting('recall.maxItems', 20, 1, 200),
    maxChars: wholeSetting('recall.maxChars', 8000, 500, 200_000),
  };
}

/**
 * How many days without use put a memory or skill in the Not Used Lately
 * group (`review.unusedDays`); 0, the default, leaves the group out. A bad
 * value (negative, fractional, too large) counts as off rather than failing the view.
 */
export function unusedDays(): number {
  const days = vscode.workspace.getConfiguration(SECTION).get<number>('review.unusedDays', 0);
  return Number.isInteger(days) && days > 0 && days <= MAX_UNUSED_DAYS ? days : 0;
}

/** The team folder, relative to the first workspace folder (`team.folder`, `.memory` by default). */
export function teamFolderSetting(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>('team.folder')?.trim() || DEFAULT_TEAM_FOLDER;
}
