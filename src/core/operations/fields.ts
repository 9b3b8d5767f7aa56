import { z } from 'zod';

import { REASONING_MODES } from '../reasoning/types';
import { LIMITS } from '../validation';

/** Argument schemas several operations share, so a field means the same thing everywhere. */

export const query = z
  .string()
  .trim()
  .min(1)
  .max(10_000)
  .describe('What to look for, in natural language or keywords (abbreviations like k8s or ts are expanded).');

/** Most results one call returns: more would flood a model's context. */
export const MAX_RESULTS = 50;

export function limit(fallback: number, max = MAX_RESULTS) {
  return z.number().int().min(1).max(max).default(fallback).describe(`Most results to return (1 to ${max}).`);
}

export const tags = z
  .array(z.string().trim().min(1).max(LIMITS.maxTagLength))
  .max(LIMITS.maxTags)
  .describe('Short keywords that help find this later, e.g. ["deploy", "docker"].');

export const entityId = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.maxIdLength)
  .describe('The id of the entity, exactly as a previous search, recall or save returned it.');

/** Content is also capped in bytes by the store; this just refuses empty text early, with the field named. */
export function content(what: string) {
  return z.string().trim().min(1).describe(what);
}

/** Lines of workspace files a memory or skill is about: the store reads and keeps them (anchors/citations.ts). */
export const citations = z
  .array(
    z.strictObject({
      path: z
        .string()
        .trim()
        .min(1)
        .max(LIMITS.maxCitationPath)
        .describe(
          'The file, relative to the workspace folder with / separators (in a multi-root workspace, led by the folder name), e.g. "src/deploy/compose.ts".',
        ),
      startLine: z.number().int().min(1).describe('The first cited line (1-based).'),
      endLine: z.number().int().min(1).describe('The last cited line (inclusive).'),
    }),
  )
  .max(LIMITS.maxCitations)
  .describe(
    'The code this is about, when it is about specific lines: the lines are read and kept with it, so that it is marked as possibly outdated once that code changes. A path outside the workspace or lines beyond the end of the file are refused.',
  );

/** Globs of the files a memory or skill is about, for knowledge that holds for a kind of file (anchors/applies-to.ts). */
export const appliesTo = z
  .array(z.string().trim().min(1).max(LIMITS.maxGlob))
  .max(LIMITS.maxAppliesTo)
  .describe(
    'The files this is about, when it holds for a kind of file rather than specific lines: globs relative to the workspace folder, e.g. ["src/**/*.test.ts", "**/*.sql"] ("*.sql" matches only the top folder). It then comes up whenever those files are worked on.',
  );

/** Reasoning and reranking with the host's model (see reasoning/types.ts): off unless asked. */
export const reasoning = {
  reasoning: z
    .enum(REASONING_MODES)
    .optional()
    .describe(
      'none (the default): search the words given. rewrite: the language model proposes better searches too. iterative: it searches step by step, noting evidence, for questions that need several facts. Slower; use when a plain search missed.',
    ),
  rerank: z
    .boolean()
    .optional()
    .describe('Have the language model order the best candidates by how well they answer the query. Slower.'),
};
