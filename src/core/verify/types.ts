export type VerifyErrorCode =
  | 'SQLITE_INTEGRITY'
  /** A field of the file's header that SQLite's own checks pass over has a value no store has. */
  | 'FILE_HEADER'
  /** A table, or part of one, could not be read: the file is damaged there. */
  | 'UNREADABLE'
  /** A check could not run, because what it needs could not be read. */
  | 'CHECK_SKIPPED'
  | 'OBJECT_HASH_MISMATCH'
  /** An object's data is not the JSON of an entity version (type, agent and user). */
  | 'OBJECT_INVALID'
  | 'COMMIT_HASH_MISMATCH'
  | 'MISSING_OBJECT'
  | 'MISSING_PARENT'
  | 'FOREIGN_PARENT'
  | 'MISSING_HEAD'
  | 'CYCLE'
  | 'REF_MISMATCH'
  /** An entity's type, agent or user changed from one version to the next without an import saying so. */
  | 'SCOPE_CHANGED'
  | 'ORPHAN_COMMIT'
  /** A table the store's layout has is gone (dropped by another tool): the message says what puts it back. */
  | 'MISSING_TABLE'
  | 'SEARCH_INDEX';

export interface VerifyError {
  code: VerifyErrorCode;
  /** The object hash, commit hash, entity id, table or check the error is about. */
  id: string;
  message: string;
}

export interface VerifyReport {
  valid: boolean;
  totalObjects: number;
  totalCommits: number;
  totalEntities: number;
  errors: VerifyError[];
}
