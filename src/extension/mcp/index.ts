import * as vscode from 'vscode';

import { resolveReviewPolicy } from '../../core/trust/review-policy';
import { SECTION } from '../config';
import type { Services } from '../services';
import { reviewPolicyOf } from '../trust/review-setting';
import { secretPolicyOf } from '../trust/secret-setting';

/**
 * The MCP server definition VS Code offers its agents (and lists under MCP
 * servers): `dist/mcp.js` on this workspace's store and scope, run by the
 * extension host's own runtime. It runs beside the extension on the same
 * store; the views see its writes as external changes.
 */
export function mcpServerDefinition(
  context: vscode.ExtensionContext,
  services: Services,
): vscode.McpStdioServerDefinition {
  const { agentId, userId } = services.scope();
  // Agents get this workspace's own tools only: no store-wide export of other agents' memories.
  const args = [
    context.asAbsolutePath('dist/mcp.js'),
    '--dir',
    services.storeDir(),
    '--agent',
    agentId,
    '--scoped-only',
  ];
  if (userId) args.push('--user', userId);
  // The server's writes wait for review unless the workspace says MCP clients' need not.
  const config = vscode.workspace.getConfiguration(SECTION);
  const mcpMode = resolveReviewPolicy(reviewPolicyOf(config.get('review.agentWrites')).policy).mcp;
  args.push('--review', mcpMode);
  // In the desktop app the runtime is Electron: this makes it behave as Node.
  return new vscode.McpStdioServerDefinition(
    vscode.l10n.t('Workspace Memory'),
    process.execPath,
    args,
    { ELECTRON_RUN_AS_NODE: '1', WORKSPACE_MEMORY_SECRETS: secretPolicyOf(config.get('secrets')).policy },
    // A new version makes VS Code refresh the tools it cached from the previous one.
    String((context.extension.packageJSON as { version: string }).version),
  );
}

export function registerMcpServer(context: vscode.ExtensionContext, services: Services): void {
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider('workspaceMemory.mcp', {
      onDidChangeMcpServerDefinitions: changed.event,
      // Copilot already has the same operations as language model tools: offering the
      // server too would list every tool twice, so it is offered only when asked for.
      provideMcpServerDefinitions: () =>
        vscode.workspace.getConfiguration(SECTION).get<boolean>('mcp.offerInVsCode', false)
          ? [mcpServerDefinition(context, services)]
          : [],
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        ['storePath', 'agentId', 'userId', 'mcp.offerInVsCode', 'review.agentWrites', 'secrets'].some((key) =>
          event.affectsConfiguration(`${SECTION}.${key}`),
        )
      )
        changed.fire();
    }),
  );
}
