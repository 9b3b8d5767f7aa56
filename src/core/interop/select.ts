import { MemoryError } from '../errors';
import type { Memory } from '../memory';
import { MEMORY_CATEGORIES, type MemoryEntity, SKILL_CATEGORIES, type SkillEntity, TEAM_AGENT_ID } from '../types';
import { assertId, assertOptionalId } from '../validation';
import { SourceCollector } from './collector';
import type { FormatHandler } from './format-handler';
import type { BlockEntry } from './generated-block';
import { importedId } from './ids';
import type { ImportedType } from './types';
import type { Workspace } from './workspace';

/** Which memories and skills an export writes. */
export interface ExportSelection {
  /** Whose: the agent's workspace-wide items, and with `userId` that user's too. */
  agentId: string;
  userId?: string;
  /** Default both. */
  types?: ImportedType[];
  /** Only these categories (fact, decision, procedure…). */
  categories?: string[];
  /** Only items with at least one of these tags. */
  tags?: string[];
  /** Also the team folder's memories and skills. */
  team?: boolean;
}

export type ExportSource = Pick<Memory, 'memories' | 'skills'>;

const CATEGORY_ORDER: readonly string[] = [...MEMORY_CATEGORIES, ...SKILL_CATEGORIES];

/**
 * The selected memories and skills as entries, less `exclude`, in a fixed
 * order (category, then age, then id) so that the same store exports the
 * same bytes.
 */
export async function selectEntries(
  source: ExportSource,
  selection: ExportSelection,
  exclude: ReadonlySet<string> = new Set(),
): Promise<BlockEntry[]> {
  const agentId = assertId(selection?.agentId, 'agent id');
  const userId = assertOptionalId(selection.userId, 'user id');
  const types = selection.types ?? ['memory', 'skill'];
  if (!Array.isArray(types) || types.length === 0 || types.some((type) => type !== 'memory' && type !== 'skill')) {
    throw new MemoryError('INVALID_INPUT', 'An export selects memories, skills or both (types: memory, skill).');
  }
  const unknown = selection.categories?.find((category) => !CATEGORY_ORDER.includes(category));
  if (unknown !== undefined) {
    throw new MemoryError(
      'INVALID_INPUT',
      `Unknown category "${unknown}"; the categories are ${CATEGORY_ORDER.join(', ')}.`,
    );
  }
  const agents = selection.team === true ? [agentId, TEAM_AGENT_ID] : [agentId];
  const entities: (MemoryEntity | SkillEntity)[] = [];
  for (const type of types) {
    const collection = type === 'memory' ? source.memories : source.skills;
    for (const agent of agents) entities.push(...(await collection.list(agent)));
  }
  const tags = selection.tags?.length ? new Set(selection.tags) : undefined;
  const selected = entities
    .filter((entity) => entity.userId === undefined || entity.userId === userId)
    .filter((entity) => !selection.categories || selection.categories.includes(entity.category))
    .filter((entity) => !tags || entity.tags.some((tag) => tags.has(tag)));
  // Written anyway, an empty selection (a mistyped tag) would empty the block a file has.
  if (selected.length === 0) throw nothingSelected(agentId, userId, types, selection);
  return selected
    .filter((entity) => !exclude.has(entity.id))
    .sort(
      (a, b) =>
        CATEGORY_ORDER.indexOf(a.category) - CATEGORY_ORDER.indexOf(b.category) ||
        a.createdAt.localeCompare(b.createdAt) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .map(entryOf);
}

function nothingSelected(
  agentId: string,
  userId: string | undefined,
  types: readonly ImportedType[],
  selection: ExportSelection,
): MemoryError {
  const what = types.length === 1 ? (types[0] === 'memory' ? 'memories' : 'skills') : 'memories or skills';
  const filters = [
    selection.categories?.length ? `category ${selection.categories.join(', ')}` : '',
    selection.tags?.length ? `tag ${selection.tags.join(', ')}` : '',
  ].filter(Boolean);
  const whose = `agent ${agentId}${userId === undefined ? '' : ` (and user ${userId})`}${selection.team ? ' or the team' : ''}`;
  const match = filters.length ? ` match ${filters.join(' and ')}` : '';
  return new MemoryError('NOT_FOUND', `No ${what} of ${whose}${match}: nothing was exported, and no file was written.`);
}

function entryOf(entity: MemoryEntity | SkillEntity): BlockEntry {
  const entry: BlockEntry = {
    id: entity.id,
    type: entity.type,
    category: entity.category,
    tags: [...entity.tags],
    content: entity.content,
  };
  if (entity.appliesTo?.length) entry.appliesTo = [...entity.appliesTo];
  if (entity.type === 'skill') entry.status = entity.status;
  return entry;
}

/**
 * The ids an import of `file` gave (or would give) its items, for the
 * selection's agent with and without its user: an export into a file leaves
 * out what came from that very file, which would otherwise be in it twice.
 */
export function idsFromFile(
  ws: Workspace,
  handler: FormatHandler,
  file: string,
  selection: ExportSelection,
): Set<string> {
  const into = new SourceCollector();
  try {
    handler.collect(ws, file, into);
  } catch {
    return new Set(); // Not readable as that format: nothing in it came from an import of it.
  }
  const scopes = [
    { agentId: selection.agentId },
    ...(selection.userId ? [{ agentId: selection.agentId, userId: selection.userId }] : []),
  ];
  const ids = new Set<string>();
  for (const item of into.items) {
    if (item.storeId) continue;
    for (const scope of scopes) ids.add(importedId(item.type, scope, item.group, item.key));
  }
  return ids;
}
