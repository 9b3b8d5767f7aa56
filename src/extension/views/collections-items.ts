import * as path from 'node:path';

import * as vscode from 'vscode';

import { describeProvenance } from '../../core/provenance';
import type { TeamGitState } from '../../core/team/git';
import { staleText } from '../../core/trust/framing';
import { type Entity, SHARED_AGENT_ID } from '../../core/types';
import { COMMANDS } from '../commands/ids';
import { isSyncedChunk } from '../documents/format';
import { entityUri, versionUri } from '../documents/uris';
import { type CollectionNode, groupKey } from './collections-nodes';
import {
  appendPlain,
  appendWarning,
  chunkLabel,
  entityDescription,
  entityLabel,
  entityTooltip,
  INSTRUCTION_ICON,
  instructionWarning,
  relativeTime,
  scopeLabel,
  TYPE_INFO,
  writerLabel,
} from './labels';
import { dimmed } from './superseded-decorations';

/* How each row of the Collections view looks: its label, icon, description, menu and, on hover, tooltip. */

function documentsCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 document') : vscode.l10n.t('{0} documents', n);
}

function chunksCount(n: number): string {
  return n === 1 ? vscode.l10n.t('1 chunk') : vscode.l10n.t('{0} chunks', n);
}

/** What a write waiting for review would do, and who wrote it: "update of “…” · by Claude Desktop". */
function pendingDescription(node: Extract<CollectionNode, { kind: 'pendingItem' }>): string {
  const writer = writerLabel(node.commit.by, node.commit.author);
  const proposes = node.commit.proposes;
  if (!proposes) return `${TYPE_INFO[node.entity.type].singular} · ${writer}`;
  const target = node.target ? `“${entityLabel(node.target)}”` : proposes.target;
  const change =
    proposes.action === 'delete' ? vscode.l10n.t('delete {0}', target) : vscode.l10n.t('update of {0}', target);
  return `${change} · ${writer}`;
}

function pendingTooltip(node: Extract<CollectionNode, { kind: 'pendingItem' }>): vscode.MarkdownString {
  const tooltip = entityTooltip(node.entity);
  tooltip.appendMarkdown(`\n\n$(inbox) `);
  appendPlain(
    tooltip,
    vscode.l10n.t('Waiting for review: written {0}.', describeProvenance(node.commit.by, node.commit.author)),
  );
  const proposes = node.commit.proposes;
  if (proposes) {
    tooltip.appendMarkdown('\n\n');
    const target = node.target ? `“${entityLabel(node.target)}” (${proposes.target})` : proposes.target;
    appendPlain(
      tooltip,
      node.target === null
        ? vscode.l10n.t('It proposes to {0} {1}, which is no longer there: reject it.', proposes.action, target)
        : proposes.action === 'delete'
          ? vscode.l10n.t('Approving it deletes {0}.', target)
          : vscode.l10n.t('Approving it updates {0} with this content.', target),
    );
  }
  const warning = instructionWarning(node.entity.content);
  if (warning) appendWarning(tooltip, warning);
  return tooltip;
}

/** The correction that retired a memory, as its rows name it: its first words, or its id once it is gone. */
function correctionName({ correction }: Extract<CollectionNode, { kind: 'supersededItem' }>): string {
  return correction.entity ? `“${entityLabel(correction.entity)}”` : correction.id;
}

function supersededTooltip(node: Extract<CollectionNode, { kind: 'supersededItem' }>): vscode.MarkdownString {
  const tooltip = entityTooltip(node.entity);
  tooltip.appendMarkdown('\n\n$(circle-slash) ');
  appendPlain(
    tooltip,
    vscode.l10n.t(
      'Superseded by {0} ({1}): kept with its history, left out of search and recall. Reinstate brings it back.',
      correctionName(node),
      node.correction.id,
    ),
  );
  return tooltip;
}

/** A group's row: a label that opens onto its items, with a count or what it is about. */
function groupItem(row: {
  label: string;
  state: vscode.TreeItemCollapsibleState;
  id: string;
  description: string;
  tooltip: string;
  icon: vscode.ThemeIcon;
  context: string;
}): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, row.state);
  item.id = row.id;
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.iconPath = row.icon;
  item.contextValue = row.context;
  return item;
}

export function collectionItem(node: CollectionNode): vscode.TreeItem {
  switch (node.kind) {
    case 'pending':
      return groupItem({
        label: vscode.l10n.t('Pending Review'),
        state: vscode.TreeItemCollapsibleState.Expanded,
        id: groupKey(node),
        description: String(node.count),
        tooltip: vscode.l10n.t(
          'Writes by agents that wait for your review. Search, recall and the agents leave them out until you approve them.',
        ),
        icon: new vscode.ThemeIcon('inbox'),
        context: 'group.pending',
      });
    case 'pendingItem': {
      const { entity, commit } = node;
      const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
      item.id = `pending/${entity.id}`;
      item.description = pendingDescription(node);
      const icon = commit.proposes
        ? commit.proposes.action === 'delete'
          ? 'trash'
          : 'edit'
        : TYPE_INFO[entity.type].icon;
      item.iconPath = instructionWarning(entity.content) ? INSTRUCTION_ICON : new vscode.ThemeIcon(icon);
      item.contextValue = 'pending';
      item.resourceUri = entityUri(entity);
      item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [node] };
      return item;
    }
    case 'thisFile':
      return groupItem({
        label: vscode.l10n.t('This File'),
        state: vscode.TreeItemCollapsibleState.Expanded,
        id: 'thisFile',
        description: `${node.path} · ${node.entities.length}`,
        tooltip: vscode.l10n.t(
          'Memories and skills about {0}, the file in the active editor: those that cite its lines, and those whose appliesTo globs match it.',
          node.path,
        ),
        icon: new vscode.ThemeIcon('file-code'),
        context: 'group.thisFile',
      });
    case 'team':
      return groupItem({
        label: vscode.l10n.t('Team'),
        state: vscode.TreeItemCollapsibleState.Collapsed,
        id: 'team',
        description: node.problems
          ? vscode.l10n.t('{0} · {1} not taken in', node.count, node.problems)
          : String(node.count),
        tooltip: vscode.l10n.t(
          "The team's memories and skills: files in the repository's team folder, shared through git and reviewed in pull requests. Everyone who clones the repository gets them; your edits write the files, for you to commit.",
        ),
        icon: node.problems
          ? new vscode.ThemeIcon('organization', new vscode.ThemeColor('list.warningForeground'))
          : new vscode.ThemeIcon('organization'),
        context: 'group.team',
      });
    case 'teamItem':
      return entityRow(node.entity, {
        group: 'teamItem',
        description: TEAM_STATES[node.state](),
        context: `entity.${node.entity.type}.team`,
        // The file's own URI: the git extension colours it (untracked, modified) as it does in the Explorer.
        resourceUri: vscode.Uri.file(path.join(node.folder, node.file)),
      });
    case 'teamProblem': {
      // A problem of a file, or of a folder (memory/ is a link, the team folder cannot be read).
      const isFile = node.file.includes('/');
      const label = node.file === '.' ? path.basename(node.folder) : node.file;
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
      item.id = `teamProblem/${node.file}`;
      item.description = node.problem.message;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      item.resourceUri = vscode.Uri.file(path.join(node.folder, node.file));
      item.contextValue = 'teamProblem';
      // The way to fix it: the file at the line the problem is on, or the folder in the Explorer.
      const line = Math.max((node.problem.line ?? 1) - 1, 0);
      item.command = isFile
        ? {
            command: 'vscode.open',
            title: vscode.l10n.t('Open the File'),
            arguments: [item.resourceUri, { selection: new vscode.Range(line, 0, line, 0) }],
          }
        : { command: 'revealInExplorer', title: vscode.l10n.t('Reveal in Explorer'), arguments: [item.resourceUri] };
      return item;
    }
    case 'unused':
      return groupItem({
        label: vscode.l10n.t('Not Used Lately'),
        state: vscode.TreeItemCollapsibleState.Collapsed,
        id: groupKey(node),
        description: String(node.count),
        tooltip: vscode.l10n.t(
          'Memories and skills that recall has not handed to a model, no tool has read and no one has changed for {0} days (the setting workspaceMemory.review.unusedDays). Check whether they still earn their place: keep, edit or forget each. Nothing here is deleted by itself.',
          node.days,
        ),
        icon: new vscode.ThemeIcon('history'),
        context: 'group.unused',
      });
    case 'unusedItem':
      return entityRow(node.entity, {
        group: 'unusedItem',
        description: node.lastUsed
          ? vscode.l10n.t('last used {0}', relativeTime(node.lastUsed))
          : vscode.l10n.t('never used, written {0}', relativeTime(node.lastWritten)),
        context: `entity.${node.entity.type}.unused`,
      });
    case 'stale':
      return groupItem({
        label: vscode.l10n.t('Stale'),
        state: vscode.TreeItemCollapsibleState.Collapsed,
        id: 'stale',
        description: String(node.count),
        tooltip: vscode.l10n.t(
          'Memories and skills whose cited code changed or is gone since they were written: check that they still hold. Recall marks them as possibly outdated.',
        ),
        icon: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
        context: 'group.stale',
      });
    case 'staleItem': {
      const [first] = node.note.citations;
      return entityRow(node.entity, {
        group: 'staleItem',
        description:
          first?.state === 'missing'
            ? vscode.l10n.t('{0} is gone', first.path)
            : vscode.l10n.t('{0}:{1} changed', first?.path ?? '', first?.startLine ?? ''),
        icon: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
      });
    }
    case 'superseded':
      return groupItem({
        label: vscode.l10n.t('Superseded'),
        state: vscode.TreeItemCollapsibleState.Collapsed,
        id: groupKey(node),
        description: String(node.items.length),
        tooltip: vscode.l10n.t(
          'Memories that corrections retired: kept with their history, left out of search and recall. Reinstate one to bring it back.',
        ),
        icon: new vscode.ThemeIcon('circle-slash'),
        context: 'group.superseded',
      });
    case 'supersededItem': {
      const { entity } = node;
      const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
      item.id = `supersededItem/${entity.id}`;
      item.description = vscode.l10n.t('superseded by {0}', correctionName(node));
      // Tree labels cannot be struck through (TreeItemLabel's strikethrough is a proposed API): dimmed instead.
      item.iconPath = new vscode.ThemeIcon(TYPE_INFO[entity.type].icon, new vscode.ThemeColor('disabledForeground'));
      item.resourceUri = dimmed(entityUri(entity));
      item.contextValue = 'superseded';
      // Its live document is gone with it (the store's get leaves it out): the version it keeps opens read-only.
      item.command = {
        command: 'vscode.open',
        title: vscode.l10n.t('Open'),
        arguments: [versionUri(entity, node.version), { preview: true, preserveFocus: true }],
      };
      return item;
    }
    case 'type': {
      const item = new vscode.TreeItem(TYPE_INFO[node.type].plural, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `type/${node.type}`;
      item.description = String(node.count);
      item.iconPath = new vscode.ThemeIcon(TYPE_INFO[node.type].icon);
      item.contextValue = `type.${node.type}`;
      if (node.type === 'memory') item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
      return item;
    }
    case 'empty': {
      const item = new vscode.TreeItem(
        vscode.l10n.t('No {0} yet — Add Memory…', TYPE_INFO[node.type].plural.toLowerCase()),
        vscode.TreeItemCollapsibleState.None,
      );
      item.id = `empty/${node.type}`;
      item.iconPath = new vscode.ThemeIcon('add');
      item.command = { command: COMMANDS.addMemory, title: vscode.l10n.t('Add Memory') };
      return item;
    }
    case 'scope': {
      const item = new vscode.TreeItem(scopeLabel(node.agentId), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `scope/${node.type}/${node.agentId}`;
      item.description = String(node.count);
      item.iconPath = new vscode.ThemeIcon(node.agentId === SHARED_AGENT_ID ? 'organization' : 'person');
      item.contextValue = 'scope';
      if (node.type === 'memory') item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
      return item;
    }
    case 'category': {
      const item = new vscode.TreeItem(
        node.category || vscode.l10n.t('(no category)'),
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = groupKey(node);
      item.description = String(node.count);
      item.iconPath = new vscode.ThemeIcon('tag');
      item.contextValue = 'group.category';
      return item;
    }
    case 'user': {
      const item = new vscode.TreeItem(
        node.userId === null ? vscode.l10n.t('No user (everyone)') : `@${node.userId}`,
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = groupKey(node);
      item.description = String(node.count);
      item.iconPath = new vscode.ThemeIcon(node.userId === null ? 'organization' : 'person');
      item.contextValue = 'group.user';
      return item;
    }
    case 'folder': {
      const item = new vscode.TreeItem(
        node.folder === '' ? vscode.l10n.t('(top level)') : node.folder,
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = groupKey(node);
      item.description = `${documentsCount(node.documents)} · ${chunksCount(node.chunks)}`;
      item.tooltip = node.folder === '' ? vscode.l10n.t('Documents at the top level of the workspace') : node.folder;
      item.iconPath = vscode.ThemeIcon.Folder;
      item.contextValue = 'group.folder';
      return item;
    }
    case 'document': {
      const item = new vscode.TreeItem(
        node.source.slice(node.source.lastIndexOf('/') + 1),
        vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = groupKey(node);
      item.description = chunksCount(node.chunks);
      item.tooltip = node.source;
      item.iconPath = new vscode.ThemeIcon('file');
      item.contextValue = 'group.document';
      return item;
    }
    case 'loose': {
      const item = new vscode.TreeItem(vscode.l10n.t('Saved by hand'), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = groupKey(node);
      item.description = String(node.count);
      item.tooltip = vscode.l10n.t('Knowledge that is not a chunk of a workspace document');
      item.iconPath = new vscode.ThemeIcon('edit');
      item.contextValue = 'group.loose';
      return item;
    }
    case 'entity': {
      const { entity } = node;
      // Under its document a chunk is told apart by its place, not by the document's path again.
      const label = entity.type === 'knowledge' && entity.source ? chunkLabel(entity) : entityLabel(entity);
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
      item.id = `entity/${entity.id}`;
      item.description = entityDescription(entity);
      item.iconPath = instructionWarning(entity.content)
        ? INSTRUCTION_ICON
        : new vscode.ThemeIcon(TYPE_INFO[entity.type].icon);
      // A synced chunk is read-only (edit its file): its own context value leaves Edit out of its menus.
      item.contextValue = isSyncedChunk(entity) ? 'entity.knowledge.synced' : `entity.${entity.type}`;
      item.resourceUri = entityUri(entity);
      item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [node] };
      return item;
    }
    case 'more': {
      const item = new vscode.TreeItem(
        vscode.l10n.t('Show more ({0} of {1})', node.shown, node.total),
        vscode.TreeItemCollapsibleState.None,
      );
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.command = { command: COMMANDS.showMore, title: vscode.l10n.t('Show more'), arguments: [node] };
      return item;
    }
  }
}

/** Tooltips are built when a row is hovered, not for every row of a big scope. */
/**
 * A row of an entity in one of the groups at the top (Stale, Not Used Lately,
 * Team): opens the entity, takes the entity commands, says why it is there.
 */
function entityRow(
  entity: Entity,
  row: { group: string; description: string; icon?: vscode.ThemeIcon; context?: string; resourceUri?: vscode.Uri },
): vscode.TreeItem {
  const item = new vscode.TreeItem(entityLabel(entity), vscode.TreeItemCollapsibleState.None);
  item.id = `${row.group}/${entity.id}`;
  item.description = row.description;
  item.iconPath = row.icon ?? new vscode.ThemeIcon(TYPE_INFO[entity.type].icon);
  item.resourceUri = row.resourceUri ?? entityUri(entity);
  item.contextValue = row.context ?? `entity.${entity.type}`;
  item.command = { command: COMMANDS.open, title: vscode.l10n.t('Open'), arguments: [{ kind: 'entity', entity }] };
  return item;
}

/** A team file's git state, in words. */
const TEAM_STATES: Record<TeamGitState, () => string> = {
  new: () => vscode.l10n.t('new, not committed'),
  modified: () => vscode.l10n.t('modified'),
  committed: () => vscode.l10n.t('committed'),
};

export function withTooltip(item: vscode.TreeItem, node: CollectionNode): vscode.TreeItem {
  if (node.kind === 'entity') {
    const tooltip = entityTooltip(node.entity);
    const warning = instructionWarning(node.entity.content);
    if (warning) appendWarning(tooltip, warning);
    item.tooltip = tooltip;
  }
  if (node.kind === 'unusedItem' || node.kind === 'teamItem') item.tooltip = entityTooltip(node.entity);
  if (node.kind === 'teamProblem') {
    const tooltip = new vscode.MarkdownString();
    appendPlain(tooltip, `${node.file}${node.problem.line ? `:${node.problem.line}` : ''}: ${node.problem.message}`);
    tooltip.appendMarkdown('\n\n');
    appendPlain(tooltip, vscode.l10n.t('Fix: {0}', node.problem.fix));
    item.tooltip = tooltip;
  }
  if (node.kind === 'pendingItem') item.tooltip = pendingTooltip(node);
  if (node.kind === 'supersededItem') item.tooltip = supersededTooltip(node);
  if (node.kind === 'staleItem') {
    const tooltip = entityTooltip(node.entity);
    tooltip.appendMarkdown(`\n\n$(warning) ${staleText(node.note)}`);
    item.tooltip = tooltip;
  }
  return item;
}
