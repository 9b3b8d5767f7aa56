import type { EntityByType, InputByType } from '../types';
import { SHARED_AGENT_ID } from '../types';
import { Collection } from './collection';

/**
 * Skills and knowledge belong to an agent, not a user, and can also live in
 * the shared scope that every agent reads.
 */
export class AgentScopedCollection<T extends 'skill' | 'knowledge'> extends Collection<T> {
  async saveShared(input: InputByType[T]) {
    return this.save(SHARED_AGENT_ID, undefined, input);
  }

  async listShared(): Promise<EntityByType[T][]> {
    return this.list(SHARED_AGENT_ID);
  }
}
