import type { VersionBody } from './entity-store';
import { canonicalJson } from './hashing';

/**
 * Where a piece of knowledge sits in its document: its chunk index and line
 * range. Since schema 5 these live beside the entity's versions (the ref's
 * `place` column), not in them: a line inserted at the top of a file moves
 * every chunk below it, and a chunk whose text did not change must keep its
 * version. A place change rewrites the ref alone, with no commit.
 */
export const PLACE_FIELDS = ['chunkIndex', 'startLine', 'endLine'] as const;

type PlaceField = (typeof PLACE_FIELDS)[number];

/** A body without its place, and the place as stored in `refs.place` (NULL when it has none). */
export interface SplitBody {
  body: VersionBody;
  place: string | null;
}

/**
 * Takes a knowledge body's place fields out of it. Other types have no
 * place, and are returned as they are.
 */
export function splitPlace(body: VersionBody): SplitBody {
  if (body.type !== 'knowledge' || !PLACE_FIELDS.some((field) => body[field] !== undefined)) {
    return { body, place: null };
  }
  const rest: VersionBody = { ...body };
  const place: Partial<Record<PlaceField, unknown>> = {};
  for (const field of PLACE_FIELDS) {
    if (rest[field] !== undefined) place[field] = rest[field];
    delete rest[field];
  }
  return { body: rest, place: canonicalJson(place) };
}

/**
 * A stored version with its ref's place laid over it. Versions written
 * before schema 5 carry their place inside, and a ref without one (NULL)
 * leaves it as it is. A place that is not a JSON object of numbers (a
 * damaged row) is ignored field by field rather than failing the read: it
 * only says where the text is, never what it says.
 */
export function withPlace(body: VersionBody, place: string | null): VersionBody {
  if (place === null) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(place);
  } catch {
    return body;
  }
  if (parsed === null || typeof parsed !== 'object') return body;
  const fields = parsed as Record<string, unknown>;
  const laid: VersionBody = { ...body };
  for (const field of PLACE_FIELDS) {
    const value = fields[field];
    if (typeof value === 'number' && Number.isInteger(value)) laid[field] = value;
  }
  return laid;
}

/**
 * SQL for a sync chunk's index, from the ref `r` and its object `o`: the
 * ref's place where it has one, or else (written before schema 5) the one
 * inside the object. Neither may stop a query when damaged.
 */
export const CHUNK_INDEX_SQL = `coalesce(
  CASE WHEN json_valid(r.place) THEN json_extract(r.place, '$.chunkIndex') END,
  CASE WHEN json_valid(o.data) THEN json_extract(o.data, '$.chunkIndex') END)`;
