import { z } from 'zod';

import { noteOf } from '../anchors/staleness';
import { quoteEntity, quoteInline } from '../trust/framing';
import { LIMITS } from '../validation';
import { clip, counted, storedText } from './render';
import { defineOperation, EVERY_SURFACE } from './types';

/** Where a citation points, for a model: `src/app.ts:10-24`. */
const where = ({ path, startLine, endLine }: { path: string; startLine: number; endLine: number }) =>
  `${path}:${startLine === endLine ? startLine : `${startLine}-${endLine}`}`;

export const memoryForFiles = defineOperation({
  name: 'memory_for_files',
  title: 'Memories about files',
  description:
    "Finds the memories and skills that cite lines of the given workspace files or apply to them by glob, so you know what is recorded about that code before you change it: decisions, conventions, known issues. Use it when you start working on a file. Each item comes with the lines it cites and whether that code changed since (then the item may be outdated), or the globs by which it applies. Returns each item's content, id and citations.",
  input: z.strictObject({
    paths: z
      .array(z.string().trim().min(1).max(LIMITS.maxCitationPath))
      .min(1)
      .max(50)
      .describe(
        'The files, relative to the workspace folder with / separators (in a multi-root workspace, led by the folder name), e.g. ["src/deploy/compose.ts"].',
      ),
  }),
  effect: 'read',
  surfaces: EVERY_SURFACE,
  async run({ store, scope }, args) {
    const found = await store.citingFiles(scope.agentId, scope.userId, args.paths);
    const files = args.paths.map((cited) => quoteInline(cited, 200)).join(', ');
    const text = found.length
      ? storedText(
          `${counted(found.length, 'memory or skill is', 'memories and skills are')} about ${files}:`,
          found.map(({ entity, citations, matchedGlobs }) =>
            [
              quoteEntity(entity, { stale: noteOf(citations), shown: clip(entity.content) }),
              ...(citations.length
                ? [
                    `cites ${citations.map(({ citation, state }) => `${quoteInline(where(citation), 200)} (${state})`).join(', ')}`,
                  ]
                : []),
              ...(matchedGlobs?.length
                ? [`applies to ${matchedGlobs.map((glob) => quoteInline(glob, 200)).join(', ')}`]
                : []),
            ].join('\n'),
          ),
        )
      : `Nothing in memory is about ${files}.`;
    return { text, data: { found } };
  },
});

export const CITATION_OPERATIONS = [memoryForFiles];
