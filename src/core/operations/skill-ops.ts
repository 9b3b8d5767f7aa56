import { z } from 'zod';

import { SKILL_CATEGORIES, SKILL_STATUSES } from '../types';
import { appliesTo, citations, content, limit, query, tags } from './fields';
import { counted, quotedResult, storedText, withStaleness } from './render';
import { defineOperation, EVERY_SURFACE } from './types';

export const skillSave = defineOperation({
  name: 'skill_save',
  title: 'Save a skill',
  description:
    'Stores a reusable procedure for this workspace: the steps to build, release, debug or configure something, written so it can be followed again later. Use it after working out how to do something that will come up again. A near-duplicate skill of the same category is updated instead of adding a twin. Returns the skill id.',
  // No defaults: a near-duplicate being updated keeps its status unless one is given.
  input: z.strictObject({
    content: content('The procedure, as numbered steps or a short how-to, including commands and paths.'),
    tags: tags.optional(),
    category: z
      .enum(SKILL_CATEGORIES)
      .optional()
      .describe(
        'procedure (the default): steps to do something; configuration: how something is set up; troubleshooting: how to fix a problem; workflow: how the team works.',
      ),
    status: z
      .enum(SKILL_STATUSES)
      .optional()
      .describe(
        'active (the default for a new skill): current; draft: not yet confirmed; deprecated: kept for reference, no longer followed.',
      ),
    citations: citations.optional(),
    appliesTo: appliesTo.optional(),
  }),
  // Like memory_save, it may give a near-duplicate the new content (VS Code asks first only then).
  effect: 'destructive',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const [entity, commit, dedup] = await store.skills.saveOrUpdate(scope.agentId, args);
    const text = dedup.deduplicated
      ? `Updated skill ${entity.id}: it was a near-duplicate, so it now holds the new content.`
      : `Saved skill ${entity.id} (${entity.category}, ${entity.status}).`;
    return { text, data: { entity, commit, deduplicated: dedup.deduplicated, similarity: dedup.similarity } };
  },
});

export const skillSearch = defineOperation({
  name: 'skill_search',
  title: 'Search skills',
  description:
    "Searches this workspace's saved procedures (and the shared ones every workspace agent can read) for how to do something, best match first. Use it before working out a build, release, setup or troubleshooting procedure from scratch. Returns each skill's steps, category, status, tags and id.",
  input: z.strictObject({ query, limit: limit(5) }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const results = await withStaleness(
      store,
      await store.skills.search(scope.agentId, args.query, args.limit, { includeShared: true }),
    );
    const text = results.length
      ? storedText(
          `${counted(results.length, 'skill', 'skills')} for "${args.query}":`,
          results.map((r) => quotedResult(r.entity, r.score, undefined, r.stale)),
        )
      : `No skills match "${args.query}".`;
    return { text, data: { results } };
  },
});

export const SKILL_OPERATIONS = [skillSave, skillSearch];
