import * as path from 'node:path';

import * as vscode from 'vscode';

import type { SnapshotInfo } from '../../core/snapshots/manifests';
import { showReport } from '../documents/reports';
import type { Services } from '../services';
import { confirm, reporting, withProgress } from '../ui';
import { formatBytes } from '../views/format-bytes';
import { shortTime } from '../views/labels';
import type { SnapshotNode } from '../views/snapshots-tree';
import { type CommandId, COMMANDS } from './ids';
import { describeRestore } from './restore-summary';

/** The Snapshots view lists files it watches; refreshing it now saves waiting for the watcher. */
function refreshSnapshots(): void {
  // The views may have failed to register: then there is nothing to refresh.
  void vscode.commands.executeCommand(COMMANDS.refreshSnapshots).then(undefined, () => undefined);
}

/**
 * Every store command also takes its answers as an argument, so keybindings,
 * other extensions and tests can run it without prompts; it then returns its result.
 */
export interface StoreCommandOptions {
  label?: string;
  snapshotId?: string;
  path?: string;
  skipExisting?: boolean;
  /** Skip the modal confirmation (the caller confirmed already). */
  confirmed?: boolean;
}

async function createSnapshot(services: Services, options: StoreCommandOptions) {
  const label =
    options.label ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Create Snapshot'),
      prompt: vscode.l10n.t('A label to recognise it by (optional)'),
      placeHolder: vscode.l10n.t('before the refactoring'),
    }));
  if (label === undefined) return;
  const memory = await services.memory();
  const info = await withProgress(vscode.l10n.t('Creating a snapshot'), () => memory.snapshot(label.trim()), false);
  const size = formatBytes(info.bytes);
  void vscode.window.showInformationMessage(
    info.label
      ? vscode.l10n.t('Snapshot "{0}" created: {1} entities, {2}.', info.label, info.entities, size)
      : vscode.l10n.t('Snapshot {0} created: {1} entities, {2}.', info.id, info.entities, size),
  );
  refreshSnapshots();
  return info;
}

async function restoreSnapshot(services: Services, options: StoreCommandOptions) {
  const memory = await services.memory();
  const snapshots = await memory.listSnapshots();
  if (options.snapshotId && !snapshots.some((s) => s.id === options.snapshotId)) {
    throw new Error(vscode.l10n.t('There is no snapshot {0}.', options.snapshotId));
  }
  if (snapshots.length === 0) {
    const create = vscode.l10n.t('Create Snapshot');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('There are no snapshots yet.'), create);
    if (choice === create) await vscode.commands.executeCommand(COMMANDS.createSnapshot);
    return;
  }
  const items = snapshots.map((snapshot) => ({
    label: snapshot.label || snapshot.id,
    description: shortTime(snapshot.createdAt),
    detail: vscode.l10n.t('{0} entities · {1} · {2}', snapshot.entities, formatBytes(snapshot.bytes), snapshot.id),
    snapshot,
  }));
  const picked = options.snapshotId
    ? items.find((item) => item.snapshot.id === options.snapshotId)
    : await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('Restore Snapshot'),
        placeHolder: vscode.l10n.t('The store goes back to the state of the snapshot'),
      });
  if (!picked) return;
  // What the restore would change, counted in the worker against the live store, is what the user confirms.
  const summary = describeRestore(
    await withProgress(
      vscode.l10n.t('Comparing snapshot {0} with the store', picked.label),
      () => memory.worker.restorePreview(picked.snapshot.id),
      false,
    ),
  );
  const ok =
    options.confirmed ||
    (await confirm(
      vscode.l10n.t('Restore snapshot "{0}" from {1}?', picked.label, shortTime(picked.snapshot.createdAt)),
      vscode.l10n.t('Restore'),
      `${summary}\n\n${vscode.l10n.t('The store as it is now is kept as a snapshot first, so you can undo the restore.')}`,
    ));
  if (!ok) return;
  const restored = await withProgress(
    vscode.l10n.t('Restoring snapshot {0}', picked.label),
    () => memory.restore(picked.snapshot.id),
    false,
  );
  refreshSnapshots();
  void offerUndo(picked.label, restored.before);
  return { ...picked.snapshot, summary, before: restored.before };
}

/**
 * Says the restore is done and, when the store as it was was kept, offers to
 * undo it: restoring that snapshot, asked first like any restore.
 */
async function offerUndo(label: string, before: SnapshotInfo | undefined): Promise<void> {
  if (!before) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Restored snapshot "{0}".', label));
    return;
  }
  const undo = vscode.l10n.t('Undo');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('Restored snapshot "{0}". The store as it was is kept as snapshot "{1}".', label, before.label),
    undo,
  );
  if (choice === undo) await vscode.commands.executeCommand(COMMANDS.restoreSnapshot, { snapshotId: before.id });
}

async function exportStore(services: Services, options: StoreCommandOptions) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = options.path
    ? vscode.Uri.file(path.resolve(options.path))
    : await vscode.window.showSaveDialog({
        title: vscode.l10n.t('Export Memory'),
        defaultUri: folder ? vscode.Uri.joinPath(folder, 'workspace-memory-export.json') : undefined,
        filters: { JSON: ['json'] },
      });
  if (!target) return;
  if (target.scheme !== 'file') throw new Error(vscode.l10n.t("Export writes to a file on this machine's disk."));
  const memory = await services.memory();
  const result = await withProgress(vscode.l10n.t('Exporting'), () => memory.worker.exportTo(target.fsPath), false);
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Exported {0} entities ({1}) to {2}.',
      result.entities,
      formatBytes(result.bytes),
      path.basename(target.fsPath),
    ),
  );
  return result;
}

async function importStore(services: Services, options: StoreCommandOptions) {
  const [source] = options.path
    ? [vscode.Uri.file(path.resolve(options.path))]
    : ((await vscode.window.showOpenDialog({
        title: vscode.l10n.t('Import Memory'),
        canSelectMany: false,
        filters: { JSON: ['json'] },
      })) ?? []);
  if (!source) return;
  if (source.scheme !== 'file') throw new Error(vscode.l10n.t("Import reads a file on this machine's disk."));
  const mode =
    options.skipExisting !== undefined
      ? { skipExisting: options.skipExisting }
      : await vscode.window.showQuickPick(
          [
            {
              label: vscode.l10n.t('Keep existing'),
              detail: vscode.l10n.t('Entities already here stay as they are'),
              skipExisting: true,
            },
            {
              label: vscode.l10n.t('Overwrite existing'),
              detail: vscode.l10n.t(
                'Imported versions become new versions of entities already here (their history stays)',
              ),
              skipExisting: false,
            },
          ],
          { title: vscode.l10n.t('Import: entities that exist already') },
        );
  if (!mode) return;
  const memory = await services.memory();
  const report = await withProgress(
    vscode.l10n.t('Importing {0}', path.basename(source.fsPath)),
    () => memory.worker.importFrom(source.fsPath, { skipExisting: mode.skipExisting }),
    false,
  );
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Imported {0}, overwrote {1}, skipped {2}.', report.imported, report.overwritten, report.skipped),
  );
  return report;
}

async function verify(services: Services) {
  const memory = await services.memory();
  const report = await withProgress(
    vscode.l10n.t('Verifying every hash and history chain'),
    () => memory.verify(),
    false,
  );
  if (report.valid) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'The store is intact: {0} objects, {1} commits, {2} entities checked.',
        report.totalObjects,
        report.totalCommits,
        report.totalEntities,
      ),
    );
    return report;
  }
  services.log.error(`Verify found ${report.errors.length} problems`);
  const lines = report.errors.map((error) => `| ${error.code} | \`${error.id}\` | ${error.message} |`);
  await showReport(
    vscode.l10n.t('Verify Report'),
    [
      `# ${vscode.l10n.t('Verify: {0} problems', report.errors.length)}`,
      '',
      vscode.l10n.t('Restore a snapshot (Memory: Restore Snapshot) or re-import an export to repair the store.'),
      '',
      '| Code | Id | Problem |',
      '| --- | --- | --- |',
      ...lines,
    ].join('\n'),
    true,
  );
  return report;
}

async function showStats(services: Services) {
  const stats = await services.use((memory) => memory.stats());
  const { agentId, userId } = services.scope();
  const rows: [string, string | number][] = [
    [vscode.l10n.t('Memories'), stats.memories],
    [vscode.l10n.t('Skills'), stats.skills],
    [vscode.l10n.t('Knowledge chunks'), stats.knowledge],
    [vscode.l10n.t('Sessions'), stats.sessions],
    [vscode.l10n.t('Profiles'), stats.profiles],
    [vscode.l10n.t('Deleted (history kept)'), stats.deleted],
    [vscode.l10n.t('Objects'), stats.objects],
    [vscode.l10n.t('Commits'), stats.commits],
    [vscode.l10n.t('Audit entries'), stats.auditEntries],
    [vscode.l10n.t('Snapshots'), stats.snapshots],
    ...(stats.partialSnapshots > 0
      ? [
          [
            vscode.l10n.t('Partial snapshots (removed on next open)'),
            `${stats.partialSnapshots} (${formatBytes(stats.partialSnapshotBytes)})`,
          ] as [string, string],
        ]
      : []),
    [vscode.l10n.t('Size on disk'), formatBytes(stats.bytesOnDisk)],
  ];
  await showReport(
    vscode.l10n.t('Memory Stats'),
    [
      `# ${vscode.l10n.t('Workspace Memory')}`,
      '',
      `${vscode.l10n.t('Store')}: \`${stats.path}\``,
      '',
      `${vscode.l10n.t('Agent')}: \`${agentId}\`${userId ? ` · ${vscode.l10n.t('user')}: \`${userId}\`` : ''}`,
      '',
      '| | |',
      '| --- | ---: |',
      ...rows.map(([name, value]) => `| ${name} | ${value} |`),
      '',
      vscode.l10n.t(
        'Use the same store from a terminal: `workspace-memory stats --dir "{0}"`',
        path.dirname(stats.path),
      ),
    ].join('\n'),
    true,
  );
  return stats;
}

async function rebuildIndex(services: Services) {
  const memory = await services.memory();
  const count = await withProgress(vscode.l10n.t('Rebuilding the search index'), () => memory.rebuildIndex(), false);
  void vscode.window.showInformationMessage(vscode.l10n.t('Search index rebuilt: {0} entities indexed.', count));
  return count;
}

/**
 * A command's arguments: its answers, or the Snapshots view's row it was run
 * on, then (as for the entity commands) answers for that row, such as `confirmed`.
 */
function optionsOf(
  argument: StoreCommandOptions | SnapshotNode | undefined,
  extra: StoreCommandOptions | undefined,
): StoreCommandOptions {
  if (argument && 'kind' in argument && argument.kind === 'snapshot') {
    return { ...extra, snapshotId: argument.snapshot.id };
  }
  return { ...(argument as StoreCommandOptions | undefined), ...extra };
}

export function registerStoreCommands(context: vscode.ExtensionContext, services: Services): void {
  const commands: [CommandId, string, (services: Services, options: StoreCommandOptions) => Promise<unknown>][] = [
    [COMMANDS.createSnapshot, vscode.l10n.t('Creating a snapshot'), createSnapshot],
    [COMMANDS.restoreSnapshot, vscode.l10n.t('Restoring a snapshot'), restoreSnapshot],
    [COMMANDS.export, vscode.l10n.t('Export'), exportStore],
    [COMMANDS.import, vscode.l10n.t('Import'), importStore],
    [COMMANDS.verify, vscode.l10n.t('Verify'), verify],
    [COMMANDS.showStats, vscode.l10n.t('Stats'), showStats],
    [COMMANDS.rebuildIndex, vscode.l10n.t('Rebuilding the index'), rebuildIndex],
  ];
  for (const [id, action, fn] of commands) {
    context.subscriptions.push(
      vscode.commands.registerCommand(
        id,
        reporting(services, action, (options?: StoreCommandOptions | SnapshotNode, extra?: StoreCommandOptions) =>
          fn(services, optionsOf(options, extra)),
        ),
      ),
    );
  }
  context.subscriptions.push(vscode.commands.registerCommand(COMMANDS.showLog, () => services.log.show()));
}
