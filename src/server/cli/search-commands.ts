import { type Command, Option } from 'commander';

import type { TurnHit } from '../../core/collections/sessions';
import { MemoryError } from '../../core/errors';
import { reasoningLine } from '../../core/operations/render';
import { wantsReasoning } from '../../core/reasoning/settings';
import { REASONING_MODES, type ReasoningMode } from '../../core/reasoning/types';
import { recallCollections, recallText, STALENESS_MODES, type StalenessMode } from '../../core/recall/recall';
import { placeOf } from '../../core/search/copies';
import type { SearchResult } from '../../core/search/searcher';
import { oneLine } from '../../core/text';
import { assertEntityType } from '../../core/validation';
import {
  chatIfConfigured,
  type GlobalOptions,
  interruptible,
  parseInteger,
  progress,
  type ScopeOptions,
  withMemory,
  withScopeOptions,
  withStoreOptions,
  withWorkspaceOption,
} from './context';
import { counted, entityLine, inline, print, printError, printJson } from './output';

const SEARCHABLE = ['memory', 'skill', 'knowledge', 'session'] as const;

function resultLine(result: SearchResult): string {
  const { entity } = result;
  // A chunk says where it is; copies of the same text elsewhere (a README in several folders) are one result, their places listed.
  const place = entity.type === 'knowledge' && entity.source ? `\n       in ${inline(placeOf(entity))}` : '';
  const also = result.copies?.length ? `\n       also in ${result.copies.map(inline).join(', ')}` : '';
  return `${result.score.toFixed(3)}  ${entityLine(entity)}${place}${also}`;
}

/** A turn of a past conversation: its score, where it was said, by whom and when, and the words on one line. */
function turnLine({ score, session, turn, inQueryTime }: TurnHit): string {
  const when = turn.time ? ` ${turn.time}` : '';
  // Said within the time the query named: those come first, each block scored on its own.
  const then = inQueryTime ? ' (then)' : '';
  return `${score.toFixed(3)}  ${session.id}#${turn.index}  ${inline(turn.speaker)}${when}${then}: ${oneLine(turn.text, 120)}`;
}

/** Why options given do not fit the type searched (only sessions have a conversation and times), if they do not. */
function misfit(
  type: string,
  options: { explain: boolean; conversation?: string; from?: string; to?: string },
): string | undefined {
  const onlySessions = (['conversation', 'from', 'to'] as const).filter((name) => options[name] !== undefined);
  if (type !== 'session' && onlySessions.length) return `--${onlySessions[0]} is for --type session`;
  return type === 'session' && options.explain ? '--explain is for memory, skill and knowledge' : undefined;
}

export function registerSearchCommands(program: Command): void {
  withScopeOptions(withStoreOptions(program.command('search <query>')))
    .description('full-text search, best first (memories by default)')
    .option('--type <type>', `what to search: ${SEARCHABLE.join(', ')}`, 'memory')
    .option('--limit <n>', 'most results (at most 200)', parseInteger('--limit'), 10)
    .option('--shared', 'also search the shared scope (skills, knowledge)', false)
    .option('--explain', 'show each part of every score', false)
    .option('--conversation <id>', 'sessions: only this conversation')
    .option('--from <time>', 'sessions: only turns said at or after this ISO 8601 time')
    .option('--to <time>', 'sessions: only turns said before this ISO 8601 time')
    .action(
      async (
        query: string,
        options: ScopeOptions & {
          type: string;
          limit: number;
          shared: boolean;
          explain: boolean;
          conversation?: string;
          from?: string;
          to?: string;
        },
      ) => {
        const type = assertEntityType(options.type);
        const wrong = misfit(type, options);
        // Bad usage, as commander reports it (exit status 2), not ignored.
        if (wrong) program.error(`error: ${wrong}`, { exitCode: 2 });
        if (type === 'session') {
          const narrowing = { conversationId: options.conversation, from: options.from, to: options.to };
          const hits = await withMemory(options, (memory) =>
            memory.sessions.search(options.agent, options.user, query, options.limit, narrowing),
          );
          if (options.json) return printJson(hits);
          return print(hits.length ? hits.map(turnLine).join('\n') : 'no results');
        }
        const searchOptions = { includeShared: options.shared, explain: options.explain };
        const results = await withMemory(options, async (memory): Promise<SearchResult[]> => {
          if (type === 'memory')
            return memory.memories.search(options.agent, options.user, query, options.limit, searchOptions);
          if (type === 'skill') return memory.skills.search(options.agent, query, options.limit, searchOptions);
          if (type === 'knowledge') return memory.knowledge.search(options.agent, query, options.limit, searchOptions);
          throw new MemoryError('INVALID_INPUT', `Search covers ${SEARCHABLE.join(', ')}, not ${type}.`);
        });
        if (options.json) return printJson(results);
        if (results.length === 0) return print('no results');
        for (const result of results) {
          print(resultLine(result));
          if (result.explain) {
            const e = result.explain;
            print(
              `       relevance ${e.relevance.toFixed(3)} (bm25 ${e.bm25.toFixed(2)})  tags ${e.tagOverlap.toFixed(3)}  recency ×${e.recency.toFixed(3)}  access ×${e.access.toFixed(3)}`,
            );
          }
        }
      },
    );

  withWorkspaceOption(withScopeOptions(withStoreOptions(program.command('recall <query>'))))
    .description(
      'the context a model would get for a query: profile, memories, skills, knowledge and turns of past conversations within a budget',
    )
    .option('--max-items <n>', 'most items', parseInteger('--max-items'), 20)
    .option('--max-chars <n>', 'most characters', parseInteger('--max-chars'), 8000)
    .option('--max-tokens <n>', 'most tokens (estimated as characters / 4)', parseInteger('--max-tokens'))
    .option('--no-profile', 'leave the profile out')
    .option('--no-shared', 'leave shared skills and knowledge out')
    .option('--no-conversations', 'leave the turns of past conversations out')
    .addOption(
      new Option(
        '--reasoning <mode>',
        'have the chat model (WORKSPACE_MEMORY_CHAT_URL, _MODEL) rewrite the query or search step by step',
      )
        .choices(REASONING_MODES)
        .default('none'),
    )
    .option('--rerank', 'have the chat model order the best candidates', false)
    .addOption(
      new Option(
        '--stale <mode>',
        'memories and skills whose cited code changed or is gone: mark them, exclude them or ignore it',
      )
        .choices(STALENESS_MODES)
        .default('mark'),
    )
    .action(
      async (
        query: string,
        options: ScopeOptions & {
          maxItems: number;
          maxChars: number;
          maxTokens?: number;
          profile: boolean;
          shared: boolean;
          conversations: boolean;
          reasoning: ReasoningMode;
          rerank: boolean;
          stale: StalenessMode;
          workspace?: string;
        },
      ) => {
        const reasoned = wantsReasoning(options);
        const result = await interruptible((signal) =>
          withMemory(options, (memory) =>
            memory.recall(options.agent, options.user, query, {
              maxItems: options.maxItems,
              maxChars: options.maxChars,
              maxTokens: options.maxTokens,
              includeProfile: options.profile,
              includeSharedSkills: options.shared,
              includeSharedKnowledge: options.shared,
              staleness: options.stale,
              ...(options.conversations ? {} : { collections: recallCollections(false) }),
              ...(reasoned
                ? { reasoning: options.reasoning, rerank: options.rerank, ai: chatIfConfigured(), signal }
                : {}),
            }),
          ),
        );
        if (options.json) return printJson(result);
        print(recallText(result, query));
        const turns = result.turns.length ? ` and ${counted(result.turns.length, 'turn')} of past conversations` : '';
        printError(
          `${counted(result.items.length, 'item')}${turns}, ${counted(result.chars, 'character')}, ~${counted(result.tokens, 'token')}`,
        );
        if (result.reasoning) printError(reasoningLine(result.reasoning));
      },
    );

  withStoreOptions(program.command('embed'))
    .description(
      'add embeddings to everything that lacks them (needs WORKSPACE_MEMORY_EMBED_URL and _MODEL); Ctrl-C stops',
    )
    .option('--batch <n>', 'entities per request', parseInteger('--batch'), 32)
    .action(async (options: GlobalOptions & { batch: number }) => {
      const report = await interruptible((signal) =>
        withMemory(options, async (memory) => {
          if (!memory.embeddings) {
            throw new MemoryError(
              'INVALID_INPUT',
              'No embedder: set WORKSPACE_MEMORY_EMBED_URL and WORKSPACE_MEMORY_EMBED_MODEL.',
            );
          }
          return memory.embeddings.backfill({ batchSize: options.batch, signal, onProgress: progress('embedded') });
        }),
      );
      if (options.json) printJson(report);
      else
        print(
          `${report.cancelled ? 'stopped' : 'done'}: embedded ${report.embedded} with ${report.model}, ${report.remaining} left, ${counted(report.pruned, 'old vector')} removed`,
        );
    });

  withStoreOptions(program.command('reindex'))
    .description('rebuild the full-text index from the stored entities')
    .action(async (options: GlobalOptions) => {
      const count = await withMemory(options, (memory) => memory.rebuildIndex());
      if (options.json) printJson({ indexed: count });
      else print(`indexed ${counted(count, 'entity', 'entities')}`);
    });
}
