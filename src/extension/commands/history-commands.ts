import * as vscode from 'vscode';

import { entityTitle } from '../../core/text';
import type { SavedEntities } from '../chat/conversation';
import { restorableFields } from '../documents/format';
import { comparedUri, entityUri, parseEntityUri, versionUri } from '../documents/uris';
import type { Services } from '../services';
import { collectionOf } from '../store/collections';
import { confirm, reporting } from '../ui';
import type { Views } from '../views';
import type { CommitNode } from '../views/history-tree';
import { entityLabel, shortTime } from '../views/labels';
import { type EntityArgument, resolveEntity } from './entity-commands';
import { COMMANDS } from './ids';

/**
 * The history row a command is about: its argument; else the version open in
 * the editor (an old one's document names its commit), or the newest version
 * of the selected entity.
 */
async function resolveCommit(
  services: Services,
  views: Views,
  argument: EntityArgument,
): Promise<CommitNode | undefined> {
  if (argument && 'kind' in argument && argument.kind === 'commit') return argument;
  // A version's document names its entity and commit, also when the entity has been deleted since.
  const uri = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
  const open = argument === undefined || argument instanceof vscode.Uri ? uri && parseEntityUri(uri) : undefined;
  const entity = open?.commit ? open : await resolveEntity(services, argument);
  if (!entity) return undefined;
  views.history.show({ type: entity.type, id: entity.id });
  const rows = await views.history.getChildren();
  if (rows.length === 0) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('The history of {0} could not be read; the log says why.', entity.id),
    );
    return undefined;
  }
  const commit = open?.id === entity.id ? open.commit : undefined;
  return (commit && rows.find((row) => row.commit.hash.startsWith(commit))) || rows[0];
}

async function compareWithPrevious(services: Services, views: Views, argument: EntityArgument): Promise<void> {
  const node = await resolveCommit(services, views, argument);
  if (!node) return;
  if (!node.previous || !node.hasVersion) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This version has no earlier version to compare with.'));
    return;
  }
  const entity = { type: node.entityType, id: node.entityId };
  // The current version is compared as the live document, so it can be edited in the diff.
  const right = node.head ? entityUri(entity) : versionUri(entity, node.commit.hash);
  const title = vscode.l10n.t(
    '{0} ({1} ↔ {2})',
    node.label,
    shortTime(node.previous.time),
    node.head ? vscode.l10n.t('current') : shortTime(node.commit.time),
  );
  const [left, shown] = [versionUri(entity, node.previous.hash), right].map(comparedUri);
  await vscode.commands.executeCommand('vscode.diff', left, shown, title);
}

/** Which version a commit made, counting from the first (1), and the entity's latest commit now. */
async function versionOf(services: Services, node: CommitNode): Promise<{ number: number; latest: string }> {
  const { commits } = await services.use((memory) => memory.worker.historyOutline(node.entityId));
  const at = commits.findIndex(({ commit }) => commit.hash === node.commit.hash);
  if (at === -1 || !commits[0]) {
    throw new Error(vscode.l10n.t('That version of {0} is no longer in its history.', node.entityId));
  }
  return { number: commits.slice(at).filter((row) => row.hasVersion).length, latest: commits[0].commit.hash };
}

async function restoreVersion(
  services: Services,
  views: Views,
  argument: EntityArgument,
  options: { confirmed?: boolean },
) {
  const node = await resolveCommit(services, views, argument);
  if (!node?.hasVersion) return;
  if (node.head) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This is already the current version.'));
    return;
  }
  const version = await versionOf(services, node);
  const ok =
    options.confirmed ||
    (await confirm(
      vscode.l10n.t('Restore version {0} of “{1}”, from {2}?', version.number, node.label, shortTime(node.commit.time)),
      vscode.l10n.t('Restore'),
      vscode.l10n.t('The restored content becomes a new version; the versions after it stay in the history.'),
    ));
  if (!ok) return;
  const memory = await services.memory();
  const old = (await memory.worker.entityAt(node.entityId, node.commit.hash))?.entity;
  if (!old) throw new Error(vscode.l10n.t('That version of {0} is no longer in its history.', node.entityId));
  // Recorded as what it was, so the History view says "restore version 2 of …" rather than "update memory".
  await collectionOf(memory, node.entityType).update(node.entityId, restorableFields(old), {
    message: `restore version ${version.number} of “${entityTitle(old, 48).title}”`,
  });
  // Undo puts back the version the restore replaced, unless the entity changed again since.
  const undo: SavedEntities = {
    created: [],
    updated: [{ type: node.entityType, id: node.entityId, previousCommit: version.latest }],
  };
  const undoButton = vscode.l10n.t('Undo');
  // Not awaited: the command is done once restored; the button acts later.
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        'Restored version {0} of “{1}” (from {2}) as its current version.',
        version.number,
        entityLabel(old),
        shortTime(node.commit.time),
      ),
      undoButton,
    )
    .then((choice) => choice === undoButton && vscode.commands.executeCommand(COMMANDS.undoChatSave, undo));
  return { version: version.number, undo };
}

export function registerHistoryCommands(context: vscode.ExtensionContext, services: Services, views: Views): void {
  const run = (action: string, fn: (argument: EntityArgument, options: { confirmed?: boolean }) => Promise<unknown>) =>
    reporting(services, action, (argument: EntityArgument, options?: { confirmed?: boolean }) =>
      fn(argument, options ?? {}),
    );
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.showHistory,
      run(vscode.l10n.t('Showing the history'), async (argument) => {
        const entity = await resolveEntity(services, argument);
        if (!entity) return;
        views.history.show(entity);
        await vscode.commands.executeCommand('workspaceMemory.history.focus');
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.openVersion,
      run(vscode.l10n.t('Opening the version'), async (argument) => {
        const node = await resolveCommit(services, views, argument);
        if (!node?.hasVersion) return;
        // Named by that version's first words and its number, like the current version's tab.
        const [entry, version] = await Promise.all([
          services.use((memory) => memory.worker.entityAt(node.entityId, node.commit.hash)),
          versionOf(services, node),
        ]);
        const entity = entry?.entity ?? { type: node.entityType, id: node.entityId };
        const uri = versionUri(entity, node.commit.hash, version.number);
        await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true });
        return uri;
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.compareWithPrevious,
      run(vscode.l10n.t('Comparing versions'), (argument) => compareWithPrevious(services, views, argument)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.restoreVersion,
      run(vscode.l10n.t('Restoring the version'), (argument, options) =>
        restoreVersion(services, views, argument, options),
      ),
    ),
  );
}
