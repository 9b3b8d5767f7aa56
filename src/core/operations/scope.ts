import { MemoryError } from '../errors';
import type { Entity, MemoryEntity } from '../types';
import type { OperationScope, OperationStore } from './types';

/**
 * The same rule memory search applies, for any entity: the host's agent, and either no user
 * in the scope, the scope's user, or a memory saved without a user
 * (workspace-wide). A model may only change what it could have found.
 */
export function inScope(entity: Pick<Entity, 'agentId' | 'userId'>, scope: OperationScope): boolean {
  if (entity.agentId !== scope.agentId) return false;
  return scope.userId === undefined || entity.userId === undefined || entity.userId === scope.userId;
}

/** Refused ids get NOT_FOUND, the same as unknown ones: another agent's ids are not confirmed to exist. */
export function notInScope(id: string): MemoryError {
  return new MemoryError('NOT_FOUND', `No memory with id ${id} in this workspace's memory.`);
}

export async function requireMemoryInScope(
  store: OperationStore,
  scope: OperationScope,
  id: string,
): Promise<MemoryEntity> {
  const entity = await store.memories.get(id);
  if (!entity || !inScope(entity, scope)) throw notInScope(id);
  return entity;
}

/** A user is needed for profiles; the host sets it, so its absence is a configuration problem, not a bad argument. */
export function requireUser(scope: OperationScope): string {
  if (scope.userId !== undefined) return scope.userId;
  throw new MemoryError(
    'INVALID_INPUT',
    'No user is set for this workspace, so there is no profile to read or write. The host sets the user (the --user flag or WORKSPACE_MEMORY_USER).',
  );
}
