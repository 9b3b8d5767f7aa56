import { Hono } from 'hono';

import type { AiProvider } from '../../core/ai/provider';
import { type OperationScope, operationsFor, type OperationStore } from '../../core/operations';
import { createMcpServer } from '../mcp/server';
import type { BindPlan } from './bind';
import { errorResponse, failureResponse } from './errors';
import { bearerGuard, drainGuard, originGuard } from './guards';
import { McpSessions } from './mcp-sessions';
import { openApiDocument } from './openapi';
import { registerOperationRoutes, SURFACE } from './rest';
import type { TokenCheck } from './token';

export interface AppOptions {
  store: OperationStore;
  scope: OperationScope;
  version: string;
  token: TokenCheck;
  bind: BindPlan;
  /** The port actually bound (--port 0 picks one), which Host headers must name. */
  port: number;
  /** True once the server has begun to shut down. */
  closing: () => boolean;
  /**
   * Aborted when a shutdown's grace period is over: the operations still
   * running (waiting on a model, say) are cancelled with it, as they are when
   * their client hangs up.
   */
  stopped?: AbortSignal;
  log: (line: string) => void;
  /** The model search and recall reason with when a client asks (see OperationContext.ai). */
  ai?: AiProvider;
}

export interface HttpApp {
  fetch: (request: Request) => Response | Promise<Response>;
  sessions: McpSessions;
}

/**
 * The whole HTTP surface: /health, then (with the token) /openapi.json,
 * /v1/<operation> for every operation the MCP server offers, and MCP itself
 * at /mcp; all of it from the one catalogue.
 */
export function createApp(options: AppOptions): HttpApp {
  const operations = operationsFor(SURFACE);
  const context = { store: options.store, scope: options.scope, ai: options.ai };
  const sessions = new McpSessions(() =>
    createMcpServer(options.store, options.scope, { version: options.version, ai: options.ai }),
  );
  let openApi: Record<string, unknown> | undefined;

  const app = new Hono();
  app.use(drainGuard(options.closing));
  app.use(originGuard(options.bind, options.port));
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.use(bearerGuard(options.token));
  app.get('/openapi.json', (c) => c.json((openApi ??= openApiDocument(operations, options.version))));
  registerOperationRoutes(app, operations, context, options.stopped);
  app.all('/mcp', (c) => sessions.handle(c.req.raw));
  app.notFound((c) =>
    errorResponse('NOT_FOUND', `No route ${c.req.method} ${c.req.path}; GET /openapi.json lists them.`),
  );
  app.onError((error) => failureResponse(error, options.log));
  return { fetch: (request) => app.fetch(request), sessions };
}
