import { ClientNotificationSchema, ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

type MethodSchema = z.ZodType<unknown>;

/**
 * The MCP schema of each request and notification a client may send, by
 * method, from the SDK's own unions. The SDK checks them only inside a
 * handler, where a mismatch becomes a -32603 carrying the raw zod issue
 * list; checked here first, it is a -32602 that says what is wrong.
 */
function byMethod(schemas: readonly z.ZodObject<{ method: z.ZodLiteral<string> }>[]): Map<string, MethodSchema> {
  return new Map(schemas.map((schema) => [schema.shape.method.value, schema]));
}

const REQUESTS = byMethod(ClientRequestSchema.options);
const NOTIFICATIONS = byMethod(ClientNotificationSchema.options);

const SHOWN_ISSUES = 3;

/** One issue as "`path`: message", the path relative to `params`. */
function describeIssue(issue: z.core.$ZodIssue, dropFirst = 0): string {
  const path = issue.path.slice(dropFirst).map(String).join('.');
  return path ? `\`${path}\`: ${issue.message}` : issue.message;
}

/** The first few issues joined into one sentence (never the raw issue list). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], dropFirst = 0): string {
  const shown = issues.slice(0, SHOWN_ISSUES).map((issue) => describeIssue(issue, dropFirst));
  const more = issues.length > SHOWN_ISSUES ? `; and ${issues.length - SHOWN_ISSUES} more` : '';
  return `${shown.join('; ')}${more}`;
}

/**
 * Why `params` do not fit the MCP schema of `method`, or undefined when
 * they do or the method is not one MCP defines (the SDK answers that with
 * -32601 if no handler takes it).
 */
export function paramsProblem(kind: 'request' | 'notification', method: string, params: unknown): string | undefined {
  const schema = (kind === 'request' ? REQUESTS : NOTIFICATIONS).get(method);
  if (!schema) return undefined;
  const parsed = schema.safeParse(params === undefined ? { method } : { method, params });
  if (parsed.success) return undefined;
  return `Invalid params for ${method}: ${describeIssues(parsed.error.issues, 1)}.`;
}
