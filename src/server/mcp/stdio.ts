import * as fs from 'node:fs';

import { Memory } from '../../core/memory';
import type { OperationScope } from '../../core/operations';
import type { Team } from '../../core/team/team';
import type { ReviewMode } from '../../core/trust/review-policy';
import { assertId, assertOptionalId } from '../../core/validation';
import {
  chatIfConfigured,
  embedderFromEnvironment,
  secretPolicyFromEnvironment,
  teamFolderOf,
  workspaceFolder,
} from '../cli/context';
import { createMcpServer } from './server';
import { GuardedStdioTransport } from './transport';

export interface StdioServeOptions {
  /** The store folder; created if missing, as an MCP client may start before anything was saved. */
  dir: string;
  scope: OperationScope;
  version: string;
  /** Serve only the agent-scoped tools (see McpServerInfo.surface). */
  scopedOnly?: boolean;
  /** `queue` or `immediate` for this client's writes; default: they wait for a person's review. */
  review?: string;
}

export const REVIEW_HELP =
  'queue (default: writes wait for a person to approve them) or immediate (env WORKSPACE_MEMORY_REVIEW)';

/**
 * What --scoped-only leaves out, for both entry points' help: it serves the
 * chat tools' set ('tool' surface), which has docs_search but not rag_query.
 */
export const SCOPED_ONLY_HELP =
  "serve only the agent's own chat tools (no store-wide stats, verify, export, no review_list, and no rag_query: use docs_search)";

const MAX_LOG_CHARS = 1000;

/**
 * Standard output carries the protocol, so anything for people goes to
 * standard error, one line per event. Messages can quote what a client
 * sent, so control characters (line breaks, terminal escapes) become
 * spaces and the line is cut short.
 */
export function logToStderr(message: string): void {
  // eslint-disable-next-line no-control-regex
  const line = message.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  process.stderr.write(
    `workspace-memory mcp: ${line.length > MAX_LOG_CHARS ? `${line.slice(0, MAX_LOG_CHARS)}…` : line}\n`,
  );
}

/** How long a burst of changes in the team folder settles before one sync. */
const TEAM_SETTLE_MS = 300;

/**
 * Syncs the team folder now and after every burst of changes to it; a sync
 * that fails is logged, and the server goes on with the store as it was.
 */
function watchTeamFolder(team: Team): { close(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = Promise.resolve();
  const sync = () => {
    running = running.then(async () => {
      try {
        const { problems } = await team.sync();
        if (problems.length)
          logToStderr(`team folder: ${problems.length} file(s) not taken in (see \`workspace-memory team status\`)`);
      } catch (error) {
        logToStderr(`team folder: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  };
  sync();
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(team.folder, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(sync, TEAM_SETTLE_MS);
    });
  } catch (error) {
    logToStderr(
      `team folder: not watched (${error instanceof Error ? error.message : String(error)}); synced at start only`,
    );
  }
  return {
    close: () => {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

/**
 * Serves the store over MCP on standard input and output until the client
 * hangs up (standard input ends) or the process gets SIGINT or SIGTERM;
 * then closes the store. Bad input never ends it: see GuardedStdioTransport.
 */
export async function serveStdio(options: StdioServeOptions): Promise<void> {
  // A bad agent or user would fail every call; refuse it once, before serving.
  assertId(options.scope.agentId, 'agent id');
  assertOptionalId(options.scope.userId, 'user id');
  const workspace = workspaceFolder(undefined, options.dir);
  const teamFolder = teamFolderOf(workspace.path);
  const memory = await Memory.open({
    dir: options.dir,
    writer: { kind: 'mcp' },
    secrets: secretPolicyFromEnvironment(),
    // The client's writes only: people approving in the same store write through their own shells.
    ...(options.review === undefined ? {} : { review: { mcp: options.review as ReviewMode } }),
    embedder: embedderFromEnvironment(),
    workspaceFolders: [workspace],
    teamFolder,
    onWarning: (message) => logToStderr(`warning: ${message}`),
  });
  // The team folder as it is now, and as pulls and checkouts change it while the server runs.
  const teamWatch = memory.team ? watchTeamFolder(memory.team) : undefined;
  const server = createMcpServer(memory, options.scope, {
    version: options.version,
    surface: options.scopedOnly ? 'tool' : 'mcp',
    ai: chatIfConfigured(),
  });
  // What the SDK's Protocol cannot act on (a reply to no request, a failing notification) is logged, not lost.
  server.onerror = (error) => logToStderr(`error: ${error.message}`);
  const stop = () => void server.close();
  try {
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve;
    });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await server.connect(new GuardedStdioTransport(process.stdin, process.stdout, { log: logToStderr }));
    logToStderr(
      `serving ${memory.dir} for agent ${options.scope.agentId}${options.scope.userId ? ` and user ${options.scope.userId}` : ''}`,
    );
    await closed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    teamWatch?.close();
    await memory.close();
  }
}
