import type { Database } from './store/database';
import { commitHash, toCommit } from './store/entity-store';
import { sha256 } from './store/hashing';
import type { CommitOp } from './types';

export type VerifyErrorCode =
  | 'SQLITE_INTEGRITY'
  | 'OBJECT_HASH_MISMATCH'
  | 'COMMIT_HASH_MISMATCH'
  | 'MISSING_OBJECT'
  | 'MISSING_PARENT'
  | 'FOREIGN_PARENT'
  | 'MISSING_HEAD'
  | 'CYCLE'
  | 'REF_MISMATCH'
  | 'ORPHAN_COMMIT';

export interface VerifyError {
  code: VerifyErrorCode;
  /** The object hash, commit hash or entity id the error is about. */
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

interface CommitNode {
  entityId: string;
  parent: string | null;
  object: string | null;
  op: CommitOp;
}

/**
 * Recomputes every object and commit hash and walks every entity's chain
 * from its head to its root. `schema` is `main` for the live store, or the
 * name a snapshot is attached under before it is restored.
 */
export function verifyState(db: Database, schema = 'main'): VerifyReport {
  const errors: VerifyError[] = [];
  for (const row of db.all(`PRAGMA ${schema}.quick_check`)) {
    const text = String(Object.values(row)[0]);
    if (text !== 'ok') errors.push({ code: 'SQLITE_INTEGRITY', id: schema, message: text });
  }

  const objects = new Set<string>();
  for (const row of db.iterate(`SELECT hash, data FROM ${schema}.objects`)) {
    const hash = String(row.hash);
    objects.add(hash);
    if (sha256(String(row.data)) !== hash) {
      errors.push({ code: 'OBJECT_HASH_MISMATCH', id: hash, message: `Object ${hash} does not match its content.` });
    }
  }

  const commits = new Map<string, CommitNode>();
  for (const row of db.iterate(`SELECT * FROM ${schema}.commits`)) {
    const commit = toCommit(row);
    commits.set(commit.hash, commit);
    const { hash, ...fields } = commit;
    if (commitHash(fields) !== hash) {
      errors.push({
        code: 'COMMIT_HASH_MISMATCH',
        id: hash,
        message: `Commit ${hash} of ${commit.entityId} does not match its fields.`,
      });
    }
    if (commit.object !== null && !objects.has(commit.object)) {
      errors.push({
        code: 'MISSING_OBJECT',
        id: hash,
        message: `Commit ${hash} points at missing object ${commit.object}.`,
      });
    }
  }
  for (const [hash, commit] of commits) {
    if (commit.parent === null) continue;
    const parent = commits.get(commit.parent);
    if (!parent) {
      errors.push({
        code: 'MISSING_PARENT',
        id: hash,
        message: `Commit ${hash} has a missing parent ${commit.parent}.`,
      });
    } else if (parent.entityId !== commit.entityId) {
      errors.push({
        code: 'FOREIGN_PARENT',
        id: hash,
        message: `Commit ${hash} of ${commit.entityId} has a parent of ${parent.entityId}.`,
      });
    }
  }

  const reachable = new Set<string>();
  let totalEntities = 0;
  for (const ref of db.iterate(`SELECT id, head, object, deleted FROM ${schema}.refs`)) {
    totalEntities++;
    const id = String(ref.id);
    const head = commits.get(String(ref.head));
    if (!head || head.entityId !== id) {
      errors.push({
        code: 'MISSING_HEAD',
        id,
        message: `Entity ${id} points at a head commit that is missing or not its own.`,
      });
      continue;
    }
    const deleted = Number(ref.deleted) === 1;
    if (deleted !== (head.op === 'delete') || (ref.object === null ? null : String(ref.object)) !== head.object) {
      errors.push({
        code: 'REF_MISMATCH',
        id,
        message: `Entity ${id}'s current state does not match its head commit.`,
      });
    }
    const seen = new Set<string>();
    let hash: string | null = String(ref.head);
    while (hash !== null) {
      if (seen.has(hash)) {
        errors.push({ code: 'CYCLE', id, message: `Entity ${id}'s history loops at commit ${hash}.` });
        break;
      }
      const node = commits.get(hash);
      if (!node) break; // reported above as MISSING_PARENT
      seen.add(hash);
      reachable.add(hash);
      hash = node.parent;
    }
  }
  for (const row of db.iterate(
    `SELECT r.id, r.type, r.agent_id, r.user_id, o.data FROM ${schema}.refs r JOIN ${schema}.objects o ON o.hash = r.object`,
  )) {
    const body = JSON.parse(String(row.data)) as { type?: unknown; agentId?: unknown; userId?: unknown };
    if (body.type !== row.type || body.agentId !== row.agent_id || (body.userId ?? null) !== row.user_id) {
      errors.push({
        code: 'REF_MISMATCH',
        id: String(row.id),
        message: `Entity ${String(row.id)}'s scope does not match its content.`,
      });
    }
  }
  for (const [hash, commit] of commits) {
    if (!reachable.has(hash)) {
      errors.push({
        code: 'ORPHAN_COMMIT',
        id: hash,
        message: `Commit ${hash} of ${commit.entityId} is not on any entity's history.`,
      });
    }
  }
  return { valid: errors.length === 0, totalObjects: objects.size, totalCommits: commits.size, totalEntities, errors };
}
