import { appliesTo } from '../anchors/applies-to';
import type { MemoryEntity, SkillEntity } from '../types';
import {
  CITING_BOOST,
  type Ranked,
  type RecallCollection,
  type RecallItem,
  type RecallOptions,
  type RecallSource,
  TURN_WEIGHT,
} from './types';

/**
 * Recall's candidates for one query: up to `limit` from each collection
 * asked for, with the scores they are ranked by (memories and skills that
 * concern a file being worked on boosted, turns weighed by TURN_WEIGHT),
 * best first.
 */
export async function poolCandidates(
  source: RecallSource,
  agentId: string,
  userId: string | undefined,
  query: string,
  limit: number,
  options: Pick<RecallOptions, 'files' | 'includeSharedSkills' | 'includeSharedKnowledge'> & {
    collections: ReadonlySet<RecallCollection>;
  },
): Promise<Ranked[]> {
  const { collections } = options;
  const pools = await Promise.all([
    collections.has('memories') ? source.searchMemories(agentId, userId, query, limit) : [],
    collections.has('skills') ? source.searchSkills(agentId, query, limit, options.includeSharedSkills ?? true) : [],
    collections.has('knowledge')
      ? source.searchKnowledge(agentId, query, limit, options.includeSharedKnowledge ?? true)
      : [],
    collections.has('conversations') && source.searchTurns ? source.searchTurns(agentId, userId, query, limit) : [],
  ]);
  const working = [...new Set(options.files ?? [])];
  const concernsWork = (entity: MemoryEntity | SkillEntity) =>
    entity.citations?.some((citation) => working.includes(citation.path)) ||
    working.some((file) => appliesTo(entity.appliesTo, file, source.folders ?? []));
  const boosted = (entity: RecallItem['entity'], score: number) =>
    working.length && (entity.type === 'memory' || entity.type === 'skill') && concernsWork(entity)
      ? Math.min(1, score * CITING_BOOST)
      : score;
  const entities: RecallItem[] = [
    ...pools[0].map((r) => ({ collection: 'memories' as const, entity: r.entity, score: boosted(r.entity, r.score) })),
    ...pools[1].map((r) => ({ collection: 'skills' as const, entity: r.entity, score: boosted(r.entity, r.score) })),
    ...pools[2].map((r) => ({
      collection: 'knowledge' as const,
      entity: r.entity,
      score: r.score,
      ...(r.copies ? { copies: r.copies } : {}),
    })),
  ];
  const turns = pools[3].map((turn) => ({
    collection: 'conversations' as const,
    turn,
    score: turn.score * TURN_WEIGHT,
  }));
  return [...entities, ...turns].sort((a, b) => b.score - a.score);
}
