import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';

import type { AiProvider } from '../../core/ai/provider';
import {
  jsonSchemaOf,
  type OperationScope,
  operationsFor,
  type OperationStore,
  runOperation,
} from '../../core/operations';
import type { Operation, OperationSurface } from '../../core/operations/types';
import { withProvenance } from '../../core/provenance';
import { toolError } from './tool-arguments';

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
  /** The model search and recall reason with when a client asks (see OperationContext.ai). */
  ai?: AiProvider;
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

function toolOf(operation: Operation): Tool {
  return {
    name: operation.name,
    title: operation.title,
    description: operation.description,
    // The same JSON Schema the chat tools' manifest lists; an operation's input is always a zod object.
    inputSchema: { ...jsonSchemaOf(operation), type: 'object' },
    annotations: annotationsOf(operation),
  };
}

/**
 * An MCP server offering every catalogue operation whose surfaces include
 * `surface`, on `store`, in `scope`. Connect it to a transport; it does not
 * own the store (the caller closes it).
 *
 * It is the SDK's low-level Server rather than McpServer so that the
 * catalogue alone validates arguments: McpServer checks them against the
 * schema first and answers with zod's own wording, where runOperation
 * names the tool and each bad field, the way the CLI's `call` and the chat
 * tools report it ("memory_save: `content`: … [INVALID_INPUT]").
 */
export function createMcpServer(store: OperationStore, scope: OperationScope, info: McpServerInfo = {}): Server {
  const surface = info.surface ?? 'mcp';
  const tools = operationsFor(surface).map(toolOf);
  const server = new Server(
    { name: 'workspace-memory', version: info.version ?? '0.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    try {
      // Every write records the client that made it, by the name and version it gave when it connected.
      const client = server.getClientVersion();
      const writer = { kind: 'mcp', name: client?.name, version: client?.version, tool: request.params.name } as const;
      const result = await withProvenance(writer, () =>
        runOperation(
          { store, scope, ai: info.ai, signal: extra.signal },
          request.params.name,
          request.params.arguments,
          surface,
        ),
      );
      return { content: [{ type: 'text', text: result.text }], structuredContent: result.data };
    } catch (error) {
      return toolError(error);
    }
  });
  return server;
}
