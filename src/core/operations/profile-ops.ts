import { z } from 'zod';

import { quoteEntity } from '../trust/framing';
import { content } from './fields';
import { storedText } from './render';
import { requireUser } from './scope';
import { defineOperation, EVERY_SURFACE } from './types';

export const profileGet = defineOperation({
  name: 'profile_get',
  title: 'Read the user profile',
  description:
    "Reads what is known about the current user: role, preferences, conventions they want followed, stored as one profile for this workspace (or, if it has none, the user's shared profile). Use it to tailor answers to the user. Returns the profile text, its metadata and its id, or says there is none yet.",
  input: z.strictObject({}),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }) {
    const user = requireUser(scope);
    const profile =
      (await store.profiles.getByUser(scope.agentId, user)) ?? (await store.profiles.getSharedByUser(user));
    if (!profile) {
      return { text: `No profile for user ${user} yet; profile_update creates one.`, data: { profile: null } };
    }
    // The metadata is stored text too, so it goes inside the quote, after the profile.
    const metadata = Object.keys(profile.metadata).length ? `\n\nMetadata: ${JSON.stringify(profile.metadata)}` : '';
    return {
      text: storedText(`Profile of ${user}:`, [
        quoteEntity(profile, { shown: `${profile.content.trim()}${metadata}` }),
      ]),
      data: { profile },
    };
  },
});

export const profileUpdate = defineOperation({
  name: 'profile_update',
  title: 'Update the user profile',
  description:
    "Rewrites the current user's profile for this workspace with a new full text (read it with profile_get first and merge, since the old text is replaced; its history keeps earlier versions). Use it when the user states a lasting preference or fact about themselves. Metadata, if given, replaces the old metadata; left out, the old metadata is kept. Returns the profile id.",
  input: z.strictObject({
    content: content('The whole profile: who the user is and how they like to work, in short sentences.'),
    metadata: z
      .record(z.string(), z.unknown())
      .describe('Structured details as a JSON object, e.g. {"timezone": "Europe/Madrid", "editor": "vim"}.')
      .optional(),
  }),
  effect: 'destructive',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const user = requireUser(scope);
    const current = await store.profiles.getByUser(scope.agentId, user);
    const metadata = args.metadata ?? current?.metadata;
    const [profile, commit] = await store.profiles.save(scope.agentId, user, {
      content: args.content,
      ...(metadata ? { metadata } : {}),
    });
    return {
      text: `${current ? 'Updated' : 'Created'} the profile of ${user} (id: ${profile.id}).`,
      data: { profile, commit },
    };
  },
});

export const PROFILE_OPERATIONS = [profileGet, profileUpdate];
