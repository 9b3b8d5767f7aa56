import type { VersionBody } from '../store/entity-store';
import type { ProfileEntity, ProfileInput } from '../types';
import { SHARED_AGENT_ID } from '../types';
import { assertId, assertLimit } from '../validation';
import { Collection } from './collection';

/** One profile per agent and user: saving again makes a new version of the same entity. */
export class ProfileCollection extends Collection<'profile'> {
  protected override existingIdFor(body: VersionBody): string | undefined {
    if (body.userId === undefined) return undefined;
    const [existing] = this.ctx.store.list(
      { type: 'profile', agentId: body.agentId, userId: body.userId },
      { limit: 1, offset: 0 },
    );
    return existing?.id;
  }

  async getByUser(agentId: string, userId: string): Promise<ProfileEntity | null> {
    const [profile] = this.ctx.store.list(
      { type: 'profile', agentId: assertId(agentId, 'agent id'), userId: assertId(userId, 'user id') },
      { limit: 1, offset: 0 },
    );
    return (profile as ProfileEntity | undefined) ?? null;
  }

  /** The user's profiles in every agent, most recently updated first. */
  async getByUserAcrossAgents(userId: string, limit = 50): Promise<ProfileEntity[]> {
    return this.ctx.store.profilesOfUser(assertId(userId, 'user id'), assertLimit(limit)) as ProfileEntity[];
  }

  async saveShared(userId: string, input: ProfileInput) {
    return this.save(SHARED_AGENT_ID, assertId(userId, 'user id'), input);
  }

  async getSharedByUser(userId: string): Promise<ProfileEntity | null> {
    return this.getByUser(SHARED_AGENT_ID, userId);
  }
}
