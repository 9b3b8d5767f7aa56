import type { SQLOutputValue } from 'node:sqlite';

import { MemoryError } from '../errors';
import type { CommitOp, EntityType } from '../types';

/**
 * Typed views of the store's rows. SQLite hands back whatever a column
 * holds, and a damaged or hand-edited store can hold a number where text
 * belongs or a NULL where none may be: each decoder checks the types its
 * readers rely on and throws STORE_CORRUPT naming the table, rather than
 * letting `String(x)` turn the damage into plausible-looking wrong data.
 */
export type Row = Record<string, SQLOutputValue>;

const describe = (value: SQLOutputValue | undefined): string => {
  if (value === undefined) return 'no value';
  if (value === null) return 'NULL';
  if (value instanceof Uint8Array) return 'a blob';
  return `a ${typeof value}`;
};

/** The error every decoder throws: which table, which column, what it held. */
function wrongType(table: string, column: string, value: SQLOutputValue | undefined, expected: string): MemoryError {
  return new MemoryError(
    'STORE_CORRUPT',
    `The store's ${table} table is damaged: its ${column} column holds ${describe(value)} where ${expected} belongs. Run verify to see what else is damaged, then restore a snapshot.`,
  );
}

export function text(row: Row, table: string, column: string): string {
  const value = row[column];
  if (typeof value === 'string') return value;
  throw wrongType(table, column, value, 'text');
}

export function textOrNull(row: Row, table: string, column: string): string | null {
  const value = row[column];
  if (typeof value === 'string' || value === null) return value;
  throw wrongType(table, column, value, 'text or NULL');
}

/** An INTEGER or REAL column (the store never asks node:sqlite for bigints). */
export function num(row: Row, table: string, column: string): number {
  const value = row[column];
  if (typeof value === 'number') return value;
  throw wrongType(table, column, value, 'a number');
}

export function numOrNull(row: Row, table: string, column: string): number | null {
  const value = row[column];
  if (typeof value === 'number' || value === null) return value;
  throw wrongType(table, column, value, 'a number or NULL');
}

export function blob(row: Row, table: string, column: string): Uint8Array {
  const value = row[column];
  if (value instanceof Uint8Array) return value;
  throw wrongType(table, column, value, 'a blob');
}

/** A `count(*) AS n` (or any one number) of a row that may be missing: 0 then. */
export function countOf(row: Row | undefined, table: string, column = 'n'): number {
  return row ? num(row, table, column) : 0;
}

/** One entity's ref: where its chain ends and the columns lists filter on. */
export interface StoredRef {
  id: string;
  type: EntityType;
  agentId: string;
  userId: string | undefined;
  headSeq: number;
  objectSeq: number | null;
  /** Not live: deleted, or (see `state`) waiting for review or superseded. */
  deleted: boolean;
  /** 0 live, 1 deleted, 2 pending review, 3 superseded (REF_STATE). */
  state: 0 | 1 | 2 | 3;
}

export function refRow(row: Row): StoredRef {
  const userId = textOrNull(row, 'refs', 'user_id');
  return {
    id: text(row, 'refs', 'id'),
    type: text(row, 'refs', 'type') as EntityType,
    agentId: text(row, 'refs', 'agent_id'),
    userId: userId ?? undefined,
    headSeq: num(row, 'refs', 'head_seq'),
    objectSeq: numOrNull(row, 'refs', 'object_seq'),
    ...refState(num(row, 'refs', 'deleted')),
  };
}

function refState(value: number): { deleted: boolean; state: 0 | 1 | 2 | 3 } {
  if (value === 0 || value === 1 || value === 2 || value === 3) return { deleted: value !== 0, state: value };
  throw new MemoryError(
    'STORE_CORRUPT',
    `The store's refs table is damaged: an entity's state reads ${value}. Run verify.`,
  );
}

/** One commit as stored: its own fields, and its parent and object by row number. */
export interface CommitRow {
  seq: number;
  hash: string;
  entityId: string;
  parentSeq: number | null;
  objectSeq: number | null;
  time: string;
  author: string;
  message: string;
  op: CommitOp;
  /** The commit's meta as stored (canonical JSON), null before version 4 or in a snapshot older than it. */
  meta: string | null;
}

/** The one reading of a commit row, shared by history reads and verify. */
export function commitRow(row: Row): CommitRow {
  return {
    seq: num(row, 'commits', 'seq'),
    hash: text(row, 'commits', 'hash'),
    entityId: text(row, 'commits', 'entity_id'),
    parentSeq: numOrNull(row, 'commits', 'parent_seq'),
    objectSeq: numOrNull(row, 'commits', 'object_seq'),
    time: text(row, 'commits', 'time'),
    author: text(row, 'commits', 'author'),
    message: text(row, 'commits', 'message'),
    op: text(row, 'commits', 'op') as CommitOp,
    meta: row.meta === undefined ? null : textOrNull(row, 'commits', 'meta'),
  };
}

/** An object's hash and data: the data is checked against the hash by whoever parses it. */
export interface ObjectRow {
  hash: string;
  data: string;
}

export function objectRow(row: Row): ObjectRow {
  return { hash: text(row, 'objects', 'hash'), data: text(row, 'objects', 'data') };
}

/** A live entity: its ref's id, timestamps and place with its current object. */
export interface EntityRow extends ObjectRow {
  id: string;
  createdAt: string;
  updatedAt: string;
  /** Where a document chunk sits (refs.place, see place.ts); NULL for everything else. */
  place: string | null;
}

export function entityRow(row: Row): EntityRow {
  return {
    id: text(row, 'refs', 'id'),
    createdAt: text(row, 'refs', 'created_at'),
    updatedAt: text(row, 'refs', 'updated_at'),
    hash: text(row, 'objects', 'hash'),
    data: text(row, 'objects', 'data'),
    place: textOrNull(row, 'refs', 'place'),
  };
}

/** One search_docs row's indexed columns: space-separated, pre-tokenized terms. */
export interface SearchDocColumns {
  content: string;
  tags: string;
  meta: string;
}

export function searchDocColumns(row: Row): SearchDocColumns {
  return {
    content: text(row, 'search_docs', 'content'),
    tags: text(row, 'search_docs', 'tags'),
    meta: text(row, 'search_docs', 'meta'),
  };
}
