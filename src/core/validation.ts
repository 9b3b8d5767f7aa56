import type { z } from 'zod';

import { globProblem } from './anchors/applies-to';
import { MemoryError } from './errors';
import { findJsonProblem, formatJsonPath, type JsonBounds } from './json-guard';
import { lazy } from './lazy';
import {
  ENTITY_TYPES,
  type EntityType,
  type InputByType,
  isTeamType,
  MEMORY_CATEGORIES,
  SHARED_AGENT_ID,
  SHARED_TYPES,
  SKILL_CATEGORIES,
  SKILL_STATUSES,
  TEAM_AGENT_ID,
  TEAM_TYPES,
  type UpdateByType,
} from './types';
import { loadZod } from './zod-loader';

export const LIMITS = {
  /** Content is capped in UTF-8 bytes, not characters: that is what costs disk and tokens. */
  maxContentBytes: 1024 * 1024,
  maxTags: 50,
  maxTagLength: 100,
  maxIdLength: 200,
  maxPageSize: 200,
  defaultPageSize: 50,
  /** Levels of nested objects and arrays in any input (the input object is level 1). */
  maxJsonDepth: 32,
  /**
   * A whole input, counted as the UTF-8 bytes of its strings and keys (so JSON
   * escaping does not count): room for 1 MB of content, a session's 1 MB of
   * messages and the rest.
   */
  maxInputBytes: 4 * 1024 * 1024,
  /** A profile's metadata, counted the same way. */
  maxMetadataBytes: 64 * 1024,
  /** Citations per memory or skill, the length of a cited path, and the text one keeps (40 lines). */
  maxCitations: 20,
  maxCitationPath: 500,
  maxCitationText: 16 * 1024,
  /** The name of the symbol around cited lines, as an editor gives it. */
  maxCitationSymbol: 200,
  /** `appliesTo` globs per memory or skill, and the length of one. */
  maxAppliesTo: 20,
  maxGlob: 300,
} as const;

// Path separators, parent references and colons are refused so an id can
// never address something outside its own row when it ends up in a file name
// (snapshots, exports) or a URI (the extension's history documents).
// eslint-disable-next-line no-control-regex
const FORBIDDEN_ID = /[/\\:\u0000-\u001f\u007f]|\.\./;

/**
 * Whether a caller (plain JavaScript, a tool, JSON) really passed an array.
 * Array.isArray itself would narrow an argument typed as a readonly array to
 * `any[]`, and every use after the check would lose its type.
 */
export const isArray = (value: unknown): boolean => Array.isArray(value);

export function assertId(value: unknown, what = 'id'): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new MemoryError('INVALID_ID', `The ${what} must be a non-empty string.`);
  }
  if (value.length > LIMITS.maxIdLength) {
    throw new MemoryError('INVALID_ID', `The ${what} is longer than ${LIMITS.maxIdLength} characters.`);
  }
  if (FORBIDDEN_ID.test(value)) {
    throw new MemoryError(
      'INVALID_ID',
      `The ${what} "${printable(value)}" contains a character that is not allowed (/, \\, :, "..", or a control character).`,
    );
  }
  return value;
}

export function assertOptionalId(value: unknown, what: string): string | undefined {
  return value === undefined || value === null ? undefined : assertId(value, what);
}

/**
 * Refuses JSON from a caller that is nested too deep (which would overflow
 * the stack of whatever walks it next: hashing, JSON.stringify), too large,
 * or holds a key such as `__proto__` that a copy would silently drop.
 * Depth and keys are INVALID_INPUT, size CONTENT_TOO_LARGE; the message names
 * `what` and the path.
 */
export function assertJsonInput(
  value: unknown,
  what: string,
  bounds: JsonBounds = { maxDepth: LIMITS.maxJsonDepth, maxBytes: LIMITS.maxInputBytes },
): void {
  const problem = findJsonProblem(value, bounds);
  if (!problem) return;
  // A size is the whole value's, wherever the count ran over; depth and keys are at a place.
  const where = problem.kind !== 'size' && problem.path.length ? `${what}: ${formatJsonPath(problem.path)}` : what;
  throw new MemoryError(
    problem.kind === 'size' ? 'CONTENT_TOO_LARGE' : 'INVALID_INPUT',
    `${where} ${problem.message}.`,
  );
}

/**
 * Only some types live in the shared scope (a memory or session saved there
 * would belong to no agent), and only memories and skills in the team scope
 * (its folder holds nothing else).
 */
export function assertAgentFor(type: EntityType, agentId: string): string {
  if (agentId === SHARED_AGENT_ID && !SHARED_TYPES.includes(type)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `A ${type} cannot belong to the shared agent "${SHARED_AGENT_ID}"; the shared types are ${SHARED_TYPES.join(', ')}.`,
    );
  }
  if (agentId === TEAM_AGENT_ID && !isTeamType(type)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `A ${type} cannot belong to the team scope "${TEAM_AGENT_ID}"; it holds ${TEAM_TYPES.join(' and ')}s.`,
    );
  }
  return agentId;
}

export function assertEntityType(value: unknown): EntityType {
  if (typeof value === 'string' && (ENTITY_TYPES as readonly string[]).includes(value)) return value as EntityType;
  throw new MemoryError(
    'UNKNOWN_TYPE',
    `Unknown entity type "${printable(String(value))}"; expected one of ${ENTITY_TYPES.join(', ')}.`,
  );
}

export function assertLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new MemoryError('INVALID_INPUT', `The limit must be a whole number of at least 1 (got ${limit}).`);
  }
  if (limit > LIMITS.maxPageSize) {
    throw new MemoryError('LIMIT_TOO_LARGE', `The limit ${limit} is over the maximum of ${LIMITS.maxPageSize}.`);
  }
  return limit;
}

export function assertPage(options: { limit?: number; offset?: number } = {}): { limit: number; offset: number } {
  const limit = assertLimit(options.limit ?? LIMITS.defaultPageSize);
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new MemoryError('INVALID_INPUT', `The offset must be a whole number of at least 0 (got ${offset}).`);
  }
  return { limit, offset };
}

/** The longest search query taken: a pasted document is not a question. */
export const MAX_QUERY_LENGTH = 10_000;

/** A search query, refused when it is not text or is longer than MAX_QUERY_LENGTH. */
export function assertQuery(query: unknown): asserts query is string {
  if (typeof query !== 'string') throw new MemoryError('INVALID_INPUT', 'The search query must be a string.');
  if (query.length > MAX_QUERY_LENGTH) {
    throw new MemoryError('INVALID_INPUT', `The search query is longer than ${MAX_QUERY_LENGTH} characters.`);
  }
}

/** An ISO 8601 date, alone or with a time and its offset (then Date.parse reads it the same everywhere). */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** An optional time given by a caller, as UTC ISO 8601 (so times compare as text); INVALID_INPUT when it is no time. */
export function isoDateOrUndefined(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const parts = typeof value === 'string' ? ISO_DATE.exec(value.trim()) : null;
  // Date.parse would take "1" or "May 7" (as 2001), and roll 30 February over into March.
  if (!parts || !dayExists(Number(parts[1]), Number(parts[2]), Number(parts[3]))) {
    throw new MemoryError(
      'INVALID_INPUT',
      `${name} must be an ISO 8601 date, or date and time with its offset ("2026-03-02", "2026-03-02T09:00:00Z"), not ${printable(typeof value === 'string' ? value : (JSON.stringify(value) ?? typeof value))}.`,
    );
  }
  return new Date(Date.parse(parts[0])).toISOString();
}

function dayExists(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  const shown = value.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

// Built on first use (see zod-loader.ts), with the partial form each update needs.
const inputSchemas = lazy(() => {
  const { z } = loadZod();
  const content = z.string();
  const tags = z.array(z.string());
  const isoDate = z.iso.datetime({ offset: true });
  const line = z.number().int().positive();
  // Given as path and lines, anchored on save (text and hash filled in); given whole, kept as it is.
  const citation = z
    .strictObject({
      path: z.string().min(1).max(LIMITS.maxCitationPath),
      startLine: line,
      endLine: line,
      text: z.string().max(LIMITS.maxCitationText).optional(),
      hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex')
        .optional(),
      symbol: z.string().min(1).max(LIMITS.maxCitationSymbol).optional(),
      commit: z
        .string()
        .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'a git commit id in hex')
        .optional(),
    })
    .refine((cited) => cited.endLine >= cited.startLine, 'endLine comes before startLine')
    .refine(
      (cited) => !/^([a-zA-Z]:)?[\\/]/.test(cited.path) && !/(^|[\\/])\.\.([\\/]|$)/.test(cited.path),
      'the path must stay inside the workspace (no absolute path, no "..")',
    )
    .refine((cited) => (cited.text === undefined) === (cited.hash === undefined), 'text and hash go together');
  const citations = z.array(citation).max(LIMITS.maxCitations);
  const glob = z
    .string()
    .max(LIMITS.maxGlob)
    .superRefine((value, ctx) => {
      const problem = globProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
  const appliesTo = z.array(glob).max(LIMITS.maxAppliesTo);
  const full = {
    memory: z.strictObject({
      content,
      tags: tags.optional(),
      category: z.enum(MEMORY_CATEGORIES).optional(),
      sourceSession: z.string().optional(),
      supersedes: z.string().optional(),
      citations: citations.optional(),
      appliesTo: appliesTo.optional(),
    }),
    skill: z.strictObject({
      content,
      tags: tags.optional(),
      category: z.enum(SKILL_CATEGORIES).optional(),
      status: z.enum(SKILL_STATUSES).optional(),
      citations: citations.optional(),
      appliesTo: appliesTo.optional(),
    }),
    knowledge: z.strictObject({
      content,
      tags: tags.optional(),
      title: z.string().max(1000).optional(),
      source: z.string().optional(),
      chunkIndex: z.number().int().nonnegative().optional(),
      version: z.string().optional(),
      questions: z.array(z.string()).optional(),
      headingPath: z.array(z.string()).max(20).optional(),
      startLine: z.number().int().positive().optional(),
      endLine: z.number().int().positive().optional(),
      sourceHash: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex')
        .optional(),
    }),
    session: z.strictObject({
      content: z.string().optional(),
      messages: z
        .array(
          z.strictObject({
            role: z.enum(['user', 'assistant', 'system', 'tool']),
            content: z.string(),
            name: z.string().max(200).optional(),
            timestamp: isoDate.optional(),
          }),
        )
        .optional(),
      startedAt: isoDate.optional(),
      endedAt: isoDate.optional(),
      conversationId: z.string().optional(),
      mined: z.boolean().optional(),
    }),
    profile: z.strictObject({
      content,
      metadata: z.record(z.string(), z.unknown()).optional(),
    }),
  } satisfies Record<EntityType, z.ZodType>;
  const partial = Object.fromEntries(ENTITY_TYPES.map((type) => [type, full[type].partial()])) as {
    [T in EntityType]: ReturnType<(typeof full)[T]['partial']>;
  };
  return { full, partial };
});

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/**
 * Validates a create input (or, with `partial`, an update) and returns a
 * normalized copy: tags trimmed and de-duplicated, sizes checked. Throws a
 * MemoryError whose code says which rule was broken.
 */
export function validateInput<T extends EntityType>(type: T, input: unknown): InputByType[T];
export function validateInput<T extends EntityType>(type: T, input: unknown, partial: true): UpdateByType[T];
export function validateInput<T extends EntityType>(type: T, input: unknown, partial = false): InputByType[T] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new MemoryError('INVALID_INPUT', `The ${type} input must be an object.`);
  }
  // Before zod, which drops a `__proto__` key without a word and never looks inside a value it takes as unknown.
  assertJsonInput(input, `The ${type} input`);
  const schemas = inputSchemas();
  const parsed = (partial ? schemas.partial[type] : schemas.full[type]).safeParse(input);
  if (!parsed.success) {
    throw new MemoryError('INVALID_INPUT', `Invalid ${type}: ${describeIssues(parsed.error)}.`);
  }
  const value = { ...parsed.data } as Record<string, unknown>;
  if (typeof value.content === 'string') assertContent(type, value.content, type === 'session');
  if (Array.isArray(value.tags)) value.tags = normalizeTags(value.tags as string[]);
  if (value.metadata !== undefined) {
    assertJsonInput(value.metadata, `The ${type} metadata`, {
      maxDepth: LIMITS.maxJsonDepth,
      maxBytes: LIMITS.maxMetadataBytes,
    });
  }
  if (type === 'session' && !partial) {
    const messages = value.messages as { content: string }[] | undefined;
    if ((value.content === undefined || value.content === '') && (!messages || messages.length === 0)) {
      throw new MemoryError('INVALID_INPUT', 'A session needs content or at least one message.');
    }
    if (messages) assertContent(type, messages.map((m) => m.content).join('\n'), true);
  }
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value as unknown as InputByType[T];
}

function assertContent(type: string, text: string, allowEmpty: boolean): void {
  if (!allowEmpty && text.trim().length === 0) {
    throw new MemoryError('INVALID_INPUT', `The ${type} content is empty.`);
  }
  assertContentSize(type, text);
}

/** CONTENT_TOO_LARGE when `text` is over the content limit (also checked after secrets are redacted). */
export function assertContentSize(type: string, text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.maxContentBytes) {
    throw new MemoryError(
      'CONTENT_TOO_LARGE',
      `The ${type} content is ${(bytes / 1024 / 1024).toFixed(2)} MB; the maximum is 1 MB (UTF-8).`,
    );
  }
}

function normalizeTags(raw: string[]): string[] {
  if (raw.length > LIMITS.maxTags) {
    throw new MemoryError('TOO_MANY_TAGS', `${raw.length} tags given; the maximum is ${LIMITS.maxTags}.`);
  }
  const seen = new Set<string>();
  for (const tag of raw) {
    const trimmed = tag.trim();
    if (!trimmed) continue;
    if (trimmed.length > LIMITS.maxTagLength) {
      throw new MemoryError('INVALID_INPUT', `A tag is longer than ${LIMITS.maxTagLength} characters.`);
    }
    seen.add(trimmed);
  }
  return [...seen];
}
