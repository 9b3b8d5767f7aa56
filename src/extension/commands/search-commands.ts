import * as vscode from 'vscode';

import { type Found, isFoundTurn } from '../../core/collections/search-all';
import { cutAtWord, entityTitle } from '../../core/text';
import type { Entity } from '../../core/types';
import { recallBudget } from '../config';
import { showReport } from '../documents/reports';
import { entityUri } from '../documents/uris';
import type { Services } from '../services';
import { openEntity, reporting } from '../ui';
import { entityDescription, TYPE_INFO } from '../views/labels';
import { COMMANDS } from './ids';

/** Typing pauses this long before a search runs. */
const SEARCH_DELAY_MS = 120;
const RESULTS = 30;

interface ResultItem extends vscode.QuickPickItem {
  /** What opens: the entity, or the session a turn was said in. */
  entity: Pick<Entity, 'type' | 'id'>;
}

/** What the pick offers when nothing matched: a way forward instead of an empty box. */
interface ActionItem extends vscode.QuickPickItem {
  run?: () => Thenable<unknown>;
}

type SearchItem = ResultItem | ActionItem;

const isResult = (item: SearchItem): item is ResultItem => 'entity' in item;

function nothingMatched(query: string, agentId: string): ActionItem[] {
  return [
    {
      label: `$(info) ${vscode.l10n.t('Nothing matched “{0}”', query)}`,
      detail: vscode.l10n.t(
        'Searched the memories, skills and past conversations of agent {0}, shared skills and knowledge, and the synced workspace docs. Try fewer or other words.',
        agentId,
      ),
      alwaysShow: true,
    },
    {
      label: `$(sync) ${vscode.l10n.t('Sync Workspace Docs Now')}`,
      detail: vscode.l10n.t('Docs added or changed since the last sync are not searchable yet.'),
      alwaysShow: true,
      run: () => vscode.commands.executeCommand(COMMANDS.syncDocs),
    },
    {
      label: `$(settings-gear) ${vscode.l10n.t('Search Another Agent’s Memories…')}`,
      detail: vscode.l10n.t('The agent whose memories this workspace uses is the workspaceMemory.agentId setting.'),
      alwaysShow: true,
      run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'workspaceMemory.agentId'),
    },
  ];
}

/** How long a result's title is: a quick pick shows about this much before it cuts the label itself. */
const TITLE_LENGTH = 60;
/** How much of the rest of the content the second line shows. */
const DETAIL_LENGTH = 160;

/**
 * A result's label and second line: a short title (its first words, or a
 * chunk's file and heading), cut at a word, and the content the title does
 * not already say, where the title left off.
 */
function pickLabels(entity: Entity): Pick<vscode.QuickPickItem, 'label' | 'detail'> {
  const { title, rest } = entityTitle(entity, TITLE_LENGTH);
  return {
    label: `$(${TYPE_INFO[entity.type].icon}) ${title}`,
    detail: rest ? cutAtWord(rest, DETAIL_LENGTH).head : undefined,
  };
}

/** A result as a pick item: a memory, skill or chunk by its title; a turn by who said what, and when. */
function resultItem(found: Found, button: vscode.QuickInputButton): ResultItem {
  const common = {
    buttons: [button],
    // The store matched them by stems, synonyms and fields the quick pick's own filter would
    // miss: show them all. (VS Code still lifts results whose title contains the typed text
    // to the top; turning that off is proposed API only, microsoft/vscode#73904.)
    alwaysShow: true,
  };
  if (isFoundTurn(found)) {
    const { session, turn } = found.turn;
    const { head, rest } = cutAtWord(turn.text.replace(/\s+/g, ' '), TITLE_LENGTH);
    const when = turn.time ?? session.startedAt;
    return {
      ...common,
      label: `$(${TYPE_INFO.session.icon}) ${turn.speaker}: ${head}`,
      description: [
        vscode.l10n.t('conversation'),
        session.conversationId,
        when?.slice(0, 16).replace('T', ' '),
        found.score.toFixed(2),
      ]
        .filter(Boolean)
        .join(' · '),
      detail: rest ? cutAtWord(rest, DETAIL_LENGTH).head : undefined,
      entity: { type: 'session', id: session.id },
    };
  }
  const { entity, score, copies } = found;
  const also = copies?.length ? ` · ${vscode.l10n.t('also in {0} more places', copies.length)}` : '';
  return {
    ...common,
    ...pickLabels(entity),
    description: `${entity.type} · ${entityDescription(entity)} · ${score.toFixed(2)}${also}`,
    entity,
  };
}

/** A QuickPick that searches memories, skills, knowledge and past conversations as the user types. */
async function search(services: Services, options: { query?: string }): Promise<readonly ResultItem[]> {
  const memory = await services.memory();
  const { agentId, userId } = services.scope();
  const pick = vscode.window.createQuickPick<SearchItem>();
  pick.title = vscode.l10n.t('Search Memory');
  pick.placeholder = vscode.l10n.t('Search memories, skills, workspace docs and past conversations');
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const openToSide: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('split-horizontal'),
    tooltip: vscode.l10n.t('Open to the Side'),
  };
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;

  const run = async (query: string) => {
    const mine = ++generation;
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    pick.busy = true;
    try {
      const results = await memory.worker.searchAll(agentId, userId, query, RESULTS);
      // A slower earlier search must not overwrite a newer one.
      if (mine !== generation) return;
      if (results.length === 0) {
        pick.items = nothingMatched(query.trim(), agentId);
        return;
      }
      pick.items = results.map((found) => resultItem(found, openToSide));
    } catch (error) {
      services.reportError(vscode.l10n.t('Searching'), error);
    } finally {
      if (mine === generation) pick.busy = false;
    }
  };

  pick.onDidChangeValue((value) => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(value), SEARCH_DELAY_MS);
  });
  pick.onDidTriggerItemButton(({ item }) => {
    if (!isResult(item)) return;
    vscode.window
      .showTextDocument(entityUri(item.entity), { viewColumn: vscode.ViewColumn.Beside, preview: true })
      .then(undefined, (error: unknown) => services.reportError(vscode.l10n.t('Opening'), error));
  });
  pick.onDidAccept(() => {
    const item = pick.selectedItems[0];
    if (item && !isResult(item)) {
      // The "nothing matched" line itself does nothing; the others hand over to their command.
      if (!item.run) return;
      pick.hide();
      void Promise.resolve(item.run()).catch((error: unknown) => services.reportError(item.label, error));
      return;
    }
    pick.hide();
    if (item)
      void openEntity(item.entity).catch((error: unknown) => services.reportError(vscode.l10n.t('Opening'), error));
  });
  pick.onDidHide(() => {
    clearTimeout(timer);
    pick.dispose();
  });
  pick.show();
  if (!options.query) return [];
  // Started with a query (a keybinding, a test): fill it in and hand back the first results.
  pick.value = options.query;
  await run(options.query);
  return pick.items.filter(isResult);
}

/** Shows the exact context recall would hand a model for a query. */
async function previewRecall(services: Services, options: { query?: string }) {
  const query =
    options.query ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Preview Recall'),
      prompt: vscode.l10n.t('A question or task, as you would ask Copilot'),
      validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('Type a query.')),
    }));
  if (!query) return;
  const { agentId, userId } = services.scope();
  const result = await services.use((memory) => memory.recall(agentId, userId, query, recallBudget()));
  const size = vscode.l10n.t(
    'Recall for "{0}": {1} items, {2} characters, about {3} tokens',
    query,
    result.items.length,
    result.chars,
    result.tokens,
  );
  // What was left out is only worth a word when something was.
  const leftOut =
    result.leftOut > 0 ? vscode.l10n.t('; {0} more matching items did not fit the budget', result.leftOut) : '';
  const header = `<!-- ${size}${leftOut}. ${vscode.l10n.t('This is the context a model would receive.')} -->`;
  await showReport(
    vscode.l10n.t('Recall Preview: {0}', query.length > 40 ? `${query.slice(0, 39)}…` : query),
    `${header}\n\n${result.formatted || vscode.l10n.t('(nothing relevant was found)')}\n`,
  );
  return result;
}

export function registerSearchCommands(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.search,
      reporting(services, vscode.l10n.t('Searching'), (options?: { query?: string }) =>
        search(services, options ?? {}),
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.previewRecall,
      reporting(services, vscode.l10n.t('Previewing recall'), (options?: { query?: string }) =>
        previewRecall(services, options ?? {}),
      ),
    ),
  );
}
