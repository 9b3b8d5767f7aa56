/** /remember, /forget, /history and /snapshot: direct changes to the memory, each undoable or confirmed. */
import * as vscode from 'vscode';

import { inScope } from '../../core/operations/scope';
import type { OperationScope } from '../../core/operations/types';
import { oneLine } from '../../core/text';
import { type CommitInfo, type Entity, type MemoryEntity, SHARED_AGENT_ID } from '../../core/types';
import { citedPlace, exactGlob, type ReferenceCitations, referenceCitations } from '../anchors/chat-references';
import { COMMANDS } from '../commands/ids';
import { versionUri } from '../documents/uris';
import { shortTime } from '../views/labels';
import { type CommandContext, type CommandHandler, type CommandOutcome, missingPrompt } from './command';
import type { SavedEntities } from './conversation';
import { escape, type Reply } from './reply';

/** How many candidates /forget and /history offer when the prompt is a search. */
const CANDIDATES = 5;

/** How a /remember prompt says it corrects something already remembered. */
const CORRECTION = /^(?:correction|correct(?:ed|ing)?|actually)\s*[:,-]\s*/i;

/**
 * /remember <text>: saves the text as a memory (or updates its near-duplicate), with an undo button.
 * The code the request references (`#selection`, `#file`, `#sym:`) is cited; an editor's selection
 * that is not referenced is not: what a memory cites is what the user put in the request.
 */
export const remember: CommandHandler = async (context): Promise<CommandOutcome | void> => {
  if (missingPrompt(context, vscode.l10n.t('Tell me what to remember, e.g. `/remember We deploy on Fridays`.'))) return;
  const { services, reply, request } = context;
  reply.progress(vscode.l10n.t('Saving…'));
  const cited = await referenceCitations(request.prompt, request.references);
  if (!cited.said) {
    reply.markdown(
      vscode.l10n.t(
        'Say what to remember about the code, e.g. `/remember #selection retries three times, then gives up`.',
      ),
    );
    return;
  }
  const memory = await services.memory();
  const prompt = cited.text.trim();
  // "/remember Correction: …" retires the memory it corrects instead of sitting beside it.
  const correction = CORRECTION.exec(prompt);
  const input = {
    ...(correction
      ? { content: prompt.slice(correction[0].length).trim() || prompt, category: 'correction' }
      : { content: prompt }),
    // Left out when nothing is cited, so an updated near-duplicate keeps what it cites.
    ...(cited.citations.length ? { citations: cited.citations } : {}),
    ...(cited.wholeFiles.length ? { appliesTo: cited.wholeFiles.map(exactGlob) } : {}),
  };
  const result = await memory.worker.operation('memory_save', services.scope(), input);
  const { entity, commit, deduplicated } = result.data as {
    entity: MemoryEntity;
    commit: CommitInfo;
    deduplicated: boolean;
  };
  const saved: SavedEntities = deduplicated
    ? { created: [], updated: [{ type: 'memory', id: entity.id, previousCommit: commit.parent }] }
    : { created: [{ type: 'memory', id: entity.id }], updated: [] };
  if (commit.supersedes) saved.superseded = [commit.supersedes];
  reply.markdown(
    deduplicated
      ? vscode.l10n.t('Updated memory `{0}`: it said nearly the same, so it now holds your wording. ', entity.id)
      : vscode.l10n.t('Remembered as memory `{0}` ({1}). ', entity.id, entity.category),
  );
  reply.anchor(entity, vscode.l10n.t('Open it'));
  replyCited(reply, cited);
  if (commit.supersedes) {
    const retired = await memory.worker.historyOutline(commit.supersedes);
    reply.markdown(
      vscode.l10n.t(
        '\n\nIt corrects memory `{0}` (“{1}”), which is now left out of search and recall; Undo puts it back.',
        commit.supersedes,
        escape(oneLine(retired.latest?.content ?? '', 80)),
      ),
    );
  }
  reply.markdown('\n\n');
  reply.reference(entity);
  reply.button({ command: COMMANDS.undoChatSave, title: vscode.l10n.t('Undo'), arguments: [saved] });
  return { saved };
};

/** What the memory cites and applies to, and each reference left out with its reason. */
function replyCited(reply: Reply, cited: ReferenceCitations): void {
  const code = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');
  if (cited.citations.length) {
    reply.markdown(`\n\n${vscode.l10n.t('It cites {0}.', code(cited.citations.map(citedPlace)))}`);
  }
  if (cited.wholeFiles.length) {
    reply.markdown(
      `\n\n${vscode.l10n.t(
        'It applies to {0}: too long to cite line by line, so it comes up whenever that file is worked on.',
        code(cited.wholeFiles),
      )}`,
    );
  }
  if (cited.skipped.length) {
    reply.markdown(`\n\n${vscode.l10n.t('Not cited:')}\n`);
    for (const { name, reason } of cited.skipped) reply.markdown(`\n- ${escape(name)}: ${escape(reason)}`);
  }
}

/**
 * The memories a prompt names: the one with that id (if it is this
 * workspace's), else the best matches of a search.
 */
export async function findMemories(context: CommandContext): Promise<MemoryEntity[]> {
  const { services, request } = context;
  const memory = await services.memory();
  const scope = services.scope();
  const text = request.prompt.trim();
  if (/^[a-z]+-[0-9a-z]+$/i.test(text)) {
    const byId = await memory.memories.get(text);
    if (byId && inScope(byId, scope)) return [byId];
  }
  const results = await memory.memories.search(scope.agentId, scope.userId, text, CANDIDATES);
  return results.map((result) => result.entity);
}

/** /forget <id or words>: shows the memory (or the candidates) with a Forget button each; deletes nothing itself. */
export const forget: CommandHandler = async (context) => {
  if (
    missingPrompt(
      context,
      vscode.l10n.t('Name the memory to forget: its id, or words from it, e.g. `/forget old API key rotation`.'),
    )
  )
    return;
  const { reply } = context;
  reply.progress(vscode.l10n.t('Looking for the memory…'));
  const found = await findMemories(context);
  if (found.length === 0) {
    reply.markdown(
      vscode.l10n.t('No memory matches "{0}". Try `/search` with other words.', oneLine(context.request.prompt, 80)),
    );
    return;
  }
  reply.markdown(
    found.length === 1
      ? vscode.l10n.t('Forget this memory? Nothing is deleted until you click **Forget**; its history is kept.\n\n')
      : vscode.l10n.t(
          'Which one should I forget? Nothing is deleted until you click **Forget** on one; its history is kept.\n\n',
        ),
  );
  offerEach(reply, found, (entity) => ({
    command: COMMANDS.delete,
    title: found.length === 1 ? vscode.l10n.t('Forget') : vscode.l10n.t('Forget {0}', entity.id),
    // The click is the confirmation: the Delete command asks no second time.
    arguments: [{ kind: 'entity', entity }, { confirmed: true }],
  }));
};

/** Each memory found, quoted with its id, a link and a button to act on it: what /forget and /share offer. */
export function offerEach(
  reply: CommandContext['reply'],
  found: readonly MemoryEntity[],
  button: (entity: MemoryEntity) => vscode.Command,
): void {
  for (const entity of found) {
    reply.markdown(`> ${escape(oneLine(entity.content, 300))}\n>\n> \`${entity.id}\` · ${entity.category} · `);
    reply.anchor(entity, vscode.l10n.t('open'));
    reply.markdown('\n\n');
    reply.reference(entity);
    reply.button(button(entity));
  }
}

/** /history <id or words>: every version of the entity, newest first, each linked to its read-only document. */
export const history: CommandHandler = async (context) => {
  if (missingPrompt(context, vscode.l10n.t('Name the memory: its id, or words from it, e.g. `/history deploy`.')))
    return;
  const { services, reply, request } = context;
  const memory = await services.memory();
  const text = request.prompt.trim();
  // By id, any entity with a history (deleted ones too, and the shared
  // scope's skills, knowledge and profiles), else the best matching memory.
  const scope = services.scope();
  let entries = /^[a-z]+-[0-9a-z]+$/i.test(text) ? await memory.history(text) : [];
  const owner = entries.find((entry) => entry.entity)?.entity;
  if (!owner || !visible(owner, scope)) {
    const best = (await findMemories(context))[0];
    entries = best ? await memory.history(best.id) : [];
  }
  // An import may have moved an id between scopes: only versions this workspace may see are shown.
  entries = entries.filter((entry) => !entry.entity || visible(entry.entity, scope));
  const target = entries.find((entry) => entry.entity)?.entity;
  if (!target) {
    reply.markdown(vscode.l10n.t('No memory matches "{0}".', oneLine(text, 80)));
    return;
  }
  reply.markdown(vscode.l10n.t('**History of {0} `{1}`**, newest first:\n\n', target.type, target.id));
  for (const entry of entries) {
    const { commit } = entry;
    reply.markdown(`- ${shortTime(commit.time)} · **${commit.op}** · ${escape(commit.author)} · `);
    if (entry.entity) {
      reply.link(versionUri(target, commit.hash), commit.hash.slice(0, 12));
      reply.markdown(`\n  ${escape(oneLine(entry.entity.content, 200))}\n`);
    } else {
      reply.markdown(vscode.l10n.t('deleted') + '\n');
    }
  }
  if (entries[0]?.entity) reply.reference(target);
  // The two newest versions that have content (a delete commit has none).
  const [newer, older] = entries.filter((entry) => entry.entity);
  if (newer && older) {
    reply.button({
      command: 'vscode.diff',
      title: vscode.l10n.t('Compare the last two versions'),
      arguments: [versionUri(target, older.commit.hash), versionUri(target, newer.commit.hash)],
    });
  }
};

/** What this workspace may look at: its own scope, and the shared scope every agent reads (for its user). */
function visible(entity: Pick<Entity, 'agentId' | 'userId'>, scope: OperationScope): boolean {
  return inScope(entity, entity.agentId === SHARED_AGENT_ID ? { ...scope, agentId: SHARED_AGENT_ID } : scope);
}

/** /snapshot [label]: a consistent copy of the whole store, restorable from the Memory view. */
export const snapshot: CommandHandler = async (context) => {
  const { services, reply, request } = context;
  reply.progress(vscode.l10n.t('Taking a snapshot…'));
  const info = await services.use((memory) => memory.snapshot(request.prompt.trim()));
  const size = `${(info.bytes / 1024).toFixed(0)} KB`;
  reply.markdown(
    vscode.l10n.t(
      'Snapshot `{0}` taken{1}: {2} entities, {3}. Restore it with **Memory: Restore Snapshot…**.',
      info.id,
      info.label ? ` (“${escape(info.label)}”)` : '',
      info.entities,
      size,
    ),
  );
  reply.button({ command: COMMANDS.restoreSnapshot, title: vscode.l10n.t('Restore a snapshot…') });
};
