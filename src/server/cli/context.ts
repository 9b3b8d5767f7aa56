import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';

import { OpenAiCompatibleEmbedder } from '../../core/ai/embedder';
import { OpenAiCompatibleChat } from '../../core/ai/provider';
import type { WorkspaceFolder } from '../../core/anchors/workspace-paths';
import { MemoryError } from '../../core/errors';
import { Memory } from '../../core/memory';
import type { OperationScope } from '../../core/operations';
import type { SecretPolicy } from '../../core/secrets/guard';
import { DEFAULT_TEAM_FOLDER, teamFolderPath } from '../../core/team/folder';
import type { Team } from '../../core/team/team';
import { CONTENT_LIMIT, IMPORT_LIMIT, type ReadLimit, sizeOf } from './files';
import { counted, endProgress, printError, printProgress } from './output';
import { dirArgument } from './suggested-command';

/** Options every command takes. */
export interface GlobalOptions {
  dir: string;
  json: boolean;
  /** The workspace folder citations name files in (withWorkspaceOption); the current folder by default. */
  workspace?: string;
}

/**
 * A variable of the environment, or undefined when it is unset, empty or
 * blank: `WORKSPACE_MEMORY_USER= workspace-memory ...` means "no user", not
 * a user whose id is empty.
 */
export function environmentValue(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
}

/** The store folder when --dir is not given; the CLI's and the MCP server's. */
export function defaultDir(): string {
  return environmentValue('WORKSPACE_MEMORY_DIR') ?? path.join(process.cwd(), '.workspace-memory');
}

/** The agent and user when --agent and --user are not given; the CLI's and the MCP server's. */
export function scopeFromEnvironment(): OperationScope {
  return {
    agentId: environmentValue('WORKSPACE_MEMORY_AGENT') ?? 'default',
    userId: environmentValue('WORKSPACE_MEMORY_USER'),
  };
}

/** Adds --dir and --json to a command. */
export function withStoreOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--dir <path>', 'the store folder (env WORKSPACE_MEMORY_DIR)').default(
        defaultDir(),
        '.workspace-memory',
      ),
    )
    .option('--json', 'print machine-readable JSON', false);
}

/** Adds --workspace, for commands that anchor or check citations. */
export function withWorkspaceOption(command: Command): Command {
  return command.option(
    '--workspace <path>',
    'the workspace folder cited paths are relative to (env WORKSPACE_MEMORY_WORKSPACE; default: the folder holding the .workspace-memory store, else the current folder)',
  );
}

/**
 * The one workspace folder the CLI and the MCP server know: --workspace,
 * WORKSPACE_MEMORY_WORKSPACE, or else the folder that holds the store when
 * it is a `.workspace-memory` folder (the default, in the workspace's root),
 * or else the current folder. Citations are relative to it, so checking
 * from a sub-folder must not read them against that sub-folder.
 */
export function workspaceFolder(given: string | undefined, storeDir?: string): WorkspaceFolder {
  const store = storeDir === undefined ? undefined : path.resolve(storeDir);
  const beside = store && path.basename(store) === '.workspace-memory' ? path.dirname(store) : undefined;
  const folder = path.resolve(given ?? environmentValue('WORKSPACE_MEMORY_WORKSPACE') ?? beside ?? process.cwd());
  return { name: path.basename(folder) || 'workspace', path: folder };
}

/** What withScopeOptions adds to a command's options. */
export interface ScopeOptions extends GlobalOptions {
  agent: string;
  user?: string;
}

/** The --agent option, for commands that work on an agent's data but no user's. */
export function agentOption(): Option {
  return new Option('--agent <id>', 'agent id (env WORKSPACE_MEMORY_AGENT)').default(scopeFromEnvironment().agentId);
}

/** Adds --agent and --user to a command. */
export function withScopeOptions(command: Command): Command {
  return command
    .addOption(agentOption())
    .addOption(new Option('--user <id>', 'user id (env WORKSPACE_MEMORY_USER)').default(scopeFromEnvironment().userId));
}

/**
 * The secret policy from WORKSPACE_MEMORY_SECRETS (redact, block or allow);
 * unset or empty keeps the default, redact. Anything else is refused when the
 * store opens, with the three names.
 */
export function secretPolicyFromEnvironment(): SecretPolicy | undefined {
  const value = process.env.WORKSPACE_MEMORY_SECRETS?.trim();
  return value ? (value as SecretPolicy) : undefined;
}

/**
 * The workspace's team folder (`.memory`, or WORKSPACE_MEMORY_TEAM_FOLDER,
 * relative to the workspace), whether it exists or not: a checkout without
 * it has no team memory, and the sync says so to the store. Refused when it
 * leads outside the workspace.
 */
export function teamFolderOf(workspace: string): string {
  return teamFolderPath(workspace, environmentValue('WORKSPACE_MEMORY_TEAM_FOLDER') ?? DEFAULT_TEAM_FOLDER);
}

/** Brings the team folder into the store, saying on standard error when files were left out. */
async function syncTeam(team: Team): Promise<void> {
  const { problems } = await team.sync();
  if (problems.length) {
    printError(
      `workspace-memory: warning: ${counted(problems.length, 'team file')} not taken in (see \`workspace-memory team status\`)`,
    );
  }
}

/**
 * Opens the store for one command and always closes it. Commands other than
 * `init` refuse to create a store by accident in a mistyped folder.
 */
export async function withMemory<T>(
  options: GlobalOptions,
  work: (memory: Memory) => Promise<T>,
  create = false,
  /** false: the command syncs the team folder itself (`team sync`), or must see the store as it is. */
  teamSync = true,
): Promise<T> {
  if (!create && !fs.existsSync(path.join(path.resolve(options.dir), 'memory.db'))) {
    throw new MemoryError(
      'NOT_FOUND',
      `No store in ${path.resolve(options.dir)}; run \`workspace-memory init${dirArgument(options.dir, defaultDir())}\` first.`,
    );
  }
  const workspace = workspaceFolder(options.workspace, options.dir);
  const teamFolder = teamFolderOf(workspace.path);
  const memory = await Memory.open({
    dir: options.dir,
    writer: { kind: 'cli' },
    secrets: secretPolicyFromEnvironment(),
    // Only `init` may turn an empty store file into a new store; any other command says it is empty.
    init: create,
    embedder: embedderFromEnvironment(),
    workspaceFolders: [workspace],
    teamFolder,
    onWarning: (message) => printError(`workspace-memory: warning: ${message}`),
  });
  try {
    // What a pull or a checkout brought is in the team folder: every command sees it.
    if (memory.team && teamSync) await syncTeam(memory.team);
    return await work(memory);
  } finally {
    await memory.close();
  }
}

export function parseInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    // Commander reports an InvalidArgumentError as bad usage (exit status 2).
    if (!Number.isInteger(parsed)) throw new InvalidArgumentError(`${name} must be a whole number.`);
    return parsed;
  };
}

export function parseNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new InvalidArgumentError(`${name} must be a number.`);
    return parsed;
  };
}

export function parseJsonObject(name: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', `${name} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MemoryError('INVALID_INPUT', `${name} must be a JSON object.`);
  }
  return value as Record<string, unknown>;
}

/**
 * Standard input, read to its end but never past `limit` bytes: `cat
 * /dev/zero | workspace-memory save memory` is refused once it passes the
 * limit instead of filling memory. Defaults to the import limit (the longest
 * text Node can parse); content is read with the content limit.
 */
export async function readStdin(limit: ReadLimit = IMPORT_LIMIT): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    bytes += (chunk as Buffer).length;
    if (bytes > limit.maxBytes) {
      process.stdin.destroy();
      throw new MemoryError(limit.code, `Standard input is larger than ${sizeOf(limit.maxBytes)}, ${limit.why}.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * What was piped to the command, or undefined when nothing was: standard
 * input is a terminal (reading it would wait for someone to type) or it ends
 * without a byte (`< /dev/null`, or a caller that closed it).
 */
export async function pipedInput(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const text = await readStdin(CONTENT_LIMIT);
  return text === '' ? undefined : text;
}

/**
 * The exit status of a check that ran and found what it looks for (a stale
 * citation): distinct from 1, an error (the store could not be opened), and
 * 2, bad usage, so a CI job or hook can tell a finding from a broken run.
 */
export const FOUND_EXIT_CODE = 3;

/** The exit status a shell gives a command stopped by Ctrl-C (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;

/**
 * Runs `work` with a signal that Ctrl-C (SIGINT) aborts, so a long run stops
 * cleanly and reports what it did. An interrupted run still exits with 130,
 * so a script can tell a partial run from a complete one; a second Ctrl-C
 * kills the process as usual. Ends the progress line on a terminal.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', stop);
    endProgress();
    if (controller.signal.aborted) process.exitCode = INTERRUPTED_EXIT_CODE;
  }
}

/** Reports progress as "done of total unit" on one line, on a terminal only (it is not output). */
export function progress(unit: string): (step: { done: number; total: number }) => void {
  return ({ done, total }) => {
    printProgress(`${done} of ${total} ${unit}`);
  };
}

/**
 * Hybrid search is on when WORKSPACE_MEMORY_EMBED_URL and
 * WORKSPACE_MEMORY_EMBED_MODEL name an OpenAI-compatible embeddings endpoint
 * (WORKSPACE_MEMORY_EMBED_KEY if it needs one).
 */
export function embedderFromEnvironment(): OpenAiCompatibleEmbedder | undefined {
  const url = process.env.WORKSPACE_MEMORY_EMBED_URL;
  const model = process.env.WORKSPACE_MEMORY_EMBED_MODEL;
  if (!url && !model) return undefined;
  if (!url || !model) {
    throw new MemoryError(
      'INVALID_INPUT',
      'Set both WORKSPACE_MEMORY_EMBED_URL and WORKSPACE_MEMORY_EMBED_MODEL to use embeddings.',
    );
  }
  return new OpenAiCompatibleEmbedder({ url, model, apiKey: process.env.WORKSPACE_MEMORY_EMBED_KEY });
}

/**
 * The chat model reasoning and reranking use when a search or recall asks
 * for them (`call`, the MCP server): the one chatFromEnvironment names, or
 * none when neither variable is set (those requests then answer plainly and say so).
 */
export function chatIfConfigured(): OpenAiCompatibleChat | undefined {
  if (!process.env.WORKSPACE_MEMORY_CHAT_URL && !process.env.WORKSPACE_MEMORY_CHAT_MODEL) return undefined;
  return chatFromEnvironment('Reasoning');
}

/**
 * The chat model of the AI commands (`rag query --answer`, `mine`,
 * `consolidate`): an OpenAI-compatible endpoint named by
 * WORKSPACE_MEMORY_CHAT_URL and WORKSPACE_MEMORY_CHAT_MODEL
 * (WORKSPACE_MEMORY_CHAT_KEY if it needs one). `feature` names what needs it in the error.
 */
export function chatFromEnvironment(feature: string): OpenAiCompatibleChat {
  const url = process.env.WORKSPACE_MEMORY_CHAT_URL;
  const model = process.env.WORKSPACE_MEMORY_CHAT_MODEL;
  if (!url || !model) {
    throw new MemoryError(
      'INVALID_INPUT',
      `${feature} needs WORKSPACE_MEMORY_CHAT_URL and WORKSPACE_MEMORY_CHAT_MODEL (an OpenAI-compatible chat endpoint, e.g. Ollama).`,
    );
  }
  return new OpenAiCompatibleChat({ url, model, apiKey: process.env.WORKSPACE_MEMORY_CHAT_KEY });
}
