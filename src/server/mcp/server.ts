import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { isMemoryError } from '../../core/errors';
import { type OperationScope, type OperationStore, operationsFor, runOperation } from '../../core/operations';
import type { Operation, OperationSurface } from '../../core/operations/types';

export interface McpServerInfo {
  /** Reported to clients in the initialize handshake. */
  version?: string;
  /**
   * Which operations to serve: 'mcp' (default) is everything, `rag_query`
   * and the store-wide `stats`, `verify` and `export` included; 'tool' only
   * the agent-scoped ones the chat tools offer (`docs_search` stands in for
   * `rag_query`), for hosts (VS Code) that hand the server to agents which
   * must not see other agents' data.
   */
  surface?: Extract<OperationSurface, 'mcp' | 'tool'>;
}

const INSTRUCTIONS =
  "Long-term memory for this workspace: facts, decisions, procedures (skills), the workspace's documents and the user's profile, kept across conversations. Call memory_recall at the start of a task, save lasting facts with memory_save and procedures with skill_save, and cite document passages as path:line.";

function annotationsOf(operation: Operation): ToolAnnotations {
  return {
    title: operation.title,
    readOnlyHint: operation.effect === 'read',
    destructiveHint: operation.effect === 'destructive',
    // Nothing outside the local store is touched.
    openWorldHint: false,
  };
}

/** A failure goes back as a tool error the model can read and correct; the server keeps serving. */
function toolError(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: 'text', text: isMemoryError(error) ? `${message} [${error.code}]` : message }],
  };
}

/**
 * An MCP server offering every catalogue operation whose surfaces include
 * 'mcp', on `store`, in `scope`. Connect it to a transport; it does not
 * own the store (the caller closes it).
 */
export function createMcpServer(store: OperationStore, scope: OperationScope, info: McpServerInfo = {}): McpServer {
  const server = new McpServer(
    { name: 'workspace-memory', version: info.version ?? '0.0.0' },
    { instructions: INSTRUCTIONS },
  );
  const surface = info.surface ?? 'mcp';
  for (const operation of operationsFor(surface)) {
    server.registerTool(
      operation.name,
      {
        title: operation.title,
        description: operation.description,
        // The SDK lists this schema and checks arguments against it before the callback runs.
        inputSchema: operation.input,
        annotations: annotationsOf(operation),
      },
      async (args: unknown): Promise<CallToolResult> => {
        try {
          const result = await runOperation({ store, scope }, operation.name, args, surface);
          return { content: [{ type: 'text', text: result.text }], structuredContent: result.data };
        } catch (error) {
          return toolError(error);
        }
      },
    );
  }
  return server;
}
