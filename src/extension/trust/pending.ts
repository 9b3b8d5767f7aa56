import type { PendingItem } from '../../core/trust/review';
import { SHARED_AGENT_ID } from '../../core/types';
import type { RemoteMemory } from '../store/client';

/**
 * The writes waiting for review that the views show: the workspace agent's
 * and the shared scope's (skills, knowledge and profiles may be shared), as
 * the Collections view shows those two scopes.
 */
const scopes = (agentId: string) => [agentId, SHARED_AGENT_ID];

/** How many writes wait for review in the workspace agent's and the shared scope. */
export async function pendingCount(memory: RemoteMemory, agentId: string): Promise<number> {
  const counts = await Promise.all(scopes(agentId).map((scope) => memory.review.count({ agentId: scope })));
  return counts.reduce((sum, count) => sum + count, 0);
}

/** The writes waiting for review in the workspace agent's and the shared scope, newest first. */
export async function pendingItems(memory: RemoteMemory, agentId: string): Promise<PendingItem[]> {
  const lists = await Promise.all(scopes(agentId).map((scope) => memory.review.list({ agentId: scope })));
  return lists.flat().sort((a, b) => b.commit.time.localeCompare(a.commit.time));
}
