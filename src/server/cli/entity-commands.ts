import { type Command, InvalidArgumentError } from 'commander';

import { MemoryError } from '../../core/errors';
import { redactedKinds } from '../../core/secrets/guard';
import { type CitationRequest, type CommitInfo, type Entity, ENTITY_TYPES, type EntityType } from '../../core/types';
import { assertEntityType } from '../../core/validation';
import {
  defaultDir,
  type GlobalOptions,
  parseInteger,
  parseJsonObject,
  pipedInput,
  type ScopeOptions,
  withMemory,
  withScopeOptions,
  withStoreOptions,
  withWorkspaceOption,
} from './context';
import { readContentFile } from './files';
import {
  counted,
  deletedLine,
  entityDetail,
  entityLine,
  historyLines,
  print,
  printError,
  printJson,
  teamReminder,
} from './output';
import { dirArgument } from './suggested-command';

interface FieldOptions {
  content?: string;
  file?: string;
  tags?: string;
  category?: string;
  status?: string;
  source?: string;
  conversation?: string;
  input?: string;
  cite: CitationRequest[];
  appliesTo: string[];
}

/** `--cite src/app.ts:10-24` (or `:10` for one line) as a citation request; anything else is bad usage. */
function parseCitation(value: string, previous: CitationRequest[]): CitationRequest[] {
  const match = /^(.+):([1-9]\d*)(?:-([1-9]\d*))?$/.exec(value);
  if (!match) {
    throw new InvalidArgumentError(`--cite takes path:line or path:start-end, lines from 1 (got "${value}").`);
  }
  const startLine = Number(match[2]);
  return [...previous, { path: match[1]!, startLine, endLine: match[3] === undefined ? startLine : Number(match[3]) }];
}

/** Options that set entity fields; shared by save and update. */
function withFieldOptions(command: Command): Command {
  return command
    .option('--content <text>', 'the content (or --file, or standard input)')
    .option('--file <path>', 'read the content from a file')
    .option('--tags <list>', 'comma-separated tags')
    .option(
      '--category <name>',
      'memory: fact|decision|issue|task|correction; skill: procedure|configuration|troubleshooting|workflow',
    )
    .option('--status <name>', 'skill status: active|deprecated|draft')
    .option('--source <path>', 'knowledge source')
    .option('--conversation <id>', 'session conversation id')
    .option('--input <json>', 'any other fields as a JSON object (messages, metadata, questions, ...)')
    .option(
      '--cite <path:lines>',
      'memory, skill: cite lines of a workspace file, e.g. src/app.ts:10-24 (repeat for more; update replaces them all)',
      parseCitation,
      [],
    )
    .option(
      '--applies-to <glob>',
      'memory, skill: the kind of file it is about, e.g. "src/**/*.test.ts" (repeat for more; update replaces them all)',
      (glob: string, previous: string[]) => [...previous, glob],
      [],
    );
}

/**
 * The fields the options give. `save` always needs content, so it reads what
 * was piped in when no option gives it; `update` reads standard input only
 * when no field option was given at all (`update <id> --tags a` in a loop
 * over a file must not take the rest of the file as the new content).
 */
async function fieldsFrom(options: FieldOptions, stdin: 'when-needed' | 'alone'): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = options.input ? parseJsonObject('--input', options.input) : {};
  const alone =
    Object.keys(fields).length === 0 &&
    [options.tags, options.category, options.status, options.source, options.conversation].every(
      (option) => option === undefined,
    ) &&
    options.cite.length === 0 &&
    options.appliesTo.length === 0;
  const content = await contentOf(options, fields, stdin === 'when-needed' || alone);
  if (content !== undefined) fields.content = content;
  if (options.tags !== undefined) fields.tags = options.tags.split(',');
  if (options.category !== undefined) fields.category = options.category;
  if (options.status !== undefined) fields.status = options.status;
  if (options.source !== undefined) fields.source = options.source;
  if (options.conversation !== undefined) fields.conversationId = options.conversation;
  if (options.cite.length) fields.citations = options.cite;
  if (options.appliesTo.length) fields.appliesTo = options.appliesTo;
  return fields;
}

/**
 * The content from --content, from --file, or else from what was piped in;
 * undefined when there is none (an update of tags only), or when --input
 * carries the content or a session's messages.
 */
async function contentOf(
  options: FieldOptions,
  input: Record<string, unknown>,
  readPiped: boolean,
): Promise<string | undefined> {
  if (options.content !== undefined) return options.content;
  if (options.file !== undefined) return readContentFile(options.file);
  if (!readPiped || input.content !== undefined || input.messages !== undefined) return undefined;
  // `echo text | workspace-memory save ...` ends the text with a newline that is not part of it.
  return (await pipedInput())?.replace(/\n$/, '');
}

export function registerEntityCommands(program: Command): void {
  withWorkspaceOption(withFieldOptions(withScopeOptions(withStoreOptions(program.command('save <type>')))))
    .description(`save a new entity (${ENTITY_TYPES.join(', ')})`)
    .option('--dedup', 'memory, skill, knowledge: update a near-duplicate instead of adding', false)
    .action(
      async (
        type: string,
        options: GlobalOptions & FieldOptions & { agent: string; user?: string; dedup: boolean },
      ) => {
        const entityType = assertEntityType(type);
        const fields = await fieldsFrom(options, 'when-needed');
        if (fields.content === undefined && fields.messages === undefined) {
          throw new MemoryError('INVALID_INPUT', 'Give the content with --content, --file or on standard input.');
        }
        const [entity, commit, dedup] = await withMemory(options, async (memory) => {
          if (!options.dedup)
            return [
              ...(await memory.collection(entityType).save(options.agent, options.user, fields)),
              undefined,
            ] as const;
          if (entityType === 'memory')
            return memory.memories.saveOrUpdate(options.agent, options.user, fields as never);
          if (entityType === 'skill') return memory.skills.saveOrUpdate(options.agent, fields as never);
          if (entityType === 'knowledge') return memory.knowledge.saveOrUpdate(options.agent, fields as never);
          throw new MemoryError('INVALID_INPUT', `--dedup works for memory, skill and knowledge, not ${entityType}.`);
        });
        if (options.json) printJson({ entity, commit, ...(dedup ? { deduplicated: dedup.deduplicated } : {}) });
        else if (dedup?.deduplicated) print(`updated near-duplicate ${entity.id} (commit ${commit.hash.slice(0, 12)})`);
        else print(`saved ${entity.id} (commit ${commit.hash.slice(0, 12)})`);
        // Said on standard error: the command did what it was asked, with this one change.
        const redacted = typeof entity.content === 'string' ? redactedKinds(entity.content) : [];
        if (redacted.length && !options.json) {
          printError(`workspace-memory: a secret was redacted before it was stored (${redacted.join(', ')})`);
        }
      },
    );

  withStoreOptions(program.command('get <id>'))
    .description('show an entity')
    .action(async (id: string, options: GlobalOptions) => {
      const { entity, versions } = await withMemory(options, async (memory) => {
        const entity = await memory.get(id);
        // A deleted entity keeps its history: the way to its content is worth a line.
        return { entity, versions: entity ? 0 : (await memory.history(id)).length };
      });
      if (!entity && versions > 0) {
        const history = `workspace-memory history ${id}${dirArgument(options.dir, defaultDir())}`;
        throw new MemoryError(
          'NOT_FOUND',
          `${id} was deleted; its history (${counted(versions, 'version')}) is kept: see \`${history}\`.`,
        );
      }
      if (!entity) throw new MemoryError('NOT_FOUND', `No entity with id ${id}.`);
      if (options.json) printJson(entity);
      else print(entityDetail(entity));
    });

  withScopeOptions(withStoreOptions(program.command('list <type>')))
    .description('list entities of a type, newest first')
    .option('--limit <n>', 'page size (at most 200)', parseInteger('--limit'), 50)
    .option('--offset <n>', 'skip this many', parseInteger('--offset'), 0)
    .action(
      async (
        type: string,
        options: ScopeOptions & {
          limit: number;
          offset: number;
        },
      ) => {
        const entityType: EntityType = assertEntityType(type);
        const page = await withMemory(options, (memory) =>
          memory.collection(entityType).listPaginated(options.agent, options.user, {
            limit: options.limit,
            offset: options.offset,
            withTeam: true,
          }),
        );
        if (options.json) printJson(page);
        else {
          page.items.forEach((entity) => print(entityLine(entity)));
          print(
            `${page.offset + page.items.length} of ${page.total}${page.hasMore ? ` (more: --offset ${page.offset + page.items.length})` : ''}`,
          );
        }
      },
    );

  withStoreOptions(program.command('history <id>'))
    .description("show an entity's commits, newest first (also after a delete)")
    .action(async (id: string, options: GlobalOptions) => {
      const entries = await withMemory(options, (memory) => memory.history(id));
      if (entries.length === 0) throw new MemoryError('NOT_FOUND', `No history for ${id}.`);
      if (options.json) printJson(entries);
      else print(historyLines(entries));
    });

  withWorkspaceOption(withFieldOptions(withStoreOptions(program.command('update <id>'))))
    .description('write a new version of an entity with the given fields changed')
    .action(async (id: string, options: GlobalOptions & FieldOptions) => {
      const fields = await fieldsFrom(options, 'alone');
      if (Object.keys(fields).length === 0)
        throw new MemoryError(
          'INVALID_INPUT',
          'Nothing to update: give the content (--content, --file or standard input) or another field option.',
        );
      const [entity, commit] = await withMemory(options, async (memory) => {
        const current = await memory.get(id);
        if (!current) throw new MemoryError('NOT_FOUND', `No entity with id ${id}.`);
        return memory.collection(current.type).update(id, fields);
      });
      if (options.json) printJson({ entity, commit });
      else print(`updated ${entity.id} (commit ${commit.hash.slice(0, 12)})${teamReminder(entity)}`);
    });

  withStoreOptions(program.command('delete <ids...>'))
    .description('delete entities; their history is kept')
    .action(async (ids: string[], options: GlobalOptions) => {
      const deleted = await withMemory(options, async (memory) => {
        const byType = new Map<EntityType, Entity[]>();
        // `delete a a` deletes a once.
        for (const id of new Set(ids)) {
          const entity = await memory.get(id);
          if (!entity) throw new MemoryError('NOT_FOUND', `No entity with id ${id}; nothing was deleted.`);
          byType.set(entity.type, [...(byType.get(entity.type) ?? []), entity]);
        }
        const all: { entity: Entity; commit: CommitInfo | null }[] = [];
        for (const [type, group] of byType) {
          const commits = await memory.collection(type).deleteMany(group.map((entity) => entity.id));
          group.forEach((entity, index) => all.push({ entity, commit: commits[index] ?? null }));
        }
        return all;
      });
      if (options.json) printJson(deleted.map(({ commit }) => commit));
      else deleted.forEach(({ entity, commit }) => commit && print(`${deletedLine(entity)}${teamReminder(entity)}`));
    });
}
