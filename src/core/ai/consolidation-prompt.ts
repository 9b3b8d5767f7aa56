import { z } from 'zod';

import { MEMORY_CATEGORIES, SKILL_CATEGORIES } from '../types';
import { normalizeTags } from './tags';

export type ConsolidationTarget = 'memory' | 'skill' | 'knowledge';

/** The fields of an entity consolidation reads. */
export interface ReviewedEntity {
  id: string;
  content: string;
  tags: string[];
  updatedAt: string;
  userId?: string;
  category?: string;
  title?: string;
  source?: string;
  /** Set on chunks of synced documents. */
  sourceHash?: string;
}

/** The model's plan for one batch, before its ids are checked against the batch. */
export interface ConsolidationAnswer {
  merge: { ids: string[]; content: string; tags?: string[]; category?: string; reason: string }[];
  outdated: { id: string; reason: string }[];
}

const CATEGORIES: Record<ConsolidationTarget, readonly [string, ...string[]] | undefined> = {
  memory: MEMORY_CATEGORIES,
  skill: SKILL_CATEGORIES,
  knowledge: undefined,
};

export function consolidationSchema(target: ConsolidationTarget): z.ZodType<ConsolidationAnswer> {
  const categories = CATEGORIES[target];
  return z.object({
    merge: z
      .array(
        z.object({
          ids: z.array(z.string()),
          content: z.string().trim().min(1),
          tags: z
            .array(z.string())
            .optional()
            .transform((tags) => tags && normalizeTags(tags)),
          // Knowledge has no category: whatever the model says there is ignored.
          category: categories ? z.enum(categories).optional() : z.unknown().transform((): undefined => undefined),
          reason: z.string().trim().min(1),
        }),
      )
      .default([]),
    outdated: z.array(z.object({ id: z.string(), reason: z.string().trim().min(1) })).default([]),
  });
}

const WHAT: Record<ConsolidationTarget, string> = {
  memory: 'memories about a software project (facts, decisions, issues, tasks, corrections)',
  skill: 'skills: procedures, configurations, troubleshooting guides and workflows for a software project',
  knowledge: 'knowledge notes about a software project',
};

export function consolidationInstructions(target: ConsolidationTarget): string {
  const category = CATEGORIES[target]
    ? ` Give the merged entry a "category" (one of ${CATEGORIES[target].map((c) => `"${c}"`).join(', ')}).`
    : '';
  return `You tidy a store of ${WHAT[target]}. Each entry below is one JSON line with its "id" and when it was last "updated".

Find:
1. "merge": groups of two or more entries that say the same thing or overlap so much that one entry should replace them. Write the merged entry's "content" so that it keeps every distinct detail of the group, and its "tags".${category} Do not merge entries that only share a topic.
2. "outdated": entries that are no longer true: contradicted or superseded by a more recently updated entry, or describing something finished or abandoned.

Give a short "reason" for every merge and every outdated entry. Use only ids from the list, copied exactly; an entry belongs to at most one merge or outdated item. When nothing should change, return empty lists.`;
}

export const CONSOLIDATION_FORMAT = `{
  "merge": [{ "ids": ["<id>", "<id>"], "content": "the merged entry", "tags": ["deploy"], "category": "decision", "reason": "both describe the deploy command" }],
  "outdated": [{ "id": "<id>", "reason": "replaced by the newer entry about pnpm" }]
}`;

/** One entry as the model sees it: a JSON line with what helps to judge it. */
export function entryLine(entity: ReviewedEntity): string {
  return JSON.stringify({
    id: entity.id,
    ...(entity.category ? { category: entity.category } : {}),
    ...(entity.title ? { title: entity.title } : {}),
    ...(entity.source ? { source: entity.source } : {}),
    ...(entity.tags.length ? { tags: entity.tags } : {}),
    updated: entity.updatedAt.slice(0, 10),
    content: entity.content,
  });
}

export function consolidationInput(lines: readonly string[]): string {
  return `Entries:\n${lines.join('\n')}`;
}

/** Room left in every request for the header `consolidationInput` adds. */
export const CONSOLIDATION_INPUT_OVERHEAD = 16;
