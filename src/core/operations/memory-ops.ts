import { z } from 'zod';

import type { AiProvider } from '../ai/provider';
import { MemoryError } from '../errors';
import { reasonedSearch } from '../reasoning/reason';
import { wantsReasoning } from '../reasoning/settings';
import type { ReasoningOptions } from '../reasoning/types';
import { NO_MODEL } from '../recall/reasoned';
import { recallCollections, recallText } from '../recall/recall';
import type { RecallReasoning } from '../recall/types';
import type { SearchResult } from '../search/searcher';
import { MEMORY_CATEGORIES, type MemoryEntity } from '../types';
import { appliesTo, citations, content, entityId, limit, query, reasoning, tags } from './fields';
import { counted, historyLine, quotedResult, reasoningLine, storedText, withStaleness } from './render';
import { inScope, notInScope, requireMemoryInScope } from './scope';
import { defineOperation, EVERY_SURFACE } from './types';

const category = z
  .enum(MEMORY_CATEGORIES)
  .describe(
    'fact (the default for a new memory): how things are; decision: a choice made and why; issue: a known problem; task: work to do; correction: the user corrected a mistake.',
  );

/** Memories found with the model's help (see reasoning/reason.ts), in the order it gave. */
async function reasonedMemories(
  search: (query: string, limit: number) => Promise<SearchResult<MemoryEntity>[]>,
  query: string,
  count: number,
  options: ReasoningOptions & { ai: AiProvider | undefined },
): Promise<{ found: SearchResult<MemoryEntity>[]; reasoned: RecallReasoning }> {
  const hits = async (text: string, depth: number) =>
    (await search(text, depth)).map((result) => ({
      id: result.entity.id,
      text: result.entity.content,
      score: result.score,
      result,
    }));
  const { results, ...reasoned } = await reasonedSearch(options.ai ?? NO_MODEL, hits, query, count, options);
  return { found: results.map((hit) => hit.result), reasoned };
}

function savedLine(entity: MemoryEntity, deduplicated: boolean): string {
  return deduplicated
    ? `Updated memory ${entity.id}: it was a near-duplicate, so it now holds the new content and both tag lists.`
    : `Saved memory ${entity.id} (${entity.category}).`;
}

export const memorySave = defineOperation({
  name: 'memory_save',
  title: 'Save a memory',
  description:
    "Stores one durable fact about this workspace or its user in long-term memory, so it can be recalled in later conversations: a decision and its reason, a convention, a known issue, a task, or a correction the user made. Write one self-contained statement per call, with enough context to make sense on its own later. Do not save secrets or passing chit-chat. If a very similar memory already exists, that memory is updated instead of adding a twin. Returns the memory's id.",
  input: z.strictObject({
    content: content(
      'The memory, as a self-contained statement, e.g. "The API is deployed with docker compose from deploy/".',
    ),
    tags: tags.optional(),
    // No default here: a near-duplicate being updated keeps its category unless one is given.
    category: category.optional(),
    supersedes: entityId
      .optional()
      .describe(
        'The id of the memory this one corrects (from memory_search): it is retired from search and recall, its history kept. With category "correction" and no id, the most similar memory is the one corrected.',
      ),
    citations: citations.optional(),
    appliesTo: appliesTo.optional(),
  }),
  // It may replace a near-duplicate's content (the old text stays in its
  // history); VS Code asks first only when it would (see extension/tools).
  effect: 'destructive',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const [entity, commit, dedup] = await store.memories.saveOrUpdate(scope.agentId, scope.userId, args);
    return {
      text: savedLine(entity, dedup.deduplicated),
      data: { entity, commit, deduplicated: dedup.deduplicated, similarity: dedup.similarity },
    };
  },
});

export const memorySearch = defineOperation({
  name: 'memory_search',
  title: 'Search memories',
  description:
    "Searches this workspace's saved memories (facts, decisions, issues, tasks, corrections) by keywords or a question, best match first. Use it to check what is already known before answering or before saving something new, or to find the id of a memory to update or forget. Returns each memory's content, category, tags, id and relevance score.",
  input: z.strictObject({ query, limit: limit(10), ...reasoning }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope, ai, signal }, args) {
    const search = (text: string, depth: number) => store.memories.search(scope.agentId, scope.userId, text, depth);
    const { found, reasoned } = wantsReasoning(args)
      ? await reasonedMemories(search, args.query, args.limit, { ...args, ai, signal })
      : { found: await search(args.query, args.limit), reasoned: undefined };
    const results = await withStaleness(store, found);
    const summary = results.length
      ? storedText(
          `${counted(results.length, 'memory', 'memories')} for "${args.query}":`,
          results.map((r) => quotedResult(r.entity, r.score, undefined, r.stale)),
        )
      : `No memories match "${args.query}".`;
    const note = reasoningLine(reasoned);
    return {
      text: note ? `${summary}\n\n${note}` : summary,
      data: { results, ...(reasoned ? { reasoning: reasoned } : {}) },
    };
  },
});

export const memoryRecall = defineOperation({
  name: 'memory_recall',
  title: 'Recall context',
  description:
    "Gathers everything relevant to a topic in one call: the user's profile, then the best matching memories, skills, document knowledge and turns of past conversations, ranked together and packed as Markdown within a size budget. Use it at the start of a task to load what this workspace already knows about it. Every item carries its id (a turn its session). Returns the Markdown context.",
  input: z.strictObject({
    query: query.describe('The topic or task to gather context for, e.g. "deploying the api".'),
    budget: z
      .number()
      .int()
      // The notice that frames the items as data takes about 60 tokens: less fits nothing.
      .min(150)
      .max(32_000)
      .default(2000)
      .describe('Most tokens the context may use (estimated as characters / 4).'),
    maxItems: z.number().int().min(1).max(50).default(20).describe('Most items in the context.'),
    conversations: z
      .boolean()
      .optional()
      .describe('Whether to include turns of past conversations (default: yes, unless this workspace turned it off).'),
    ...reasoning,
  }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope, ai, signal }, args) {
    const result = await store.recall(scope.agentId, scope.userId, args.query, {
      maxTokens: args.budget,
      maxItems: args.maxItems,
      ...(args.conversations === undefined ? {} : { collections: recallCollections(args.conversations) }),
      ...(wantsReasoning(args) ? { reasoning: args.reasoning, rerank: args.rerank, ai, signal } : {}),
    });
    const note = reasoningLine(result.reasoning);
    const text = recallText(result, args.query);
    return { text: note ? `${text}\n\n${note}` : text, data: { ...result } };
  },
});

export const memoryUpdate = defineOperation({
  name: 'memory_update',
  title: 'Update a memory',
  description:
    'Replaces fields of an existing memory (its content, tags or category) when it has become wrong or incomplete; the previous version stays in its history. Give the id from memory_search or memory_recall and only the fields to change. Returns the id and the new version.',
  input: z.strictObject({
    id: entityId,
    content: content('The new content, replacing the old entirely.').optional(),
    tags: tags.describe('The new tag list, replacing the old one.').optional(),
    category: category.optional(),
  }),
  effect: 'destructive',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, { id, ...changes }) {
    if (Object.keys(changes).length === 0) {
      throw new MemoryError('INVALID_INPUT', 'memory_update: give at least one of `content`, `tags` or `category`.');
    }
    await requireMemoryInScope(store, scope, id);
    const [entity, commit] = await store.memories.update(id, changes);
    return { text: `Updated memory ${entity.id}.`, data: { entity, commit } };
  },
});

export const memoryForget = defineOperation({
  name: 'memory_forget',
  title: 'Forget a memory',
  description:
    'Deletes a memory that is wrong, obsolete or that the user asked to forget. It disappears from search and recall; its past versions stay in its history. Give the id from memory_search or memory_recall. Returns the id.',
  input: z.strictObject({ id: entityId }),
  effect: 'destructive',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, { id }) {
    await requireMemoryInScope(store, scope, id);
    const commit = await store.memories.delete(id);
    return { text: `Forgot memory ${id}; memory_history still shows its versions.`, data: { id, commit } };
  },
});

export const memoryHistory = defineOperation({
  name: 'memory_history',
  title: 'Memory history',
  description:
    'Lists every version of a memory, newest first, including its deletion: when and how it changed and what it said. Use it to see why a memory reads as it does, or to recover what a forgotten or updated memory said. Returns one line per commit.',
  input: z.strictObject({ id: entityId }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, { id }) {
    const history = await store.memories.history(id);
    // A deleted memory has no live entity; its versions still say whose it was.
    const owner = history.find((entry) => entry.entity)?.entity;
    if (!owner || !inScope(owner, scope)) throw notInScope(id);
    return {
      text: storedText(`History of memory ${id}, newest first:`, [history.map(historyLine).join('\n')]),
      data: { id, history },
    };
  },
});

export const MEMORY_OPERATIONS = [memorySave, memorySearch, memoryRecall, memoryUpdate, memoryForget, memoryHistory];
