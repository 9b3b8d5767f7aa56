import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** Every setting lives under this section (see `contributes.configuration`). */
export const SECTION = 'workspaceMemory';

export interface Scope {
  agentId: string;
  userId: string | undefined;
}

const UNSAFE_ID_CHARACTERS = /[/\\:\p{Cc}]|\.\./gu;

/** The OS user name, made a valid id: the default user of a workspace's memories and profile. */
function defaultUser(): string | undefined {
  try {
    return os.userInfo().username.replace(UNSAFE_ID_CHARACTERS, '-') || undefined;
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
  return { agentId, userId };
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
