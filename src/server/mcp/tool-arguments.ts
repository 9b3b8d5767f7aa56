import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { isMemoryError } from '../../core/errors';
import { findJsonProblem } from '../../core/json-guard';
import { findOperation } from '../../core/operations/catalogue';
import { assertJsonInput, LIMITS } from '../../core/validation';

/** A failure goes back as a tool error the model can read and correct; the server keeps serving. */
export function toolError(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: 'text', text: isMemoryError(error) ? `${message} [${error.code}]` : message }],
  };
}

/**
 * The tool error for a tools/call whose raw `arguments` hold a forbidden
 * key (`__proto__`), or undefined. It must be looked for in the message as
 * parsed, before the SDK sees it: the SDK's schema for tools/call copies
 * `arguments` key by key, and assigning an own `__proto__` key sets the
 * copy's prototype instead, so a top-level one never reaches the
 * catalogue's own check (parseArguments), and the call would run without
 * it. The reply is the catalogue's, word for word (what `call` says), so
 * the same arguments fail the same way everywhere.
 *
 * Only the forbidden key is answered here: every other problem (too deep,
 * too large, a wrong field) survives the SDK's copy and is the catalogue's
 * to report; so is an unknown tool, whose NOT_FOUND comes first there.
 */
export function forbiddenKeyError(params: unknown): CallToolResult | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || !findOperation(name)) return undefined;
  if (typeof args !== 'object' || args === null) return undefined;
  const bounds = { maxDepth: LIMITS.maxJsonDepth, maxBytes: LIMITS.maxInputBytes };
  if (findJsonProblem(args, bounds)?.kind !== 'key') return undefined;
  try {
    // The check parseArguments runs, for its exact message.
    assertJsonInput(args, name, bounds);
  } catch (error) {
    return toolError(error);
  }
  return undefined;
}
