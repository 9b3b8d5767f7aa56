import type { EntityType, UpdateByType } from '../../core/types';
import type { RemoteMemory } from './client';

/** The facade's collection name for each entity type. */
export const COLLECTION_OF = {
  memory: 'memories',
  skill: 'skills',
  knowledge: 'knowledge',
  session: 'sessions',
  profile: 'profiles',
} as const satisfies Record<EntityType, string>;

/** What every collection offers, whatever its type. */
export interface AnyCollection {
  update(id: string, update: UpdateByType[EntityType]): Promise<unknown>;
  delete(id: string): Promise<unknown>;
  count(agentId: string, userId?: string): Promise<number>;
}

export function collectionOf(memory: RemoteMemory, type: EntityType): AnyCollection {
  return memory[COLLECTION_OF[type]] as unknown as AnyCollection;
}
