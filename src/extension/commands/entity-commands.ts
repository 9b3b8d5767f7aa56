import * as vscode from 'vscode';

import {
  type CitationRequest,
  type Entity,
  MEMORY_CATEGORIES,
  type MemoryCategory,
  SKILL_CATEGORIES,
  type SkillCategory,
} from '../../core/types';
import { LIMITS } from '../../core/validation';
import { type SelectionCitations, selectionCitations } from '../anchors/selection';
import { chunkLocation } from '../documents/chunk-location';
import { isSyncedChunk } from '../documents/format';
import { parseEntityUri } from '../documents/uris';
import type { Services } from '../services';
import { collectionOf } from '../store/collections';
import { confirm, openEntity, reporting } from '../ui';
import type { Views } from '../views';
import type { CollectionNode } from '../views/collections-tree';
import type { CommitNode } from '../views/history-tree';
import { entityLabel } from '../views/labels';
import { COMMANDS } from './ids';

/** What entity commands accept: a tree row, a history row, an editor's document, or nothing (the active editor). */
export type EntityArgument = CollectionNode | CommitNode | vscode.Uri | undefined;

/** The entity a command is about: from its argument, else the active editor's memory document. */
export async function resolveEntity(services: Services, argument: EntityArgument): Promise<Entity | undefined> {
  // A row of Collections (of its Stale and Not Used Lately groups too), or of Pending Review
  // (the store's get leaves a write waiting for review out).
  if (argument && 'kind' in argument && 'entity' in argument && argument.kind !== 'supersededItem') {
    return argument.entity;
  }
  const uri = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
  const id =
    argument && 'kind' in argument && argument.kind === 'commit' ? argument.entityId : uri && parseEntityUri(uri)?.id;
  if (!id) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Select a memory in the Memory view first.'));
    return undefined;
  }
  const entity = await services.use((memory) => memory.get(id));
  if (!entity) void vscode.window.showWarningMessage(vscode.l10n.t('{0} no longer exists.', id));
  return entity ?? undefined;
}

function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\s]+/)
        .map((t) => t.replace(/^#/, '').trim())
        .filter(Boolean),
    ),
  ];
}

interface KindPick extends vscode.QuickPickItem {
  type: 'memory' | 'skill';
  category: MemoryCategory | SkillCategory;
}

async function pickKind(): Promise<KindPick | undefined> {
  const items: (KindPick | vscode.QuickPickItem)[] = [
    { label: vscode.l10n.t('Memory'), kind: vscode.QuickPickItemKind.Separator },
    ...MEMORY_CATEGORIES.map((category) => ({
      label: `$(lightbulb) ${category}`,
      description: vscode.l10n.t('memory'),
      type: 'memory' as const,
      category,
    })),
    { label: vscode.l10n.t('Skill'), kind: vscode.QuickPickItemKind.Separator },
    ...SKILL_CATEGORIES.map((category) => ({
      label: `$(tools) ${category}`,
      description: vscode.l10n.t('skill'),
      type: 'skill' as const,
      category,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Add Memory (1/3): what kind?'),
    placeHolder: vscode.l10n.t('A memory is a fact or decision; a skill is a procedure'),
  });
  return picked && 'type' in picked ? picked : undefined;
}

/** Answers for Add Memory's prompts, for keybindings, other extensions and tests. */
export interface AddMemoryOptions {
  type?: 'memory' | 'skill';
  category?: MemoryCategory | SkillCategory;
  content?: string;
  tags?: string[];
}

async function addMemory(services: Services, views: Views, options: AddMemoryOptions) {
  if (options.content !== undefined) {
    const type = options.type ?? 'memory';
    const category = options.category ?? (type === 'memory' ? 'fact' : 'procedure');
    return saveAndOffer(services, views, { type, category }, options.content, options.tags ?? []);
  }
  const kind = await pickKind();
  if (!kind) return;
  const content = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Memory (2/3): content'),
    prompt: vscode.l10n.t('What should be remembered? (one line here; edit it afterwards for more)'),
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('Write something to remember.')),
  });
  if (content === undefined) return;
  const tagText = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Memory (3/3): tags'),
    prompt: vscode.l10n.t('Tags, separated by commas or spaces (optional)'),
    ignoreFocusOut: true,
    validateInput: (value) =>
      parseTags(value).length > LIMITS.maxTags ? vscode.l10n.t('At most {0} tags.', LIMITS.maxTags) : undefined,
  });
  if (tagText === undefined) return;
  return saveAndOffer(services, views, kind, content.trim(), parseTags(tagText));
}

/** `src/app.ts:10-24, src/app.ts:40` */
function citedPlaces(citations: readonly CitationRequest[]): string {
  return citations
    .map(({ path, startLine, endLine }) => `${path}:${startLine === endLine ? startLine : `${startLine}-${endLine}`}`)
    .join(', ');
}

async function saveAndOffer(
  services: Services,
  views: Views,
  kind: Pick<KindPick, 'type' | 'category'>,
  content: string,
  tags: string[],
  cited: SelectionCitations = { citations: [] },
): Promise<Entity> {
  const memory = await services.memory();
  const { agentId, userId } = services.scope();
  const citations = cited.citations.length ? { citations: cited.citations } : {};
  const [entity] =
    kind.type === 'memory'
      ? await memory.memories.save(agentId, userId, {
          content,
          tags,
          category: kind.category as MemoryCategory,
          ...citations,
        })
      : await memory.skills.save(agentId, undefined, {
          content,
          tags,
          category: kind.category as SkillCategory,
          ...citations,
        });
  views.history.show(entity);
  const open = vscode.l10n.t('Open');
  const undo = vscode.l10n.t('Undo');
  const saved = vscode.l10n.t('Saved {0} “{1}”.', kind.type, entityLabel(entity));
  const citing = cited.citations.length
    ? ' ' +
      vscode.l10n.t(
        'It cites {0}; it is marked as possibly outdated once those lines change.',
        citedPlaces(cited.citations),
      )
    : cited.reason
      ? ' ' + vscode.l10n.t('It cites no code: {0}.', cited.reason)
      : '';
  // Not awaited: the command is done once saved; the buttons act later.
  void vscode.window
    .showInformationMessage(saved + citing, open, undo)
    .then(async (choice) => {
      if (choice === open) await openEntity(entity, true);
      if (choice !== undo) return;
      const memory = await services.memory();
      // Edited since it was saved (the message may be clicked much later): keep it.
      if ((await memory.history(entity.id)).length !== 1) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t('“{0}” was changed since it was saved; it was kept.', entityLabel(entity)),
        );
        return;
      }
      await collectionOf(memory, entity.type).delete(entity.id);
    })
    .then(undefined, (error: unknown) => services.reportError(vscode.l10n.t('Undo'), error));
  return entity;
}

async function saveSelection(services: Services, views: Views) {
  const editor = vscode.window.activeTextEditor;
  const text = editor?.selections
    .map((selection) => editor.document.getText(selection))
    .join('\n')
    .trim();
  if (!editor || !text) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Select the text to remember in an editor first.'));
    return;
  }
  const tags =
    editor.document.languageId && editor.document.languageId !== 'plaintext' ? [editor.document.languageId] : [];
  return saveAndOffer(
    services,
    views,
    { type: 'memory', category: 'fact' },
    text,
    tags,
    await selectionCitations(editor),
  );
}

async function deleteEntity(services: Services, argument: EntityArgument, options: { confirmed?: boolean }) {
  const entity = await resolveEntity(services, argument);
  if (!entity) return;
  if (isSyncedChunk(entity)) {
    // Doc sync would not bring a deleted chunk back until its file changes: the file decides.
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'This chunk mirrors {0}: doc sync keeps it in step with the file. Edit or delete the file, or leave it out of doc sync with workspaceMemory.docSync.exclude.',
        entity.source ?? '',
      ),
    );
    return;
  }
  const preview = entity.content.length > 200 ? `${entity.content.slice(0, 200)}…` : entity.content;
  const ok =
    options.confirmed ||
    (await confirm(
      vscode.l10n.t('Delete {0} “{1}”?', entity.type, entityLabel(entity)),
      vscode.l10n.t('Delete'),
      vscode.l10n.t('{0}\n\nIts history is kept: you can still see every version. (id {1})', preview, entity.id),
    ));
  if (!ok) return;
  return collectionOf(await services.memory(), entity.type).delete(entity.id);
}

/** A synced chunk's file, at the chunk's first line. */
async function openSource(entity: Entity): Promise<void> {
  const location = isSyncedChunk(entity) ? chunkLocation(entity) : undefined;
  if (!location) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This entity is not a chunk of a file in this workspace.'));
    return;
  }
  await vscode.window.showTextDocument(location.uri, { selection: location.range, preview: true });
}

export function registerEntityCommands(context: vscode.ExtensionContext, services: Services, views: Views): void {
  const run = <A extends unknown[]>(action: string, fn: (...args: A) => Promise<unknown>) =>
    reporting(services, action, fn);
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.addMemory,
      run(vscode.l10n.t('Adding a memory'), (options?: AddMemoryOptions) => addMemory(services, views, options ?? {})),
    ),
    vscode.commands.registerCommand(
      COMMANDS.saveSelection,
      run(vscode.l10n.t('Saving the selection'), () => saveSelection(services, views)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.open,
      run(vscode.l10n.t('Opening'), async (argument: EntityArgument) => {
        const entity = await resolveEntity(services, argument);
        if (!entity) return;
        views.history.show(entity);
        await openEntity(entity);
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.edit,
      run(vscode.l10n.t('Opening for edit'), async (argument: EntityArgument) => {
        const entity = await resolveEntity(services, argument);
        if (entity) await openEntity(entity, true);
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.delete,
      run(vscode.l10n.t('Deleting'), (argument: EntityArgument, options?: { confirmed?: boolean }) =>
        deleteEntity(services, argument, options ?? {}),
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.copyId,
      run(vscode.l10n.t('Copying the id'), async (argument: EntityArgument) => {
        const id =
          argument && 'kind' in argument && argument.kind === 'commit'
            ? argument.commit.hash
            : (await resolveEntity(services, argument))?.id;
        if (id) await vscode.env.clipboard.writeText(id);
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.keepUsed,
      run(vscode.l10n.t('Keeping the memory'), async (argument: EntityArgument) => {
        const entity = await resolveEntity(services, argument);
        if (!entity) return;
        // Counted as a use, as a recall would: it leaves Not Used Lately until it goes unused again.
        await services.use((memory) => collectionOf(memory, entity.type).incrementAccess([entity.id]));
        views.collections.refresh();
      }),
    ),
    vscode.commands.registerCommand(
      COMMANDS.openSource,
      run(vscode.l10n.t('Opening the source file'), async (argument: EntityArgument) => {
        const entity = await resolveEntity(services, argument);
        if (entity) await openSource(entity);
      }),
    ),
    vscode.commands.registerCommand(COMMANDS.refresh, () => views.collections.refresh()),
    vscode.commands.registerCommand(COMMANDS.showMore, (node: Extract<CollectionNode, { kind: 'more' }>) =>
      views.collections.showMore(node),
    ),
  );
}
