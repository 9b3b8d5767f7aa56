import { z } from 'zod';

import { MemoryError } from '../errors';
import { redactedKinds } from '../secrets/guard';
import type { CommitInfo } from '../types';
import { assertJsonInput } from '../validation';
import { CITATION_OPERATIONS } from './citation-ops';
import { DOCS_OPERATIONS } from './docs-ops';
import { MEMORY_OPERATIONS } from './memory-ops';
import { PROFILE_OPERATIONS } from './profile-ops';
import { REVIEW_OPERATIONS } from './review-ops';
import { SESSION_OPERATIONS } from './session-ops';
import { SKILL_OPERATIONS } from './skill-ops';
import { STORE_OPERATIONS } from './store-ops';
import type { Operation, OperationContext, OperationResult, OperationSurface } from './types';

/**
 * Every operation the language model tools, the MCP server and the CLI's
 * `call` offer. They all read this list, so a name, description or schema
 * can only change in one place.
 */
export const OPERATIONS: readonly Operation[] = [
  ...MEMORY_OPERATIONS,
  ...SKILL_OPERATIONS,
  ...CITATION_OPERATIONS,
  ...DOCS_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...PROFILE_OPERATIONS,
  ...STORE_OPERATIONS,
  ...REVIEW_OPERATIONS,
];

export function findOperation(name: string): Operation | undefined {
  return OPERATIONS.find((operation) => operation.name === name);
}

/** The operations a surface offers, in catalogue order. */
export function operationsFor(surface: OperationSurface): Operation[] {
  return OPERATIONS.filter((operation) => operation.surfaces.includes(surface));
}

/** The arguments' JSON Schema, as an LM tool's inputSchema or an MCP tool's. */
export function jsonSchemaOf(operation: Operation): Record<string, unknown> {
  // `input`: defaulted fields are optional for the caller.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(operation.input, { target: 'draft-07', io: 'input' });
  return schema;
}

// Keys a model may try in order to act as someone else; the scope is the host's to set.
const SCOPE_KEYS = new Set(['agentId', 'agent', 'userId', 'user']);

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `\`${key}\``).join(', ');
    const scoped = issue.keys.some((key) => SCOPE_KEYS.has(key))
      ? ' (the agent and user are set by the host, not by arguments)'
      : '';
    return `unknown argument ${keys}${scoped}`;
  }
  if (issue.code === 'invalid_type' && issue.path.length > 0) return describeType(issue.path, issue);
  const field = issue.path.length ? `\`${issue.path.join('.')}\`: ` : '';
  return `${field}${issue.message}`;
}

/** What each JSON type is called in a message for people (and models) rather than for programmers. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

/** "`content` is required", "`limit` must be a number", "each item of `tags` must be text". */
function describeType(path: readonly PropertyKey[], issue: z.core.$ZodIssueInvalidType): string {
  const last = path.length - 1;
  const item = typeof path[last] === 'number' && last > 0;
  const name = `\`${(item ? path.slice(0, last) : path).map(String).join('.')}\``;
  const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
  // zod says what it received only in its message.
  if (/received undefined$/.test(issue.message)) return `${name} is required (${expected})`;
  return item ? `each item of ${name} must be ${expected}` : `${name} must be ${expected}`;
}

/** Validates raw arguments against the operation's schema; a bad one is INVALID_INPUT naming the field. */
export function parseArguments<A>(operation: Operation, raw: unknown): A {
  // Before zod, which drops a __proto__ key without a word and recurses into any depth.
  assertJsonInput(raw ?? {}, operation.name);
  const parsed = operation.input.safeParse(raw ?? {});
  if (parsed.success) return parsed.data as A;
  const problems = parsed.error.issues.slice(0, 3).map(describeIssue).join('; ');
  throw new MemoryError('INVALID_INPUT', `${operation.name}: ${problems}.`);
}

/**
 * Looks an operation up, validates `rawArgs` and runs it in the host's scope.
 * With `surface`, an operation that surface does not offer counts as unknown.
 */
export async function runOperation(
  context: OperationContext,
  name: string,
  rawArgs: unknown,
  surface?: OperationSurface,
): Promise<OperationResult> {
  const operation = findOperation(name);
  if (!operation || (surface && !operation.surfaces.includes(surface))) {
    const known = (surface ? operationsFor(surface) : OPERATIONS).map((op) => op.name).join(', ');
    throw new MemoryError('NOT_FOUND', `Unknown operation "${name}"; the operations are: ${known}.`);
  }
  return withTrustNotes(await operation.run(context, parseArguments(operation, rawArgs)));
}

/**
 * A write held for review, or one that retired what it corrects, says so in
 * words every surface passes on: an agent told its save is waiting does not
 * save it again, and one told a memory was superseded can say which.
 */
function withTrustNotes(result: OperationResult): OperationResult {
  const commit = result.data.commit as CommitInfo | undefined;
  if (!commit || typeof commit !== 'object') return result;
  const content = (result.data.entity as { content?: unknown } | undefined)?.content;
  const redacted = typeof content === 'string' ? redactedKinds(content) : [];
  if (redacted.length > 0) {
    result = {
      ...result,
      text: `${result.text}\nA secret in it was redacted before it was stored: ${redacted.join(', ')}. Keep credentials out of memory.`,
    };
  }
  if (commit.review === 'pending') {
    const what = commit.proposes
      ? `The ${commit.proposes.action} of ${commit.proposes.target} is proposed as ${commit.entityId} and waits for a person's review; ${commit.proposes.target} is unchanged until it is approved.`
      : `Saved as ${commit.entityId}, waiting for a person's review: it is not searchable or recalled until approved.`;
    return {
      text: `${what} Do not write it again; review_list shows what is waiting.`,
      data: { ...result.data, review: 'pending' },
    };
  }
  if (commit.supersedes) {
    return {
      text: `${result.text}\nIt supersedes ${commit.supersedes}, which is now left out of search and recall (a person can reinstate it).`,
      data: result.data,
    };
  }
  return result;
}
