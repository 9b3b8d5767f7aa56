import type { Database } from './store/database';
import { commitHash } from './store/entity-store';
import { sha256 } from './store/hashing';
import { ftsTable } from './store/schema';
import { SEARCHABLE_TYPES, type CommitOp } from './types';

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
  | 'ORPHAN_COMMIT'
  | 'SEARCH_INDEX';

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
  hash: string;
  entityId: string;
  parentSeq: number | null;
  objectSeq: number | null;
  time: string;
  author: string;
  message: string;
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

  const objects = new Map<number, string>();
  for (const row of db.iterate(`SELECT seq, hash, data FROM ${schema}.objects`)) {
    const hash = String(row.hash);
    objects.set(Number(row.seq), hash);
    if (sha256(String(row.data)) !== hash) {
      errors.push({ code: 'OBJECT_HASH_MISMATCH', id: hash, message: `Object ${hash} does not match its content.` });
    }
  }

  const commits = new Map<number, CommitNode>();
  for (const row of db.iterate(`SELECT * FROM ${schema}.commits`)) {
    commits.set(Number(row.seq), {
      hash: String(row.hash),
      entityId: String(row.entity_id),
      parentSeq: row.parent_seq === null ? null : Number(row.parent_seq),
      objectSeq: row.object_seq === null ? null : Number(row.object_seq),
      time: String(row.time),
      author: String(row.author),
      message: String(row.message),
      op: String(row.op) as CommitOp,
    });
  }
  for (const node of commits.values()) {
    const parent = node.parentSeq === null ? undefined : commits.get(node.parentSeq);
    const object = node.objectSeq === null ? undefined : objects.get(node.objectSeq);
    if (node.parentSeq !== null && !parent) {
      errors.push({ code: 'MISSING_PARENT', id: node.hash, message: `Commit ${node.hash} has a missing parent.` });
    } else if (parent && parent.entityId !== node.entityId) {
      errors.push({
        code: 'FOREIGN_PARENT',
        id: node.hash,
        message: `Commit ${node.hash} of ${node.entityId} has a parent of ${parent.entityId}.`,
      });
    }
    if (node.objectSeq !== null && object === undefined) {
      errors.push({
        code: 'MISSING_OBJECT',
        id: node.hash,
        message: `Commit ${node.hash} points at a missing object.`,
      });
    }
    const expected = commitHash({
      entityId: node.entityId,
      parent: parent?.hash ?? null,
      object: object ?? null,
      time: node.time,
      author: node.author,
      message: node.message,
      op: node.op,
    });
    if (expected !== node.hash) {
      errors.push({
        code: 'COMMIT_HASH_MISMATCH',
        id: node.hash,
        message: `Commit ${node.hash} of ${node.entityId} does not match its fields.`,
      });
    }
  }

  const reachable = new Set<number>();
  let totalEntities = 0;
  for (const ref of db.iterate(`SELECT id, head_seq, object_seq, deleted FROM ${schema}.refs`)) {
    totalEntities++;
    const id = String(ref.id);
    const headSeq = Number(ref.head_seq);
    const head = commits.get(headSeq);
    if (!head || head.entityId !== id) {
      errors.push({
        code: 'MISSING_HEAD',
        id,
        message: `Entity ${id} points at a head commit that is missing or not its own.`,
      });
      continue;
    }
    const objectSeq = ref.object_seq === null ? null : Number(ref.object_seq);
    if ((Number(ref.deleted) === 1) !== (head.op === 'delete') || objectSeq !== head.objectSeq) {
      errors.push({
        code: 'REF_MISMATCH',
        id,
        message: `Entity ${id}'s current state does not match its head commit.`,
      });
    }
    const seen = new Set<number>();
    let seq: number | null = headSeq;
    while (seq !== null) {
      if (seen.has(seq)) {
        errors.push({
          code: 'CYCLE',
          id,
          message: `Entity ${id}'s history loops at commit ${commits.get(seq)?.hash}.`,
        });
        break;
      }
      const node = commits.get(seq);
      if (!node) break; // reported above as MISSING_PARENT
      seen.add(seq);
      reachable.add(seq);
      seq = node.parentSeq;
    }
  }
  for (const row of db.iterate(
    `SELECT r.id, r.type, r.agent_id, r.user_id, o.data FROM ${schema}.refs r JOIN ${schema}.objects o ON o.seq = r.object_seq`,
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
  for (const [seq, node] of commits) {
    if (!reachable.has(seq)) {
      errors.push({
        code: 'ORPHAN_COMMIT',
        id: node.hash,
        message: `Commit ${node.hash} of ${node.entityId} is not on any entity's history.`,
      });
    }
  }
  // Snapshots hold the history only; the live store also has its search index.
  if (schema === 'main') errors.push(...searchIndexErrors(db));
  return { valid: errors.length === 0, totalObjects: objects.size, totalCommits: commits.size, totalEntities, errors };
}

/** At most this many rows of each kind of index damage are listed: one is enough to call for a rebuild. */
const INDEX_SAMPLES = 20;
const REBUILD = 'Rebuild the search index (rebuildIndex(), CLI `reindex`, or Memory: Rebuild Index).';

/**
 * The search index against the entities it indexes: every live searchable
 * entity has exactly its own search row, the per-type counts BM25 uses are
 * right, and FTS5 holds every row but those waiting in the queue. The index
 * is derived data, so any damage is repaired by rebuilding it.
 */
function searchIndexErrors(db: Database): VerifyError[] {
  const errors: VerifyError[] = [];
  const searchable = SEARCHABLE_TYPES.map((type) => `'${type}'`).join(', ');
  for (const row of db.all(
    `SELECT r.id FROM refs r LEFT JOIN search_docs d ON d.rowid = r.search_rowid
     WHERE r.deleted = 0 AND r.type IN (${searchable}) AND (d.rowid IS NULL OR d.entity_id <> r.id) LIMIT ${INDEX_SAMPLES}`,
  )) {
    errors.push({
      code: 'SEARCH_INDEX',
      id: String(row.id),
      message: `Entity ${String(row.id)} is not in the search index. ${REBUILD}`,
    });
  }
  for (const row of db.all(
    `SELECT d.rowid, d.entity_id FROM search_docs d LEFT JOIN refs r ON r.id = d.entity_id
     WHERE r.id IS NULL OR r.deleted = 1 OR r.search_rowid IS NOT d.rowid LIMIT ${INDEX_SAMPLES}`,
  )) {
    const id = String(row.entity_id);
    errors.push({ code: 'SEARCH_INDEX', id, message: `The search index holds a stale row for ${id}. ${REBUILD}` });
  }
  const counted = new Map(
    db
      .all('SELECT type, docs, terms FROM search_stats')
      .map((row) => [String(row.type), [Number(row.docs), Number(row.terms)]]),
  );
  for (const type of SEARCHABLE_TYPES) {
    const actual = db.get(
      `SELECT count(*) AS docs, coalesce(sum(length), 0) AS terms,
         (SELECT count(*) FROM search_pending p JOIN search_docs w ON w.rowid = p.rowid WHERE w.type = ?1) AS waiting
       FROM search_docs WHERE type = ?1`,
      type,
    );
    const docs = Number(actual?.docs ?? 0);
    const [statDocs, statTerms] = counted.get(type) ?? [0, 0];
    if (statDocs !== docs || statTerms !== Number(actual?.terms ?? 0)) {
      errors.push({ code: 'SEARCH_INDEX', id: type, message: `The ${type} search counts are wrong. ${REBUILD}` });
    }
    const inFts = Number(db.get(`SELECT count(*) AS n FROM ${ftsTable(type)}_docsize`)?.n ?? 0);
    if (inFts !== docs - Number(actual?.waiting ?? 0)) {
      errors.push({
        code: 'SEARCH_INDEX',
        id: type,
        message: `The ${type} full-text index holds ${inFts} rows where ${docs - Number(actual?.waiting ?? 0)} belong. ${REBUILD}`,
      });
    }
  }
  const lost = Number(
    db.get(
      'SELECT count(*) AS n FROM search_pending p LEFT JOIN search_docs d ON d.rowid = p.rowid WHERE d.rowid IS NULL',
    )?.n ?? 0,
  );
  if (lost > 0)
    errors.push({
      code: 'SEARCH_INDEX',
      id: 'search_pending',
      message: `${lost} waiting search rows have no document. ${REBUILD}`,
    });
  return errors;
}
