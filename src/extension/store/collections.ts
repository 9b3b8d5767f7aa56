import type { UpdateOptions } from '../../core/collections/collection';
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
  update(id: string, update: UpdateByType[EntityType], options?: UpdateOptions): Promise<unknown>;
  delete(id: string): Promise<unknown>;
  count(agentId: string, userId?: string): Promise<number>;
  incrementAccess(ids: readonly string[]): Promise<void>;
}

/** Whether T is a union of several types (true) or one (false). */
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/** One type's collection, or, for a type known only as one of several, what every collection offers. */
export type CollectionOf<T extends EntityType> =
  true extends IsUnion<T> ? AnyCollection : RemoteMemory[(typeof COLLECTION_OF)[T]];

/** The collection of `type`, typed by it: no cast, the types above are checked against the facade's. */
export function collectionOf<T extends EntityType>(memory: RemoteMemory, type: T): CollectionOf<T>;
export function collectionOf(memory: RemoteMemory, type: EntityType): AnyCollection {
  const collection: AnyCollection = memory[COLLECTION_OF[type]];
  return collection;
}
