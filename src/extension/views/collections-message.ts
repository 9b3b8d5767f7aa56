import * as vscode from 'vscode';

/**
 * What the Collections view says above its rows: why the workspace's
 * documents are missing (Restricted Mode), and that chat needs a language
 * model when none is available. Undefined when there is nothing to say.
 */
export function collectionsMessage(state: { trusted: boolean; chatModel: boolean | undefined }): string | undefined {
  const lines: string[] = [];
  if (!state.trusted) {
    lines.push(vscode.l10n.t('Restricted Mode: this workspace’s documents are not ingested until you trust it.'));
  }
  if (state.chatModel === false) {
    lines.push(
      vscode.l10n.t(
        '@memory in chat needs a language model, and none is available. The views, commands, CLI and MCP server work without one.',
      ),
    );
  }
  return lines.length > 0 ? lines.join(' ') : undefined;
}
