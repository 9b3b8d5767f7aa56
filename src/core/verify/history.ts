import { commitHash, commitMetaOf, stateOfHead } from '../store/commits';
import type { Scope } from '../store/object-body';
import { TEAM_AGENT_ID } from '../types';
import type { CommitNode, HistoryTables } from './tables';
import type { VerifyError } from './types';

/**
 * Every commit's parent and object exist, and its parent is a commit of the
 * same entity. A row missing from a table that could not be read whole may
 * still exist: it is not called missing.
 */
export function checkCommitLinks({ objects, commits }: HistoryTables): VerifyError[] {
  const errors: VerifyError[] = [];
  for (const node of commits.rows.values()) {
    if (node.parentSeq !== null) {
      const parent = commits.rows.get(node.parentSeq);
      if (!parent && commits.complete) {
        errors.push({ code: 'MISSING_PARENT', id: node.hash, message: `Commit ${node.hash} has a missing parent.` });
      } else if (parent && parent.entityId !== node.entityId) {
        errors.push({
          code: 'FOREIGN_PARENT',
          id: node.hash,
          message: `Commit ${node.hash} of ${node.entityId} has a parent of ${parent.entityId}.`,
        });
      }
    }
    if (node.objectSeq !== null && !objects.rows.has(node.objectSeq) && objects.complete) {
      errors.push({
        code: 'MISSING_OBJECT',
        id: node.hash,
        message: `Commit ${node.hash} points at a missing object.`,
      });
    }
  }
  return errors;
}

/**
 * Every commit's hash matches its fields, its parent's hash and its object's
 * hash. A missing parent or object counts as none, so the commit cannot match
 * (its hash named one); one that may only be unread is not judged.
 */
export function checkCommitHashes({ objects, commits }: HistoryTables): VerifyError[] {
  const errors: VerifyError[] = [];
  for (const node of commits.rows.values()) {
    const parent = node.parentSeq === null ? undefined : commits.rows.get(node.parentSeq);
    const object = node.objectSeq === null ? undefined : objects.rows.get(node.objectSeq);
    if (
      (node.parentSeq !== null && !parent && !commits.complete) ||
      (node.objectSeq !== null && !object && !objects.complete)
    ) {
      continue;
    }
    const expected = commitHash({
      entityId: node.entityId,
      parent: parent?.hash ?? null,
      object: object?.hash ?? null,
      time: node.time,
      author: node.author,
      message: node.message,
      op: node.op,
      meta: node.meta,
    });
    if (expected !== node.hash) {
      errors.push({
        code: 'COMMIT_HASH_MISMATCH',
        id: node.hash,
        message: `Commit ${node.hash} of ${node.entityId} does not match its fields.`,
      });
    }
  }
  return errors;
}

const sameScope = (a: Scope, b: Scope): boolean =>
  a.type === b.type && a.agentId === b.agentId && a.userId === b.userId;

const describe = (scope: Scope): string =>
  `${scope.type} of agent ${scope.agentId}${scope.userId === undefined ? '' : ` and user ${scope.userId}`}`;

/**
 * Every ref's head is a commit of its own entity, and the ref's current
 * state (deleted or not, current object, type, agent and user) is the head's.
 */
export function checkRefs({ objects, commits, refs }: HistoryTables): VerifyError[] {
  const errors: VerifyError[] = [];
  for (const ref of refs.rows.values()) {
    const head = commits.rows.get(ref.headSeq);
    const missing = head === undefined ? commits.complete : head.entityId !== ref.id;
    if (missing) {
      errors.push({
        code: 'MISSING_HEAD',
        id: ref.id,
        message: `Entity ${ref.id} points at a head commit that is missing or not its own.`,
      });
      continue;
    }
    const headState =
      head &&
      stateOfHead({
        object: head.objectSeq,
        op: head.op,
        review: commitMetaOf(head.meta, head.author, head.op).review,
      });
    if (head && (ref.state !== headState || ref.objectSeq !== head.objectSeq)) {
      errors.push({
        code: 'REF_MISMATCH',
        id: ref.id,
        message: `Entity ${ref.id}'s current state does not match its head commit.`,
      });
    }
    const scope = ref.objectSeq === null ? undefined : objects.rows.get(ref.objectSeq)?.scope;
    if (scope && !sameScope(scope, ref)) {
      errors.push({
        code: 'REF_MISMATCH',
        id: ref.id,
        message: `Entity ${ref.id}'s scope (${describe(ref)}) does not match its content (${describe(scope)}).`,
      });
    }
  }
  return errors;
}

/** What walking the entities' histories found, and which commits it reached. */
export interface ChainWalk {
  errors: VerifyError[];
  reachable: Set<number>;
}

/**
 * Walks every entity's history from its head to its root: the walk must end
 * (no CYCLE), and from one version to the next the entity keeps its type,
 * agent and user unless the commit is an import, the one operation that
 * replaces an entity wholesale. Updates keep the scope by construction, so a
 * change anywhere else means a forged or misfiled version (SCOPE_CHANGED).
 * The walk stops at a parent of another entity: FOREIGN_PARENT reports it.
 */
export function walkChains({ objects, commits, refs }: HistoryTables): ChainWalk {
  const errors: VerifyError[] = [];
  const reachable = new Set<number>();
  for (const ref of refs.rows.values()) {
    const chain: CommitNode[] = [];
    const seen = new Set<number>();
    let seq: number | null = ref.headSeq;
    while (seq !== null) {
      const node = commits.rows.get(seq);
      if (!node || node.entityId !== ref.id) break; // MISSING_HEAD, MISSING_PARENT or FOREIGN_PARENT
      if (seen.has(seq)) {
        errors.push({ code: 'CYCLE', id: ref.id, message: `Entity ${ref.id}'s history loops at commit ${node.hash}.` });
        break;
      }
      seen.add(seq);
      reachable.add(seq);
      chain.push(node);
      seq = node.parentSeq;
    }
    errors.push(...scopeChanges(ref.id, chain.reverse(), (objectSeq) => objects.rows.get(objectSeq)?.scope));
  }
  return { errors, reachable };
}

/** Why going from `before` to `after` in a commit of `op` is wrong, if it is. */
function scopeChangeProblem(before: Scope, after: Scope, op: string): string | undefined {
  if (before.type !== after.type) return 'an entity never changes type';
  if (sameScope(before, after) || op === 'import') return undefined;
  // Sharing with the team and making personal again move an entity into and out of the team scope
  // (see team/team.ts), as does a team file that takes an id in (team/sync.ts): nothing else does.
  if (op === 'update' && (before.agentId === TEAM_AGENT_ID) !== (after.agentId === TEAM_AGENT_ID)) return undefined;
  return 'only an import, or sharing with the team and back, may move an entity to another agent or user';
}

/** Scope changes along one history, oldest commit first. */
function scopeChanges(
  entityId: string,
  chain: readonly CommitNode[],
  scopeAt: (objectSeq: number) => Scope | undefined,
): VerifyError[] {
  const errors: VerifyError[] = [];
  let previous: Scope | undefined;
  for (const node of chain) {
    const scope = node.objectSeq === null ? undefined : scopeAt(node.objectSeq);
    if (!scope) continue; // a delete, or an object missing or unreadable (reported on its own)
    const why = previous && scopeChangeProblem(previous, scope, node.op);
    if (previous && why) {
      errors.push({
        code: 'SCOPE_CHANGED',
        id: entityId,
        message: `Entity ${entityId} changed from a ${describe(previous)} to a ${describe(scope)} at commit ${node.hash} (${node.op}): ${why}.`,
      });
    }
    previous = scope;
  }
  return errors;
}

/** Every commit is on some entity's history. Needs every commit and every ref. */
export function checkOrphans({ commits }: HistoryTables, reachable: ReadonlySet<number>): VerifyError[] {
  const errors: VerifyError[] = [];
  for (const [seq, node] of commits.rows) {
    if (!reachable.has(seq)) {
      errors.push({
        code: 'ORPHAN_COMMIT',
        id: node.hash,
        message: `Commit ${node.hash} of ${node.entityId} is not on any entity's history.`,
      });
    }
  }
  return errors;
}
