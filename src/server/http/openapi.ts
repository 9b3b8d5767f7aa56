import { z } from 'zod';

import type { Operation } from '../../core/operations';
import { hasGetAlias, routeOf } from './rest';

type Json = Record<string, unknown>;

/** The error answers every operation route can give, by status. */
const ERROR_STATUSES: Readonly<Record<string, string>> = {
  '400': 'The arguments or the body are invalid (code INVALID_INPUT and the like).',
  '401': 'The bearer token is missing or wrong.',
  '403': 'The Host or Origin header is not this server (a browser page of another site).',
  '404': 'What the arguments name does not exist.',
  '409': 'The request conflicts with the state of what it names.',
  '413': 'The body is over the size limit.',
  '500': 'The server failed.',
  '503': 'The store is busy (another process holds its write lock); try again.',
};

/** An operation's arguments as JSON Schema 2020-12, OpenAPI 3.1's dialect; defaulted fields are optional to the caller. */
function argumentsSchema(operation: Operation): Json {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(operation.input, { target: 'draft-2020-12', io: 'input' });
  return schema;
}

function errorResponses(): Json {
  return Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
}

function operationObject(operation: Operation, method: 'post' | 'get', schema: Json): Json {
  const common = {
    operationId: method === 'post' ? operation.name : `${operation.name}_get`,
    summary: operation.title,
    description: operation.description,
    tags: [operation.effect],
    responses: {
      '200': {
        description: 'The result: `text` for a model to read, `data` the structured result.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Result' } } },
      },
      ...errorResponses(),
    },
  };
  if (method === 'post') {
    const required = Array.isArray(schema.required) && schema.required.length > 0;
    return { ...common, requestBody: { required, content: { 'application/json': { schema } } } };
  }
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const parameters = Object.entries(properties).map(([name, field]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof field.description === 'string' ? { description: field.description } : {}),
    schema: field,
  }));
  return { ...common, parameters };
}

function pathItem(operation: Operation): Json {
  const schema = argumentsSchema(operation);
  return {
    post: operationObject(operation, 'post', schema),
    ...(hasGetAlias(operation) ? { get: operationObject(operation, 'get', schema) } : {}),
  };
}

const COMPONENTS: Json = {
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'The token in the store folder, file http-token (made at the first start).',
    },
  },
  schemas: {
    Result: {
      type: 'object',
      required: ['text', 'data'],
      properties: {
        text: { type: 'string', description: 'The result in words, naming the ids involved.' },
        data: { type: 'object', description: 'The structured result (what MCP sends as structuredContent).' },
      },
    },
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: {
              type: 'string',
              description:
                'The store error code (INVALID_INPUT, NOT_FOUND, …) or UNAUTHORIZED, FORBIDDEN, METHOD_NOT_ALLOWED, INTERNAL.',
            },
            message: { type: 'string' },
          },
        },
      },
    },
  },
};

const FIXED_PATHS: Json = {
  '/health': {
    get: {
      operationId: 'health',
      summary: 'Whether the server is up',
      description: 'Needs no token; says nothing about the store.',
      security: [],
      responses: {
        '200': {
          description: 'Up.',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
            },
          },
        },
      },
    },
  },
  '/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'MCP over the Streamable HTTP transport',
      description:
        'JSON-RPC messages of the Model Context Protocol, in session mode (the initialize answer carries the Mcp-Session-Id header to send back); the tools are the operations below. Answers are JSON, never SSE streams.',
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': { description: 'The JSON-RPC answer.', content: { 'application/json': { schema: { type: 'object' } } } },
        '202': { description: 'A notification or response was accepted.' },
        '400': { description: 'Not a valid MCP message, or no session.' },
        '404': { description: 'The session is unknown or closed: initialize again.' },
      },
    },
    delete: {
      operationId: 'mcp_end_session',
      summary: 'End an MCP session',
      responses: { '200': { description: 'Ended.' }, '404': { description: 'No such session.' } },
    },
  },
};

/** The OpenAPI 3.1 document of the server, generated from the operations it serves. */
export function openApiDocument(operations: readonly Operation[], version: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Memory',
      version,
      description:
        'The operations of a Workspace Memory store, as the MCP server and the CLI’s `call` offer them: POST /v1/<operation> with the arguments as a JSON object; read-only ones also answer GET with them in the query string.',
    },
    security: [{ bearer: [] }],
    tags: [
      { name: 'read', description: 'Reads only.' },
      { name: 'write', description: 'Writes; the previous state stays in the history.' },
      { name: 'destructive', description: 'Deletes, or replaces current content (kept in the history).' },
    ],
    paths: {
      ...FIXED_PATHS,
      ...Object.fromEntries(operations.map((operation) => [routeOf(operation), pathItem(operation)])),
    },
    components: COMPONENTS,
  };
}
