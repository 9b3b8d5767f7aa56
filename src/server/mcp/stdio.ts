import type { OperationScope } from '../../core/operations';
import { assertId, assertOptionalId } from '../../core/validation';
import { chatIfConfigured } from '../cli/context';
import { createMcpServer } from './server';
import { openServerStore } from './server-store';
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

/**
 * Serves the store over MCP on standard input and output until the client
 * hangs up (standard input ends) or the process gets SIGINT or SIGTERM;
 * then closes the store. Bad input never ends it: see GuardedStdioTransport.
 */
export async function serveStdio(options: StdioServeOptions): Promise<void> {
  // A bad agent or user would fail every call; refuse it once, before serving.
  assertId(options.scope.agentId, 'agent id');
  assertOptionalId(options.scope.userId, 'user id');
  const { memory, close } = await openServerStore({ dir: options.dir, review: options.review, log: logToStderr });
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
    await close();
  }
}
