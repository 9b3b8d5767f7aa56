import * as vscode from 'vscode';

import { COMMANDS } from '../commands/ids';
import type { DocSyncState, DocSyncStatus } from '../docsync/status';
import type { Services } from '../services';
import { throttled } from '../throttled';

/** Counting runs at most this often while the store is busy (a doc sync writes thousands of chunks). */
const COUNT_DELAY_MS = 500;

function syncText(status: DocSyncStatus): string {
  switch (status.state) {
    case 'syncing':
      return status.progress?.total
        ? vscode.l10n.t('syncing docs {0}/{1}', status.progress.done, status.progress.total)
        : vscode.l10n.t('syncing docs');
    case 'idle':
      return vscode.l10n.t('{0} docs', status.files ?? 0);
    case 'error':
      return vscode.l10n.t('doc sync failed');
    default:
      return '';
  }
}

/** The status bar item: entities in the store and what doc sync is doing; a click opens Search. */
export function registerStatusBar(context: vscode.ExtensionContext, services: Services, docSync: DocSyncState): void {
  const item = vscode.window.createStatusBarItem('workspaceMemory.status', vscode.StatusBarAlignment.Right, 100);
  item.name = vscode.l10n.t('Workspace Memory');
  item.command = COMMANDS.search;
  let entities: number | undefined;

  const render = () => {
    const status = docSync.status;
    const icon = status.state === 'syncing' ? '$(sync~spin)' : status.state === 'error' ? '$(warning)' : '$(database)';
    const parts = [entities === undefined ? '…' : String(entities), syncText(status)].filter(Boolean);
    item.text = `${icon} ${parts.join(' · ')}`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown(`**${vscode.l10n.t('Workspace Memory')}**\n\n`);
    if (entities !== undefined)
      tooltip.appendMarkdown(`${vscode.l10n.t('{0} entities in this workspace’s memory', entities)}\n\n`);
    tooltip.appendMarkdown(`${vscode.l10n.t('Doc sync')}: ${status.message ?? status.state}`);
    if (status.chunks !== undefined) {
      tooltip.appendMarkdown(` — ${vscode.l10n.t('{0} files, {1} chunks', status.files ?? 0, status.chunks)}`);
    }
    tooltip.appendMarkdown(`\n\n${vscode.l10n.t('Click to search')}`);
    item.tooltip = tooltip;
    item.backgroundColor =
      status.state === 'error' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  };

  const count = async () => {
    try {
      // The same scoped counts as the Collections view; stats() would scan whole tables on every burst of writes.
      const counts = await services.use((memory) => memory.worker.scopeCounts(services.scope().agentId));
      entities = Object.values(counts).reduce((sum, { own, shared }) => sum + own + shared, 0);
    } catch (error) {
      services.log.warn(`Could not count the store's entities: ${(error as Error).message}`);
    }
    render();
  };
  const recount = throttled(COUNT_DELAY_MS, () => void count());

  context.subscriptions.push(
    item,
    services.onDidChangeStore(() => recount.request()),
    docSync.onDidChange(render),
    recount,
  );
  render();
  item.show();
  void count();
}
