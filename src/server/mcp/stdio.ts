import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Memory } from '../../core/memory';
import type { OperationScope } from '../../core/operations';
import { assertId, assertOptionalId } from '../../core/validation';
import { embedderFromEnvironment } from '../cli/context';
import { createMcpServer } from './server';

export interface StdioServeOptions {
  /** The store folder; created if missing, as an MCP client may start before anything was saved. */
  dir: string;
  scope: OperationScope;
  version: string;
  /** Serve only the agent-scoped tools (see McpServerInfo.surface). */
  scopedOnly?: boolean;
}

/**
 * What --scoped-only leaves out, for both entry points' help: it serves the
 * chat tools' set ('tool' surface), which has docs_search but not rag_query.
 */
export const SCOPED_ONLY_HELP =
  "serve only the agent's own chat tools (no store-wide stats, verify, export, and no rag_query: use docs_search)";

/** Standard output carries the protocol, so anything for people goes to standard error. */
export function logToStderr(message: string): void {
  process.stderr.write(`workspace-memory mcp: ${message}\n`);
}

/**
 * Serves the store over MCP on standard input and output until the client
 * hangs up (standard input ends) or the process gets SIGINT or SIGTERM;
 * then closes the store.
 */
export async function serveStdio(options: StdioServeOptions): Promise<void> {
  // A bad agent or user would fail every call; refuse it once, before serving.
  assertId(options.scope.agentId, 'agent id');
  assertOptionalId(options.scope.userId, 'user id');
  const memory = await Memory.open({
    dir: options.dir,
    embedder: embedderFromEnvironment(),
    onWarning: (message) => logToStderr(`warning: ${message}`),
  });
  const server = createMcpServer(memory, options.scope, {
    version: options.version,
    surface: options.scopedOnly ? 'tool' : 'mcp',
  });
  const stop = () => void server.close();
  try {
    const closed = new Promise<void>((resolve) => {
      server.server.onclose = resolve;
    });
    // The SDK's stdio transport does not notice end of input by itself.
    process.stdin.once('end', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await server.connect(new StdioServerTransport());
    logToStderr(
      `serving ${memory.dir} for agent ${options.scope.agentId}${options.scope.userId ? ` and user ${options.scope.userId}` : ''}`,
    );
    await closed;
  } finally {
    process.stdin.off('end', stop);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await memory.close();
  }
}
