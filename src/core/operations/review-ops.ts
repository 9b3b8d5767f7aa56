import { z } from 'zod';

import { describeProvenance } from '../provenance';
import { oneLine } from '../text';
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
    const lines = shown.map(
      (item) =>
        `- ${item.id} (${item.type}${item.proposes ? `, proposes to ${item.proposes.action} ${item.proposes.target}` : ''}) ${item.by}: ${item.preview}`,
    );
    const more = items.length > MAX_SHOWN ? [`… and ${items.length - MAX_SHOWN} more.`] : [];
    const text = items.length
      ? [`${items.length} write(s) waiting for review:`, ...lines, ...more].join('\n')
      : 'Nothing is waiting for review.';
    return { text, data: { total: items.length, items: shown } };
  },
});

export const REVIEW_OPERATIONS = [reviewList];
