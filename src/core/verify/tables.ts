import type { Database, Row } from '../store/database';
import { sha256 } from '../store/hashing';
import { type Scope, parseBody, scopeOf } from '../store/object-body';
import type { CommitOp } from '../types';
import type { VerifyError } from './types';

/**
 * The rows of one table verify could read, by row number. `complete` is
 * false when reading stopped part-way (a damaged page): a row missing from
 * `rows` may then still exist, and checks must not call it missing.
 */
export interface Table<T> {
  rows: Map<number, T>;
  complete: boolean;
}

export interface ObjectNode {
  hash: string;
  /** Undefined when the data is not an entity version (reported as OBJECT_INVALID). */
  scope: Scope | undefined;
}

export interface CommitNode {
  hash: string;
  entityId: string;
  parentSeq: number | null;
  objectSeq: number | null;
  time: string;
  author: string;
  message: string;
  op: CommitOp;
}

export interface RefNode {
  id: string;
  type: string;
  agentId: string;
  userId: string | undefined;
  headSeq: number;
  objectSeq: number | null;
  deleted: boolean;
}

/** What the history checks read: objects, commits and refs. */
export interface HistoryTables {
  objects: Table<ObjectNode>;
  commits: Table<CommitNode>;
  refs: Table<RefNode>;
}

/** The message of an error as a reason: SQLite's own words, not a wrapper's. */
export function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Reads every row of `sql` through `add`. A read that fails (a damaged page,
 * a dropped table) is reported once as UNREADABLE, with how far it got, and
 * leaves the table incomplete; verify goes on with what it has.
 */
function readTable<T>(
  db: Database,
  table: string,
  sql: string,
  add: (row: Row) => [number, T],
  errors: VerifyError[],
): Table<T> {
  const rows = new Map<number, T>();
  try {
    for (const row of db.iterate(sql)) {
      const [seq, node] = add(row);
      rows.set(seq, node);
    }
    return { rows, complete: true };
  } catch (error) {
    errors.push({
      code: 'UNREADABLE',
      id: table,
      message: `The ${table} table could not be read past its first ${rows.size} rows (${reasonOf(error)}): the checks that need the rest were skipped for them.`,
    });
    return { rows, complete: false };
  }
}

/** Reads every object, checking as it goes that its content matches its hash and is an entity version. */
export function readObjects(db: Database, schema: string, errors: VerifyError[]): Table<ObjectNode> {
  return readTable(
    db,
    `${schema}.objects`,
    `SELECT seq, hash, data FROM ${schema}.objects`,
    (row) => {
      const hash = String(row.hash);
      const data = String(row.data);
      if (sha256(data) !== hash) {
        errors.push({ code: 'OBJECT_HASH_MISMATCH', id: hash, message: `Object ${hash} does not match its content.` });
      }
      const body = parseBody(data);
      if (!body) {
        errors.push({
          code: 'OBJECT_INVALID',
          id: hash,
          message: `Object ${hash} is not a readable entity version (not JSON, or without a type and agent).`,
        });
      }
      return [Number(row.seq), { hash, scope: body ? scopeOf(body) : undefined }];
    },
    errors,
  );
}

export function readCommits(db: Database, schema: string, errors: VerifyError[]): Table<CommitNode> {
  return readTable(
    db,
    `${schema}.commits`,
    `SELECT seq, hash, entity_id, parent_seq, object_seq, time, author, message, op FROM ${schema}.commits`,
    (row) => [
      Number(row.seq),
      {
        hash: String(row.hash),
        entityId: String(row.entity_id),
        parentSeq: row.parent_seq === null ? null : Number(row.parent_seq),
        objectSeq: row.object_seq === null ? null : Number(row.object_seq),
        time: String(row.time),
        author: String(row.author),
        message: String(row.message),
        op: String(row.op) as CommitOp,
      },
    ],
    errors,
  );
}

/** Refs have no row number: they are numbered in the order read. */
export function readRefs(db: Database, schema: string, errors: VerifyError[]): Table<RefNode> {
  let index = 0;
  return readTable(
    db,
    `${schema}.refs`,
    `SELECT id, type, agent_id, user_id, head_seq, object_seq, deleted FROM ${schema}.refs`,
    (row) => [
      index++,
      {
        id: String(row.id),
        type: String(row.type),
        agentId: String(row.agent_id),
        userId: row.user_id === null ? undefined : String(row.user_id),
        headSeq: Number(row.head_seq),
        objectSeq: row.object_seq === null ? null : Number(row.object_seq),
        deleted: Number(row.deleted) === 1,
      },
    ],
    errors,
  );
}
