import type { SQLInputValue } from 'node:sqlite';

import type { CommitInfo, CommitOp, Entity, EntityType } from '../types';
import { commitMetaOf, type RefState } from './commits';
import type { Database, Row } from './database';
import { decodeBody, entityFromBody } from './object-body';
import { withPlace } from './place';
import { type CommitRow, countOf, entityRow, refRow, type StoredRef, text, textOrNull } from './rows';

/*
 * How the entity store reads its rows: the statements that join refs,
 * commits and objects, the filters of lists, and the decoders that turn
 * their rows into what callers see.
 */

/** A ref with the hashes of its head commit and current object (null after a delete). */
export interface RefRow extends StoredRef {
  head: string;
  object: string | null;
  /** Where a document chunk sits, beside its versions (see place.ts). */
  place: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ListFilter {
  type: EntityType;
  agentId?: string;
  /** Undefined lists every user's entities in the agent; null lists those without a user. */
  userId?: string | null;
  conversationId?: string;
  /** Also every live entity of this agent, whoever its user (the team scope listed with an agent's own). */
  alsoAgentId?: string;
}

// A ref with the hashes of its head commit and object, found by row number.
export const REF_SELECT = `SELECT r.id, r.type, r.agent_id, r.user_id, r.head_seq, r.object_seq, r.deleted, r.created_at,
  r.updated_at, r.place, c.hash AS head, o.hash AS object
  FROM refs r JOIN commits c ON c.seq = r.head_seq LEFT JOIN objects o ON o.seq = r.object_seq`;

// A commit with its parent's and object's hashes, found by row number.
export const COMMIT_SELECT = `SELECT c.seq, c.hash, c.entity_id, c.parent_seq, c.object_seq, p.hash AS parent, o.hash AS object, c.time,
  c.author, c.message, c.op, c.meta
  FROM commits c LEFT JOIN commits p ON p.seq = c.parent_seq LEFT JOIN objects o ON o.seq = c.object_seq`;

export const ENTITY_SELECT =
  'SELECT r.id, r.created_at, r.updated_at, r.place, o.hash, o.data FROM refs r JOIN objects o ON o.seq = r.object_seq';

/**
 * The filter of entities in one state. The state is written into the
 * statement, not bound: only then does SQLite use the partial index of that
 * state (refs_pending, refs_superseded in schema.ts). It is one of REF_STATE's
 * numbers, never outside input.
 */
export function heldClause(
  state: RefState,
  filter: { agentId?: string; type?: EntityType },
): { where: string; params: SQLInputValue[] } {
  const clauses = [`r.deleted = ${Number(state)}`];
  const params: SQLInputValue[] = [];
  if (filter.agentId !== undefined) {
    clauses.push('r.agent_id = ?');
    params.push(filter.agentId);
  }
  if (filter.type !== undefined) {
    clauses.push('r.type = ?');
    params.push(filter.type);
  }
  return { where: clauses.join(' AND '), params };
}

export function whereClause(filter: ListFilter): { where: string; params: SQLInputValue[] } {
  const own: string[] = [];
  const params: SQLInputValue[] = [filter.type];
  if (filter.agentId !== undefined) {
    own.push('r.agent_id = ?');
    params.push(filter.agentId);
  }
  if (filter.userId === null) own.push('r.user_id IS NULL');
  else if (filter.userId !== undefined) {
    own.push('r.user_id = ?');
    params.push(filter.userId);
  }
  if (filter.conversationId !== undefined) {
    own.push('r.conversation_id = ?');
    params.push(filter.conversationId);
  }
  const scope = own.length ? own.join(' AND ') : '1';
  if (filter.alsoAgentId !== undefined) params.push(filter.alsoAgentId);
  const where = filter.alsoAgentId === undefined ? scope : `((${scope}) OR r.agent_id = ?)`;
  return { where: `r.type = ? AND r.deleted = 0 AND ${where}`, params };
}

/** An entity from a row of ENTITY_SELECT's columns (id, timestamps, place, object hash and data). */
export function rowToEntity(row: Row): Entity {
  const { id, createdAt, updatedAt, hash, data, place } = entityRow(row);
  return entityFromBody(id, withPlace(decodeBody(data, hash, id), place), createdAt, updatedAt);
}

export function toRef(row: Row): RefRow {
  return {
    ...refRow(row),
    head: text(row, 'commits', 'head'),
    object: textOrNull(row, 'objects', 'object'),
    place: textOrNull(row, 'refs', 'place'),
    createdAt: text(row, 'refs', 'created_at'),
    updatedAt: text(row, 'refs', 'updated_at'),
  };
}

/** A commit as callers see it: its parent and object by hash (COMMIT_SELECT joins them in). */
export function toCommit(stored: CommitRow, row: Row): CommitInfo {
  const { hash, entityId, time, author, message, op, meta } = stored;
  const parent = textOrNull(row, 'commits', 'parent');
  return {
    hash,
    entityId,
    parent,
    object: textOrNull(row, 'objects', 'object'),
    time,
    author,
    message,
    op,
    ...commitMetaOf(meta, author, op),
  };
}

/**
 * Head commits that keep the version's writer: an approval or reinstatement
 * (same content), and a re-anchoring by the citation check, which only moved
 * a citation's lines: the person or agent who wrote the content stays its
 * writer, for models as for people.
 */
const KEEPS_WRITER = `(c.op IN ('approve', 'reinstate') AND p.object_seq IS c.object_seq)
  OR (p.seq IS NOT NULL AND CASE WHEN json_valid(c.meta) THEN json_extract(c.meta, '$.by.kind') END = 'anchoring')`;

/**
 * Who wrote the current version of each of `ids`, for the ones that exist:
 * its head commit's writer, or, when the head kept the writer (KEEPS_WRITER),
 * the writer of the version before it. One statement.
 */
export function headProvenance(db: Database, ids: readonly string[]): Map<string, CommitInfo['by']> {
  const found = new Map<string, CommitInfo['by']>();
  const rows = db.all(
    `SELECT r.id,
       CASE WHEN ${KEEPS_WRITER} THEN p.author ELSE c.author END AS author,
       CASE WHEN ${KEEPS_WRITER} THEN p.op ELSE c.op END AS op,
       CASE WHEN ${KEEPS_WRITER} THEN p.meta ELSE c.meta END AS meta
     FROM json_each(?) j JOIN refs r ON r.id = j.value JOIN commits c ON c.seq = r.head_seq
     LEFT JOIN commits p ON p.seq = c.parent_seq`,
    JSON.stringify(ids),
  );
  for (const row of rows) {
    const op = text(row, 'commits', 'op') as CommitOp;
    found.set(
      text(row, 'refs', 'id'),
      commitMetaOf(textOrNull(row, 'commits', 'meta'), text(row, 'commits', 'author'), op).by,
    );
  }
  return found;
}

/** Ids in a state other than live or deleted, newest first: the review queue, the superseded. */
export function idsInState(
  db: Database,
  state: RefState,
  filter: { agentId?: string; type?: EntityType } = {},
): string[] {
  const { where, params } = heldClause(state, filter);
  return db
    .all(`SELECT r.id FROM refs r WHERE ${where} ORDER BY r.updated_at DESC, r.id DESC`, ...params)
    .map((row) => text(row, 'refs', 'id'));
}

/** How many entities are in `state`: the review badge asks on every refresh, so it is a count, not a list. */
export function countInState(
  db: Database,
  state: RefState,
  filter: { agentId?: string; type?: EntityType } = {},
): number {
  const { where, params } = heldClause(state, filter);
  return countOf(db.get(`SELECT count(*) AS n FROM refs r WHERE ${where}`, ...params), 'refs');
}
