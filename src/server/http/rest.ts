import type { Context, Hono } from 'hono';

import { MemoryError } from '../../core/errors';
import {
  jsonSchemaOf,
  type Operation,
  type OperationContext,
  type OperationSurface,
  runOperation,
} from '../../core/operations';
import { withProvenance } from '../../core/provenance';
import { readJsonBody } from './body';
import { errorResponse } from './errors';

/**
 * The catalogue surface HTTP serves: the MCP server's, every operation
 * (the store-wide ones too), since the token gives the whole store anyway.
 */
export const SURFACE = 'mcp' satisfies OperationSurface;

/** Where every operation is served: `/v1/<name>`. */
export function routeOf(operation: Operation): string {
  return `/v1/${operation.name}`;
}

/** Read-only operations also answer GET, their arguments in the query string: `curl …/v1/memory_search?query=deploy`. */
export function hasGetAlias(operation: Operation): boolean {
  return operation.effect === 'read';
}

/** What a REST call answers: the operation's result as every surface gets it. */
interface RestResult {
  text: string;
  data: Record<string, unknown>;
}

/**
 * Registers the routes of `operations`, one rule for all: POST
 * `/v1/<name>` with the arguments as a JSON object body (none for an
 * operation without arguments), GET with them in the query string for the
 * read-only ones, 405 for any other method. Each call runs with a signal
 * (OperationContext.signal) that aborts when its client hangs up or when
 * `stopped` does, so a model call nobody waits for anymore stops.
 */
export function registerOperationRoutes(
  app: Hono,
  operations: readonly Operation[],
  context: Omit<OperationContext, 'signal'>,
  stopped?: AbortSignal,
): void {
  for (const operation of operations) {
    const route = routeOf(operation);
    const run = (c: Context, args: unknown) =>
      withRequestSignal(c.req.raw.signal, stopped, (signal) =>
        runAsHttpClient(c, operation, args, { ...context, signal }),
      );
    app.post(route, async (c) => run(c, bodyArguments(await readJsonBody(c.req.raw))));
    if (hasGetAlias(operation)) {
      const types = fieldTypes(operation);
      app.get(route, async (c) => run(c, queryArguments(types, new URL(c.req.url))));
    }
    const allow = hasGetAlias(operation) ? 'GET, POST' : 'POST';
    app.all(route, () => errorResponse('METHOD_NOT_ALLOWED', `${operation.name} answers ${allow}.`, { Allow: allow }));
  }
}

/**
 * Runs the operation in the server's scope. Its writes are recorded as a
 * program's (writer kind mcp, so they wait for review unless --review
 * immediate), named by the client's User-Agent as an MCP client is by the
 * name it gives.
 */
async function runAsHttpClient(
  c: Context,
  operation: Operation,
  args: unknown,
  context: OperationContext,
): Promise<Response> {
  const writer = { kind: 'mcp', name: c.req.header('user-agent') || 'HTTP client', tool: operation.name } as const;
  const result = await withProvenance(writer, () => runOperation(context, operation.name, args, SURFACE));
  const body: RestResult = { text: result.text, data: result.data };
  return c.json(body);
}

/**
 * Runs `work` with a signal that aborts with the request (its client hung
 * up, or its connection was cut) or with the server (`stopped`). The
 * server's signal lives as long as the server: the listener on it goes
 * with the request.
 */
async function withRequestSignal<T>(
  request: AbortSignal,
  stopped: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (!stopped) return work(request);
  const controller = new AbortController();
  const abort = (source: AbortSignal) => () => controller.abort(source.reason);
  const onRequest = abort(request);
  const onStopped = abort(stopped);
  if (request.aborted) onRequest();
  else if (stopped.aborted) onStopped();
  request.addEventListener('abort', onRequest, { once: true });
  stopped.addEventListener('abort', onStopped, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    request.removeEventListener('abort', onRequest);
    stopped.removeEventListener('abort', onStopped);
  }
}

function bodyArguments(body: unknown): unknown {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MemoryError('INVALID_INPUT', "The body must be a JSON object of the operation's arguments.");
  }
  return body;
}

/**
 * The query string as arguments, each value turned into the type the
 * operation's schema gives it: numbers for integer and number fields,
 * true/false for booleans, every value of a repeated key for a list. A
 * value that does not convert is passed on as text, so the catalogue's
 * check names the field and what it should be.
 */
function queryArguments(types: ReadonlyMap<string, unknown>, url: URL): Record<string, unknown> {
  // fromEntries makes a `__proto__` key an own property, which the catalogue then refuses by name.
  return Object.fromEntries(
    [...new Set(url.searchParams.keys())].map((key) => {
      const values = url.searchParams.getAll(key);
      const type = types.get(key);
      return [key, type === 'array' ? values : convert(values[values.length - 1] ?? '', type)];
    }),
  );
}

/** Each argument's JSON Schema type, read once per operation. */
function fieldTypes(operation: Operation): ReadonlyMap<string, unknown> {
  const properties = (jsonSchemaOf(operation).properties ?? {}) as Record<string, { type?: unknown }>;
  return new Map(Object.entries(properties).map(([name, field]) => [name, field.type]));
}

function convert(value: string, type: unknown): unknown {
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}
