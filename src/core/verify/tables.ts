import { isMemoryError } from '../errors';
import type { Database, Row } from '../store/database';
import { sha256 } from '../store/hashing';
import { parseBody, type Scope, scopeOf } from '../store/object-body';
import { type CommitRow, commitRow, num, objectRow, refRow, type StoredRef } from '../store/rows';
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

/** A commit as verify reads it: the store's own reading of a commit row. */
export type CommitNode = CommitRow;

/** Refs have no row number: verify numbers them in the order read. */
export type RefNode = StoredRef;

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
 * leaves the table incomplete; verify goes on with what it has. A row whose
 * columns hold the wrong types is left out the same way (the table is then
 * incomplete, so nothing is called missing because of it), and reading goes on.
 */
function readTable<T>(
  db: Database,
  table: string,
  sql: string,
  add: (row: Row) => [number, T],
  errors: VerifyError[],
): Table<T> {
  const rows = new Map<number, T>();
  let undecodable = 0;
  let firstProblem = '';
  try {
    for (const row of db.iterate(sql)) {
      let entry: [number, T];
      try {
        entry = add(row);
      } catch (error) {
        if (!isMemoryError(error, 'STORE_CORRUPT')) throw error;
        if (undecodable++ === 0) firstProblem = error.message;
        continue;
      }
      rows.set(entry[0], entry[1]);
    }
  } catch (error) {
    errors.push({
      code: 'UNREADABLE',
      id: table,
      message: `The ${table} table could not be read past its first ${rows.size + undecodable} rows (${reasonOf(error)}): the checks that need the rest were skipped for them.`,
    });
    return { rows, complete: false };
  }
  if (undecodable > 0) {
    errors.push({
      code: 'UNREADABLE',
      id: table,
      message: `${undecodable} rows of the ${table} table hold values of the wrong type (${firstProblem}): the checks that need them were skipped.`,
    });
  }
  return { rows, complete: undecodable === 0 };
}

/** Reads every object, checking as it goes that its content matches its hash and is an entity version. */
export function readObjects(db: Database, schema: string, errors: VerifyError[]): Table<ObjectNode> {
  return readTable(
    db,
    `${schema}.objects`,
    `SELECT seq, hash, data FROM ${schema}.objects`,
    (row) => {
      const seq = num(row, 'objects', 'seq');
      const { hash, data } = objectRow(row);
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
      return [seq, { hash, scope: body ? scopeOf(body) : undefined }];
    },
    errors,
  );
}

export function readCommits(db: Database, schema: string, errors: VerifyError[]): Table<CommitNode> {
  return readTable(
    db,
    `${schema}.commits`,
    `SELECT seq, hash, entity_id, parent_seq, object_seq, time, author, message, op${metaColumn(db, schema)} FROM ${schema}.commits`,
    (row) => {
      const commit = commitRow(row);
      return [commit.seq, commit];
    },
    errors,
  );
}

/** The commits' meta column, where the store (or a snapshot older than version 4) has one. */
function metaColumn(db: Database, schema: string): string {
  return db.get("SELECT 1 AS present FROM pragma_table_info('commits', ?) WHERE name = 'meta'", schema) ? ', meta' : '';
}

/** Refs have no row number: they are numbered in the order read. */
export function readRefs(db: Database, schema: string, errors: VerifyError[]): Table<RefNode> {
  let index = 0;
  return readTable(
    db,
    `${schema}.refs`,
    `SELECT id, type, agent_id, user_id, head_seq, object_seq, deleted FROM ${schema}.refs`,
    (row) => [index++, refRow(row)],
    errors,
  );
}
