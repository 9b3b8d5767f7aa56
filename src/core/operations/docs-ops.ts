import { z } from 'zod';

import { quoteEntity } from '../trust/framing';
import { limit, query } from './fields';
import { counted, quotedResult, storedText } from './render';
import { ADMIN_SURFACES, defineOperation, EVERY_SURFACE } from './types';

export const docsSearch = defineOperation({
  name: 'docs_search',
  title: 'Search workspace documents',
  description:
    "Searches the workspace's synced documents (READMEs, docs folders, notes) for passages about a topic, best match first. Use it to find what the project's own documentation says before answering from general knowledge. Returns each passage with its citation as path:line, the heading it sits under and its id; cite the path:line when you use it.",
  input: z.strictObject({ query, limit: limit(5, 20) }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const { chunks } = await store.rag.query(scope.agentId, args.query, { limit: args.limit });
    const results = chunks.map(({ entity, score, citation }) => ({
      id: entity.id,
      citation,
      title: entity.title,
      headingPath: entity.headingPath ?? [],
      score,
      content: entity.content,
    }));
    const text = chunks.length
      ? storedText(
          `${counted(chunks.length, 'document passage', 'document passages')} for "${args.query}"; cite each by the path:line it is from:`,
          chunks.map(({ entity, score }) => quotedResult(entity, score, 600)),
        )
      : `No workspace documents match "${args.query}".`;
    return { text, data: { results } };
  },
});

export const ragQuery = defineOperation({
  name: 'rag_query',
  title: 'Document context for a question',
  description:
    "Retrieves the workspace document passages that best answer a question and returns them as one numbered context block, each passage headed by [n] and its path:line citation. Use it to ground an answer in the project's documentation: answer from the block only and cite like [2] docs/setup.md:14. Returns the context block and the cited chunk ids.",
  input: z.strictObject({
    query: query.describe('The question to answer from the documents.'),
    limit: limit(5, 20),
  }),
  effect: 'read',
  surfaces: ADMIN_SURFACES,
  async run({ store, scope }, args) {
    const { chunks, context } = await store.rag.query(scope.agentId, args.query, { limit: args.limit });
    const sources = chunks.map(({ entity, score, citation }, index) => ({
      number: index + 1,
      id: entity.id,
      citation,
      score,
    }));
    // Numbered like `context`, but each passage quoted under its source line: the text is what a model reads.
    const text = chunks.length
      ? storedText(
          `${counted(chunks.length, 'document passage', 'document passages')} for "${args.query}", numbered for citing:`,
          chunks.map(({ entity }, index) => quoteEntity(entity, { lead: `[${index + 1}]` })),
        )
      : `The workspace documents have nothing on "${args.query}".`;
    return { text, data: { context, sources } };
  },
});

export const DOCS_OPERATIONS = [docsSearch, ragQuery];
