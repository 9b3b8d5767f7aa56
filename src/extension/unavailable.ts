import * as vscode from 'vscode';

import { SCHEME } from './documents/uris';

/** The parts of the manifest that promise something to the user. */
interface Contributions {
  commands?: { command: string }[];
  languageModelTools?: { name: string }[];
  chatParticipants?: { id: string }[];
  views?: Record<string, { id: string }[]>;
}

/**
 * What a host without node:sqlite (an older VS Code, or an editor built on
 * one) gets instead of the features: the manifest's commands, tools and chat
 * participant are still listed there, so each answers with `reason`, and the
 * views say it, rather than "command not found" or "no data provider".
 */
export function registerUnavailable(context: vscode.ExtensionContext, reason: string): void {
  const contributes = (context.extension.packageJSON as { contributes?: Contributions }).contributes ?? {};
  const explain = () => void vscode.window.showErrorMessage(reason);
  const nothing: vscode.TreeDataProvider<vscode.TreeItem> = { getChildren: () => [], getTreeItem: (item) => item };
  context.subscriptions.push(
    ...(contributes.commands ?? []).map(({ command }) => vscode.commands.registerCommand(command, explain)),
    ...(contributes.languageModelTools ?? []).map(({ name }) =>
      vscode.lm.registerTool(name, {
        invoke: () => {
          throw new Error(reason);
        },
      }),
    ),
    ...(contributes.chatParticipants ?? []).map(({ id }) =>
      vscode.chat.createChatParticipant(id, (_request, _context, stream) => stream.markdown(reason)),
    ),
    // Empty views show their welcome text, which gives the reason (workspaceMemory.noSqlite).
    ...Object.values(contributes.views ?? {})
      .flat()
      .map(({ id }) => vscode.window.registerTreeDataProvider(id, nothing)),
    // Memory documents left open from an earlier session say it too, instead of "no file system provider".
    vscode.workspace.registerFileSystemProvider(SCHEME, unavailableFileSystem(reason), { isReadonly: true }),
  );
  void vscode.commands.executeCommand('setContext', 'workspaceMemory.noSqlite', true);
}

function unavailableFileSystem(reason: string): vscode.FileSystemProvider {
  const refuse = (): never => {
    throw vscode.FileSystemError.Unavailable(reason);
  };
  return {
    onDidChangeFile: new vscode.EventEmitter<vscode.FileChangeEvent[]>().event,
    watch: () => new vscode.Disposable(() => undefined),
    stat: refuse,
    readDirectory: refuse,
    createDirectory: refuse,
    readFile: refuse,
    writeFile: refuse,
    delete: refuse,
    rename: refuse,
  };
}
