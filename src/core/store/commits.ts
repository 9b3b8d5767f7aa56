import { legacyProvenance } from '../provenance';
import type { CommitInfo, CommitMeta, CommitOp } from '../types';
import { sha256 } from './hashing';

/*
 * What a commit is made of beyond its content: its hash, its meta (who made
 * it, review and correction links) and the state its entity is left in.
 * Shared by the store that writes commits, verify that checks them and the
 * secret purge that re-hashes them.
 */

/**
 * An entity's state, kept in its ref's `deleted` column and read from its
 * head commit (see stateOfHead): only live entities are served, searched and
 * recalled.
 */
export const REF_STATE = { live: 0, deleted: 1, pending: 2, superseded: 3 } as const;
export type RefState = (typeof REF_STATE)[keyof typeof REF_STATE];

/** The state a head commit leaves its entity in. */
export function stateOfHead(head: { object: unknown; op: CommitOp; review?: CommitMeta['review'] }): RefState {
  if (head.object === null) return REF_STATE.deleted;
  if (head.review === 'pending') return REF_STATE.pending;
  if (head.op === 'supersede') return REF_STATE.superseded;
  return REF_STATE.live;
}

/** The fields a commit's hash covers; `meta` is its stored canonical JSON, null before version 4. */
export type HashedCommit = Pick<CommitInfo, 'entityId' | 'parent' | 'object' | 'time' | 'author' | 'message' | 'op'> & {
  meta: string | null;
};

/**
 * The hash of a commit's canonical JSON. Its fields are known, so the text is
 * written out directly in canonicalJson's key order (the same bytes, without
 * sorting a copy on every write). A commit without meta (made before version
 * 4) hashes as it always did.
 */
export function commitHash(commit: HashedCommit): string {
  const json = (value: string | null) => JSON.stringify(value);
  const meta = commit.meta === null ? '' : `"meta":${commit.meta},`;
  return sha256(
    `{"author":${json(commit.author)},"entityId":${json(commit.entityId)},"message":${json(commit.message)},` +
      `${meta}"object":${json(commit.object)},"op":${json(commit.op)},"parent":${json(commit.parent)},"time":${json(commit.time)}}`,
  );
}

/** A commit's meta as stored (canonical JSON text) read back, or what is known of an older commit. */
export function commitMetaOf(
  stored: string | null,
  author: string,
  op: CommitOp,
): Pick<CommitInfo, 'by' | 'review' | 'proposes' | 'approvedBy' | 'supersedes' | 'supersededBy'> {
  if (stored === null) return { by: legacyProvenance(author, op) };
  let meta: Partial<CommitMeta>;
  try {
    meta = JSON.parse(stored) as Partial<CommitMeta>;
  } catch {
    // Its hash no longer matches either: verify names the commit.
    return { by: legacyProvenance(author, op) };
  }
  const { by, review, proposes, approvedBy, supersedes, supersededBy } = meta;
  return {
    by: by ?? legacyProvenance(author, op),
    ...(review ? { review } : {}),
    ...(proposes ? { proposes } : {}),
    ...(approvedBy ? { approvedBy } : {}),
    ...(supersedes ? { supersedes } : {}),
    ...(supersededBy ? { supersededBy } : {}),
  };
}
