import { isMemoryError, type MemoryErrorCode } from '../errors';
import type { Memory } from '../memory';
import { guardFields } from '../secrets/guard';
import type { Entity, HistoryEntry, MemoryInput, SkillInput } from '../types';
import { validateInput } from '../validation';
import { importedId } from './ids';
import type { FoundItem, ImportProgress, InteropScope, ItemAction } from './types';

/**
 * What an import will do with each item found, decided against the store
 * before anything is written (a dry run stops here):
 *
 * - not in the store, never was: create;
 * - there, saying the same: unchanged;
 * - there, saying something else, last written by an import: update (the
 *   source changed);
 * - there, changed since in the store (a person's edit): the source's text
 *   is the last import's (unchanged: the edit stays), or it changed too and
 *   neither may win silently (skip, the store's version kept);
 * - deleted, retired or waiting for review here: skip (a re-import does not
 *   bring back what someone removed); but one an import deleted (its section
 *   was gone for a while, a branch switch) is created again;
 * - an item that carries a store id (a generated block, a graph this store
 *   wrote) never overwrites: it only brings back what a store lacks.
 */

/** The store operations an import uses: the Memory facade, or anything shaped like it. */
export type ImportTarget = Pick<Memory, 'get' | 'history' | 'import' | 'memories' | 'skills' | 'groups'>;

export type ImportInput = MemoryInput | SkillInput;

export interface PlannedItem {
  item: FoundItem;
  id: string;
  action: Exclude<ItemAction, 'remove'>;
  reason?: string;
  code?: MemoryErrorCode;
  /** For create and update: the scope written to (an existing entity keeps its own) and the validated input. */
  write?: { agentId: string; userId?: string; input: ImportInput };
  /** The secrets found in it, by kind and place: the store's policy redacts the item or refuses it. */
  secrets?: string;
}

const PROGRESS_EVERY = 100;

/**
 * `pause` is called before each item: where a cancel is heard (see
 * Workspace.pause), since the store's reads here never wait on the event loop.
 */
export async function planItems(
  target: ImportTarget,
  items: readonly FoundItem[],
  scope: InteropScope,
  onProgress?: (progress: ImportProgress) => void,
  pause?: () => Promise<void>,
): Promise<PlannedItem[]> {
  const planned: PlannedItem[] = [];
  const first = new Map<string, FoundItem>();
  for (const [index, item] of items.entries()) {
    await pause?.();
    if (index % PROGRESS_EVERY === 0) onProgress?.({ phase: 'planning', done: index, total: items.length });
    const id = item.storeId ?? importedId(item.type, scope, item.group, item.key);
    const earlier = first.get(id);
    if (earlier) {
      planned.push({ item, id, action: 'skip', reason: `the same item as ${place(earlier)}` });
      continue;
    }
    first.set(id, item);
    planned.push(await planOne(target, item, id, scope));
  }
  onProgress?.({ phase: 'planning', done: items.length, total: items.length });
  return planned;
}

/** `path:line` of an item, or its path. */
export const place = (item: Pick<FoundItem, 'path' | 'line'>): string =>
  item.line === undefined ? item.path : `${item.path}:${item.line}`;

async function planOne(target: ImportTarget, item: FoundItem, id: string, scope: InteropScope): Promise<PlannedItem> {
  let input: ImportInput;
  try {
    input = validateInput(item.type, inputOf(item));
  } catch (error) {
    if (!isMemoryError(error)) throw error;
    return { item, id, action: 'error', reason: error.message, code: error.code };
  }
  const findings = guardFields(input, 'redact');
  const secrets = findings.findings.map((found) => `${found.kind} in ${found.field} on line ${found.line}`).join(', ');
  const plan = { item, id, ...(secrets ? { secrets } : {}) };
  // What the store holds when it took the item under any secret policy: as it is, or redacted.
  const same = (entity: Entity | null | undefined) =>
    !!entity && (sameItem(entity, input) || (secrets !== '' && sameItem(entity, findings.body)));
  const existing = await target.get(id);
  if (existing && existing.type !== item.type) {
    return {
      ...plan,
      action: 'error',
      reason: `The id ${id} belongs to a ${existing.type} in this store.`,
      code: 'TYPE_MISMATCH',
    };
  }
  if (!existing) {
    const history = await target.history(id);
    const head = history[0];
    if (head && !(head.entity === null && head.commit.by.kind === 'import')) {
      return { ...plan, action: 'skip', reason: notLive(head) };
    }
    return { ...plan, action: 'create', write: { ...scopeOf(scope), input } };
  }
  if (same(existing)) return { ...plan, action: 'unchanged' };
  if (item.storeId) {
    return { ...plan, action: 'skip', reason: 'this store has it with other content, which is kept' };
  }
  const history = await target.history(id);
  const write = { ...scopeOf(existing), input };
  if (history[0]?.commit.by.kind === 'import') return { ...plan, action: 'update', write };
  const lastImport = history.find((entry) => entry.commit.by.kind === 'import' && entry.entity);
  if (lastImport && same(lastImport.entity)) {
    return {
      ...plan,
      action: 'unchanged',
      reason: 'edited in this store since the last import; the source has not changed',
    };
  }
  return {
    ...plan,
    action: 'skip',
    reason: 'changed both in this store and in the source since the last import: the store’s version is kept',
  };
}

function scopeOf(owner: { agentId: string; userId?: string }): { agentId: string; userId?: string } {
  return owner.userId === undefined ? { agentId: owner.agentId } : { agentId: owner.agentId, userId: owner.userId };
}

/** The input an item is saved with: every field said, so the store's defaults never differ from the source. */
function inputOf(item: FoundItem): Record<string, unknown> {
  return {
    content: item.content,
    tags: item.tags,
    category: item.category,
    ...(item.type === 'skill' ? { status: item.status ?? 'active' } : {}),
    ...(item.appliesTo?.length ? { appliesTo: item.appliesTo } : {}),
  };
}

/** Whether an entity says what an input does, in every field an import writes. */
export function sameItem(entity: Entity, input: ImportInput): boolean {
  if (entity.type !== 'memory' && entity.type !== 'skill') return false;
  const list = (value: readonly string[] | undefined) => JSON.stringify(value ?? []);
  return (
    entity.content === input.content &&
    list(entity.tags) === list(input.tags) &&
    entity.category === input.category &&
    list(entity.appliesTo) === list(input.appliesTo) &&
    (entity.type === 'memory' || entity.status === (input as SkillInput).status)
  );
}

function notLive(head: HistoryEntry): string {
  if (head.commit.review === 'pending') return 'waiting for review in this store';
  if (head.commit.op === 'supersede') return 'retired by a correction in this store';
  if (head.entity === null) return 'deleted in this store, so not brought back (its history can restore it)';
  return 'not live in this store';
}
