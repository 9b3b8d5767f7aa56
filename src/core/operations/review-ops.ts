import { z } from 'zod';

import { describeProvenance } from '../provenance';
import { oneLine } from '../text';
import { quoteEntity, STORED_DATA_NOTICE } from '../trust/framing';
import { ADMIN_SURFACES, defineOperation } from './types';

const MAX_SHOWN = 50;

/**
 * What waits for review, for agents to see and not write twice. Approving
 * and rejecting are for people (the views, the CLI's `review`): no operation
 * does them, so no agent can wave its own writes through.
 */
export const reviewList = defineOperation({
  name: 'review_list',
  title: 'List writes waiting for review',
  description:
    "Lists this agent's memory writes that are waiting for a person's review (they are not searchable until approved). Use it to see whether something you saved is still pending before saving it again. Approving is done by people, not by tools. Returns each pending write's id, type, who wrote it and its first words.",
  input: z.strictObject({}),
  effect: 'read',
  surfaces: ADMIN_SURFACES,
  async run({ store, scope }) {
    const items = await store.review.list({ agentId: scope.agentId });
    const shown = items.slice(0, MAX_SHOWN).map(({ entity, commit }) => ({
      id: entity.id,
      type: entity.type,
      by: describeProvenance(commit.by, commit.author),
      ...(commit.proposes ? { proposes: commit.proposes } : {}),
      preview: oneLine(entity.content, 100),
    }));
    // What waits is the least trusted text in the store: quoted as data like every read result.
    const quoted = items.slice(0, MAX_SHOWN).map(({ entity, commit }) => {
      const proposes = commit.proposes ? ` (proposes to ${commit.proposes.action} ${commit.proposes.target})` : '';
      return quoteEntity(entity, { lead: `pending${proposes}:`, provenance: commit.by });
    });
    const more = items.length > MAX_SHOWN ? [`… and ${items.length - MAX_SHOWN} more.`] : [];
    const text = items.length
      ? [`${items.length} write(s) waiting for review.`, STORED_DATA_NOTICE, ...quoted, ...more].join('\n\n')
      : 'Nothing is waiting for review.';
    return { text, data: { total: items.length, items: shown } };
  },
});

export const REVIEW_OPERATIONS = [reviewList];
