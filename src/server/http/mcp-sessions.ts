import { randomUUID } from 'node:crypto';

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { isMemoryError } from '../../core/errors';
import { type ErrorReply, errorReply, INVALID_REQUEST, PARSE_ERROR } from '../mcp/jsonrpc-errors';
import { checkValue, type Verdict } from '../mcp/message-check';
import { readJsonBody } from './body';
import { closingIfTooLarge } from './errors';

/** Sessions kept at once; past it, the one unused the longest is closed to make room. */
export const MAX_SESSIONS = 100;

/** The SDK's code and words for an unknown or closed session, which tell a client to initialize again. */
const SESSION_NOT_FOUND = -32001;

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
}

/**
 * MCP over the Streamable HTTP transport, in session mode: each client's
 * initialize starts a session with a server of its own (createMcpServer,
 * the stdio server's tools), which remembers the client's name so every
 * write it makes is recorded as that client's, as over stdio. Answers are
 * plain JSON, not SSE streams, and GET (a stream for messages the server
 * starts) is 405: these tools never send any, and an open stream would
 * only hold a connection.
 *
 * Every message goes through the stdio server's own check first
 * (checkValue): the same bad input gets the same answer on both transports,
 * and a tools/call whose arguments the SDK would silently change is
 * answered as a tool error before the SDK sees it.
 */
export class McpSessions {
  /** In order of last use, oldest first (a Map keeps insertion order; a use re-inserts). */
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly createServer: () => Server,
    private readonly maxSessions = MAX_SESSIONS,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request): Promise<Response> {
    if (request.method !== 'POST' && request.method !== 'DELETE') {
      return jsonRpcError(
        405,
        errorReply(null, INVALID_REQUEST, 'Method not allowed: use POST, or DELETE to end a session.'),
        {
          Allow: 'POST, DELETE',
        },
      );
    }
    const id = request.headers.get('mcp-session-id');
    const session = id === null ? undefined : this.use(id);
    if (id !== null && !session) {
      return jsonRpcError(404, errorReply(null, SESSION_NOT_FOUND, 'Session not found: initialize a new session.'));
    }
    if (request.method === 'DELETE') {
      return session ? session.transport.handleRequest(request) : sessionRequired();
    }
    const checked = await this.check(request);
    if (checked instanceof Response) return checked;
    if (session) return session.transport.handleRequest(request, { parsedBody: checked });
    if (!isInitializeRequest(checked)) return sessionRequired();
    return (await this.open()).transport.handleRequest(request, { parsedBody: checked });
  }

  /** Ends every session (at shutdown, once no request is in flight). */
  async closeAll(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close()));
  }

  private use(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session) {
      this.sessions.delete(id);
      this.sessions.set(id, session);
    }
    return session;
  }

  /** The body as a message for the SDK, or the answer that refuses it. */
  private async check(request: Request): Promise<JSONRPCMessage | Response> {
    let body: unknown;
    try {
      body = await readJsonBody(request);
    } catch (error) {
      if (!isMemoryError(error)) throw error;
      const status = error.code === 'CONTENT_TOO_LARGE' ? 413 : 400;
      const reply = errorReply(null, status === 413 ? INVALID_REQUEST : PARSE_ERROR, error.message);
      return jsonRpcError(status, reply, closingIfTooLarge(error.code));
    }
    const verdict: Verdict = body === undefined ? { kind: 'blank' } : checkValue(body);
    switch (verdict.kind) {
      case 'message':
        return verdict.message;
      case 'answered':
        return Response.json(verdict.reply);
      case 'refused': {
        const [first, ...more] = verdict.replies;
        const reply = first ?? errorReply(null, INVALID_REQUEST, verdict.reason);
        return jsonRpcError(400, more.length ? [reply, ...more] : reply);
      }
      case 'blank':
        return jsonRpcError(400, errorReply(null, PARSE_ERROR, 'Parse error: the body is empty.'));
    }
  }

  private async open(): Promise<Session> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
    });
    const server = this.createServer();
    const session: Session = { server, transport };
    // Chained by the SDK's connect: a session a client ends (DELETE) leaves the table.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await this.makeRoom();
    return session;
  }

  private async makeRoom(): Promise<void> {
    for (const [id, session] of this.sessions) {
      if (this.sessions.size < this.maxSessions) return;
      this.sessions.delete(id);
      await session.server.close();
    }
  }
}

function sessionRequired(): Response {
  return jsonRpcError(
    400,
    errorReply(null, INVALID_REQUEST, 'Bad Request: send the Mcp-Session-Id header the initialize answer gave.'),
  );
}

function jsonRpcError(status: number, body: ErrorReply | ErrorReply[], headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers });
}
