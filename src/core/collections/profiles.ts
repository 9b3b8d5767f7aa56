import type { VersionBody } from '../store/entity-store';
import type { ProfileEntity, ProfileInput } from '../types';
import { SHARED_AGENT_ID } from '../types';
import { assertId, assertLimit, assertOptionalId } from '../validation';
import { Collection } from './collection';

/**
 * One profile per agent and user: saving again makes a new version of the
 * same entity. "No user" counts as a user: an agent has at most one
 * profile without one.
 */
export class ProfileCollection extends Collection<'profile'> {
  protected override existingIdFor(body: VersionBody): string | undefined {
    return this.find(body.agentId, body.userId)?.id;
  }

  /** The profile of the agent and user; without a user, the agent's profile that has none. */
  async getByUser(agentId: string, userId: string | undefined): Promise<ProfileEntity | null> {
    return this.find(assertId(agentId, 'agent id'), assertOptionalId(userId, 'user id')) ?? null;
  }

  /** The user's profiles in every agent, most recently updated first. */
  async getByUserAcrossAgents(userId: string, limit = 50): Promise<ProfileEntity[]> {
    return this.ctx.store.profilesOfUser(assertId(userId, 'user id'), assertLimit(limit)) as ProfileEntity[];
  }

  async saveShared(userId: string, input: ProfileInput) {
    return this.save(SHARED_AGENT_ID, assertId(userId, 'user id'), input);
  }

  async getSharedByUser(userId: string): Promise<ProfileEntity | null> {
    return this.getByUser(SHARED_AGENT_ID, assertId(userId, 'user id'));
  }

  private find(agentId: string, userId: string | undefined): ProfileEntity | undefined {
    // The list filter reads a null user as "without a user" (undefined would mean any user).
    const [profile] = this.ctx.store.list(
      { type: 'profile', agentId, userId: userId ?? null },
      { limit: 1, offset: 0 },
    );
    return profile as ProfileEntity | undefined;
  }
}
