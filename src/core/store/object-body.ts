import { MemoryError } from '../errors';
import type { Entity } from '../types';
import type { VersionBody } from './entity-store';
import { sha256 } from './hashing';

/** Who an entity version belongs to: its type, agent and user. */
export interface Scope {
  type: string;
  agentId: string;
  userId: string | undefined;
}

/**
 * An object's stored data as an entity version, or undefined when it is not
 * one: not JSON (a damaged page, a flipped byte), or JSON without a string
 * type and agent. Never throws, so one damaged object cannot stop a reader
 * that goes through them all.
 */
export function parseBody(data: string): VersionBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const body = value as Record<string, unknown>;
  if (typeof body.type !== 'string' || typeof body.agentId !== 'string') return undefined;
  if (body.userId !== undefined && typeof body.userId !== 'string') return undefined;
  return body as VersionBody;
}

/** The scope of a parsed version. */
export function scopeOf(body: VersionBody): Scope {
  return { type: body.type, agentId: body.agentId, userId: body.userId };
}

/**
 * A stored version as written: its data still hashes to the object's hash,
 * and is an entity version. Undefined otherwise. The hash is what makes a
 * changed byte anywhere in the data (a key, a tag) visible, where parsing
 * alone would pass most of them on as a wrong entity. Takes the columns as
 * SQLite returned them: readers that skip damaged versions (reindex, the
 * embedding backfill) skip one whose columns are not even text the same way.
 */
export function storedBody(data: unknown, hash: unknown): VersionBody | undefined {
  if (typeof data !== 'string' || typeof hash !== 'string') return undefined;
  return sha256(data) === hash ? parseBody(data) : undefined;
}

/** Reads a stored version for a caller that needs it: damage is STORE_CORRUPT, naming the entity. */
export function decodeBody(data: string, hash: string, entityId: string): VersionBody {
  const body = storedBody(data, hash);
  if (!body) {
    throw new MemoryError(
      'STORE_CORRUPT',
      `A stored version of ${entityId} is damaged and cannot be read. Run verify to see what else is damaged, then restore a snapshot.`,
    );
  }
  return body;
}

/** An entity as callers see it: its id and timestamps around a stored version. */
export function entityFromBody(id: string, body: VersionBody, createdAt: string, updatedAt: string): Entity {
  const { type, agentId, userId, ...fields } = body;
  const entity: Record<string, unknown> = { id, type, agentId };
  if (userId !== undefined) entity.userId = userId;
  Object.assign(entity, fields, { createdAt, updatedAt });
  return entity as unknown as Entity;
}

const ENTITY_ONLY_FIELDS = new Set(['id', 'type', 'agentId', 'userId', 'createdAt', 'updatedAt']);

/** The inverse of entityFromBody: the versioned part of an entity. */
export function bodyOf(entity: Entity): VersionBody {
  const body: Record<string, unknown> = { type: entity.type, agentId: entity.agentId };
  if (entity.userId !== undefined) body.userId = entity.userId;
  for (const [key, value] of Object.entries(entity)) if (!ENTITY_ONLY_FIELDS.has(key)) body[key] = value;
  return body as VersionBody;
}
