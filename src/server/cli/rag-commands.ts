import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Command } from 'commander';

import { MemoryError } from '../../core/errors';
import { DEFAULT_DOC_EXTENSIONS } from '../../core/rag/loader';
import type { RagQueryResult, SyncProgress, SyncReport } from '../../core/rag/rag';
import {
  agentOption,
  chatFromEnvironment,
  type GlobalOptions,
  interruptible,
  parseInteger,
  withMemory,
  withStoreOptions,
} from './context';
import { counted, inline, print, printJson, printProgress } from './output';
import { snippetOf } from './snippet';
import { shellWord } from './suggested-command';

/**
 * The progress line of a sync: the count covers the whole job (files
 * checked, then documents written), the phase says which part it is in.
 */
export function syncProgressText({ phase, done, total }: SyncProgress): string {
  return `${done} of ${total}: ${phase === 'reading' ? 'reading files' : 'writing chunks'}`;
}

/**
 * `rag sync` of a file is refused before the store opens, in the CLI's terms:
 * the library's own refusal names its functions, which a CLI user cannot call.
 */
function assertFolder(target: string): void {
  if (!fs.statSync(target, { throwIfNoEntry: false })?.isFile()) return;
  throw new MemoryError(
    'INVALID_INPUT',
    `${target} is a file; rag sync mirrors a folder (and removes what is gone from it). ` +
      `Add or refresh the file with \`workspace-memory rag ingest ${shellWord(target)}\`, ` +
      `or mirror its folder with \`workspace-memory rag sync ${shellWord(path.dirname(target))}\`.`,
  );
}

interface RagOptions extends GlobalOptions {
  agent: string;
}

function summary(report: SyncReport): string {
  const lines = [
    ...report.added.map((path) => `added     ${inline(path)}`),
    ...report.updated.map((path) => `updated   ${inline(path)}`),
    ...report.renamed.map(({ from, to }) => `renamed   ${inline(from)} -> ${inline(to)}`),
    ...report.removed.map((path) => `removed   ${inline(path)}`),
    ...report.skipped.map((file) => `skipped   ${inline(file.path)}: ${inline(file.reason)}`),
  ];
  const { added, updated, removed } = report.chunks;
  lines.push(
    `${report.cancelled ? 'stopped' : 'done'}: ${report.added.length} added, ${report.updated.length} updated, ${report.renamed.length} renamed, ${report.removed.length} removed, ${report.unchanged} unchanged, ${report.skipped.length} skipped (chunks +${added} ~${updated} -${removed})`,
  );
  return lines.join('\n');
}

/**
 * Each chunk as its number, file and line, heading, and the line that best
 * matches the question (the whole chunks are `--full`, or `--json`). The
 * numbers are the ones an `--answer` cites.
 */
function snippets(result: RagQueryResult, question: string): string {
  return result.chunks
    .map(({ entity }, index) => {
      const snippet = snippetOf(entity.content, question);
      const line = entity.startLine === undefined ? '' : `:${entity.startLine + snippet.lineInChunk}`;
      const heading = entity.headingPath?.length ? ` — ${entity.headingPath.join(' › ')}` : '';
      return `[${index + 1}] ${inline(`${entity.source ?? entity.id}${line}${heading}`)}\n    ${snippet.text}`;
    })
    .join('\n');
}

/**
 * What the documents under `target` are called in the store: their path from
 * the current folder, as VS Code names a workspace's documents from its root
 * ("docs/deploy.md"), so citations open from there, and so that syncing
 * another folder mirrors only that folder's documents instead of removing
 * these. A folder outside the current one goes by its own name. A file is
 * named from its folder.
 */
export function documentPrefix(target: string, explicit?: string): string | undefined {
  if (explicit !== undefined) return explicit.trim() === '' || explicit.trim() === '.' ? undefined : explicit;
  const absolute = path.resolve(target);
  const folder = fs.statSync(absolute, { throwIfNoEntry: false })?.isFile() ? path.dirname(absolute) : absolute;
  const relative = path.relative(process.cwd(), folder);
  if (relative === '') return undefined;
  if (relative.startsWith('..') || path.isAbsolute(relative)) return path.basename(folder);
  return relative.split(path.sep).join('/');
}

function withAgent(command: Command): Command {
  return withStoreOptions(command).addOption(agentOption());
}

/** Each chunk whole under its number, place and heading: for people (a model gets result.context, framed as data). */
function fullChunks(result: RagQueryResult): string {
  return result.chunks
    .map(({ entity, citation }, index) => {
      const heading = entity.headingPath?.length ? ` — ${entity.headingPath.join(' › ')}` : '';
      return inline(`[${index + 1}] ${citation}${heading}`) + `\n${entity.content.trim()}`;
    })
    .join('\n\n');
}

export function registerRagCommands(program: Command): void {
  const rag = program.command('rag').description('documents as searchable knowledge: ingest, sync, query, status');

  for (const [name, description] of [
    ['ingest', 'add or refresh the documents under a path (removes nothing)'],
    ['sync', 'mirror a folder: add new, update changed, remove deleted, follow renames'],
  ] as const) {
    withAgent(rag.command(`${name} <path>`))
      .description(description)
      .option('--ext <list>', 'more file extensions to include, e.g. .ts,.py')
      .option('--strategy <name>', 'chunking: fixed, paragraph or markdown (default: by extension)')
      .option('--max-chars <n>', 'largest chunk', parseInteger('--max-chars'))
      .option('--rechunk', 'chunk unchanged files again too (after changing --strategy or --max-chars)')
      .option(
        '--prefix <name>',
        'what the folder is called in the store (default: its path from the current folder, or its name when outside it; "." for none)',
      )
      .action(
        async (
          path: string,
          options: RagOptions & {
            ext?: string;
            strategy?: string;
            maxChars?: number;
            rechunk?: boolean;
            prefix?: string;
          },
        ) => {
          if (options.strategy && !['fixed', 'paragraph', 'markdown'].includes(options.strategy)) {
            throw new MemoryError(
              'INVALID_INPUT',
              `Unknown chunking strategy "${options.strategy}"; use fixed, paragraph or markdown.`,
            );
          }
          if (name === 'sync') assertFolder(path);
          const prefix = documentPrefix(path, options.prefix);
          const report = await interruptible((signal) =>
            withMemory(options, (memory) =>
              memory.rag[name](path, options.agent, {
                ...(options.ext ? { extensions: defaultPlus(options.ext) } : {}),
                ...(options.strategy ? { strategy: options.strategy as 'fixed' | 'paragraph' | 'markdown' } : {}),
                ...(options.maxChars !== undefined ? { maxChars: options.maxChars } : {}),
                ...(options.rechunk ? { rechunk: true } : {}),
                ...(prefix ? { sourcePrefix: prefix } : {}),
                signal,
                onProgress: (step) => printProgress(syncProgressText(step)),
              }),
            ),
          );
          if (options.json) printJson(report);
          else print(summary(report));
        },
      );
  }

  withAgent(rag.command('query <question>'))
    .description('the document chunks that best answer a question, with citations; --answer asks a chat model')
    .option('--limit <n>', 'most chunks', parseInteger('--limit'), 5)
    .option('--answer', 'answer from the chunks with the chat model in WORKSPACE_MEMORY_CHAT_URL/_MODEL', false)
    .option('--full', 'print the whole chunks, not a line of each', false)
    .action(async (question: string, options: RagOptions & { limit: number; answer: boolean; full: boolean }) => {
      const ai = options.answer ? chatFromEnvironment('--answer') : undefined;
      const result = await withMemory(options, (memory) =>
        memory.rag.query(options.agent, question, { limit: options.limit, ai }),
      );
      if (options.json) return printJson(result);
      if (result.answer) print(`${result.answer}\n\n---\n`);
      if (result.chunks.length === 0) return print('no matching documents');
      print(options.full ? fullChunks(result) : snippets(result, question));
    });

  withAgent(rag.command('status'))
    .description('the documents ingested for an agent and their chunks')
    .action(async (options: RagOptions) => {
      const status = await withMemory(options, (memory) => Promise.resolve(memory.rag.status(options.agent)));
      if (options.json) return printJson(status);
      status.documents.forEach((document) => print(`${String(document.chunks).padStart(5)}  ${inline(document.path)}`));
      print(`${counted(status.files, 'file')}, ${counted(status.chunks, 'chunk')}`);
    });
}

function defaultPlus(list: string): string[] {
  const extra = list.split(',').map((ext) => (ext.trim().startsWith('.') ? ext.trim() : `.${ext.trim()}`));
  return [...DEFAULT_DOC_EXTENSIONS, ...extra.filter((ext) => ext.length > 1)];
}
