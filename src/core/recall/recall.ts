import { MemoryError } from '../errors';
import { wantsReasoning } from '../reasoning/settings';
import { quoteTurn } from '../sessions/quote';
import { quoteEntity, STORED_DATA_NOTICE } from '../trust/framing';
import type { Entity, ProfileEntity } from '../types';
import { assertId, assertOptionalId } from '../validation';
import { poolCandidates } from './pool';
import { reasonedCandidates } from './reasoned';
import {
  isTurnItem,
  type Ranked,
  RECALL_COLLECTIONS,
  type RecallCollection,
  type RecallItem,
  type RecallOptions,
  type RecallResult,
  type RecallSource,
  STALENESS_MODES,
} from './types';

export * from './types';

const HEADINGS: Record<RecallCollection, string> = {
  memories: 'Memories',
  skills: 'Skills',
  knowledge: 'Knowledge',
  conversations: 'Past conversations',
};
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

function renderItem(item: Ranked): string {
  return item.collection === 'conversations'
    ? quoteTurn(item.turn)
    : quoteEntity(item.entity, { provenance: item.provenance, stale: item.stale, copies: item.copies });
}

function renderProfile(profile: ProfileEntity): string {
  return `## Profile\n\n${quoteEntity(profile)}`;
}

/**
 * Pools candidates from every collection, ranks them together by score (or
 * has the model reason over them, when asked), takes the best that fit the
 * budget whole (an item that does not fit is skipped, never cut), and
 * formats them as Markdown.
 */
export async function recall(
  source: RecallSource,
  agentId: string,
  userId: string | undefined,
  query: string,
  options: RecallOptions = {},
): Promise<RecallResult> {
  assertId(agentId, 'agent id');
  assertOptionalId(userId, 'user id');
  const maxItems = options.maxItems ?? 20;
  const maxChars = Math.min(
    options.maxChars ?? 8000,
    options.maxTokens !== undefined ? options.maxTokens * 4 : Infinity,
  );
  if (!Number.isInteger(maxItems) || maxItems < 0 || maxItems > 200) {
    throw new MemoryError('INVALID_INPUT', `maxItems must be a whole number from 0 to 200 (got ${maxItems}).`);
  }
  if (!(maxChars >= 0)) throw new MemoryError('INVALID_INPUT', 'maxChars and maxTokens must be at least 0.');
  const collections = new Set(options.collections ?? RECALL_COLLECTIONS);
  for (const name of collections) {
    if (!RECALL_COLLECTIONS.includes(name))
      throw new MemoryError('INVALID_INPUT', `Unknown recall collection "${name}".`);
  }

  const pool = (text: string, limit: number) =>
    poolCandidates(source, agentId, userId, text, limit, { ...options, collections });
  const { candidates, reasoning } = wantsReasoning(options)
    ? await reasonedCandidates(pool, query, maxItems, options)
    : { candidates: maxItems > 0 ? await pool(query, maxItems) : [], reasoning: undefined };
  const entities = candidates.filter((item): item is RecallItem => !isTurnItem(item));
  // Before packing: an item's provenance is part of what it costs.
  const written =
    source.provenance && entities.length ? await source.provenance(entities.map((item) => item.entity.id)) : undefined;
  const staleness = options.staleness ?? 'mark';
  if (!STALENESS_MODES.includes(staleness)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `staleness must be ${STALENESS_MODES.join(', ')} (got ${String(staleness)}).`,
    );
  }
  // Before packing too: a stale item left out frees its room, a marked one costs its note.
  const stale =
    source.staleness && staleness !== 'ignore' && entities.length
      ? await source.staleness(entities.map((item) => item.entity))
      : undefined;
  // In the candidates' order: by score, or as the model ordered them.
  const ranked = candidates.flatMap((item): Ranked[] => {
    if (isTurnItem(item)) return [item];
    const provenance = written?.get(item.entity.id);
    const note = stale?.get(item.entity.id);
    if (note && staleness === 'exclude') return [];
    return [{ ...item, ...(provenance ? { provenance } : {}), ...(note ? { stale: note } : {}) }];
  });

  // Exactly what each part adds to `formatted`: the first one brings the notice, the others a blank line.
  let used = 0;
  const joint = () => (used === 0 ? STORED_DATA_NOTICE.length + 2 : 2);
  let profile: ProfileEntity | null = null;
  if ((options.includeProfile ?? true) && userId !== undefined) {
    const found = await source.profile(agentId, userId);
    const cost = found ? joint() + renderProfile(found).length : Infinity;
    if (found && cost <= maxChars) {
      profile = found;
      used = cost;
    }
  }
  const chosen: Ranked[] = [];
  const opened = new Set<RecallCollection>();
  let leftOut = 0;
  for (const item of ranked) {
    if (chosen.length >= maxItems) break;
    const before = opened.has(item.collection) ? 2 : joint() + `## ${HEADINGS[item.collection]}\n\n`.length;
    const cost = before + renderItem(item).length;
    if (used + cost > maxChars) {
      leftOut++;
      continue;
    }
    used += cost;
    opened.add(item.collection);
    chosen.push(item);
  }

  const sections: string[] = profile ? [renderProfile(profile)] : [];
  for (const name of RECALL_COLLECTIONS) {
    const items = chosen.filter((item) => item.collection === name);
    if (items.length) sections.push(`## ${HEADINGS[name]}\n\n${items.map(renderItem).join('\n\n')}`);
  }
  const formatted = sections.length ? [STORED_DATA_NOTICE, ...sections].join('\n\n') : '';
  const items = chosen.filter((item): item is RecallItem => !isTurnItem(item));
  const turns = chosen.filter(isTurnItem);
  if (items.length) await source.markRecalled(items.map((item) => item.entity.id));
  return {
    items,
    turns,
    profile,
    formatted,
    chars: formatted.length,
    tokens: estimateTokens(formatted),
    leftOut,
    ...(reasoning ? { reasoning } : {}),
  };
}

/**
 * What a recall drew on, for a caller that cites its sources: its items, the
 * sessions its turns were said in (each once) and the profile.
 */
export function recallSources(result: RecallResult): (Entity | Pick<Entity, 'type' | 'id'>)[] {
  const sessions = [...new Set(result.turns.map((item) => item.turn.session.id))];
  return [
    ...result.items.map((item) => item.entity),
    ...sessions.map((id) => ({ type: 'session' as const, id })),
    ...(result.profile ? [result.profile] : []),
  ];
}

/**
 * The recalled context as text for a model or a terminal: says when nothing
 * matched, and when matching items were left out for the budget (so a
 * caller knows a bigger budget would give more, rather than that nothing is known).
 */
export function recallText(result: RecallResult, query: string): string {
  const leftOut =
    result.leftOut === 1
      ? '1 matching item did not fit the budget'
      : `${result.leftOut} matching items did not fit the budget`;
  if (!result.formatted) {
    return result.leftOut > 0
      ? `Nothing fitted: ${leftOut} for "${query}". Ask again with a larger budget.`
      : `Nothing in memory is relevant to "${query}".`;
  }
  return result.leftOut > 0 ? `${result.formatted}\n\n_(${leftOut}.)_` : result.formatted;
}
