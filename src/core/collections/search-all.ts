import { TURN_WEIGHT } from '../recall/types';
import type { SearchResult } from '../search/searcher';
import type { Entity } from '../types';
import type { AgentScopedCollection, MemoryCollection } from './searchable';
import type { SessionCollection, TurnHit } from './sessions';

/** A turn of a past conversation among search results; its score weighed as recall weighs it (TURN_WEIGHT). */
export interface FoundTurn {
  turn: TurnHit;
  score: number;
}

/** What a search of everything finds: an entity (memory, skill, chunk) or a turn of a past conversation. */
export type Found = SearchResult<Entity> | FoundTurn;

export const isFoundTurn = (found: Found): found is FoundTurn => 'turn' in found;

/** The collections a search of everything reads. */
export interface EverySearchable {
  memories: MemoryCollection;
  skills: AgentScopedCollection<'skill'>;
  knowledge: AgentScopedCollection<'knowledge'>;
  sessions: SessionCollection;
}

/**
 * Memories, skills (own and shared), knowledge (own and shared) and, unless
 * left out, turns of past conversations matching `query`, ranked together
 * as recall ranks them, best first. Reads count no access: this serves
 * pickers and lists, not a model's context.
 */
export async function searchEverything(
  collections: EverySearchable,
  agentId: string,
  userId: string | undefined,
  query: string,
  limit: number,
  options: { conversations?: boolean } = {},
): Promise<Found[]> {
  const [memories, skills, knowledge, turns] = await Promise.all([
    collections.memories.search(agentId, userId, query, limit),
    collections.skills.search(agentId, query, limit, { includeShared: true }),
    collections.knowledge.search(agentId, query, limit, { includeShared: true }),
    options.conversations === false ? [] : collections.sessions.search(agentId, userId, query, limit),
  ]);
  const found: Found[] = [
    ...memories,
    ...skills,
    ...knowledge,
    ...turns.map((turn) => ({ turn, score: turn.score * TURN_WEIGHT })),
  ];
  return found.sort((a, b) => b.score - a.score).slice(0, limit);
}
