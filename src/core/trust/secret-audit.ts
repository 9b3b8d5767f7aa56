import { MemoryError } from '../errors';
import type { EventBus } from '../events';
import { type FieldFinding, guardFields } from '../secrets/guard';
import { commitHash, REF_STATE } from '../store/commits';
import type { CommitLinks, EntityStore, VersionBody } from '../store/entity-store';
import { canonicalJson, sha256 } from '../store/hashing';
import { storedBody } from '../store/object-body';
import { num, numOrNull, text, textOrNull } from '../store/rows';
import type { CommitInfo, EntityType } from '../types';
import { assertId, isArray } from '../validation';

/** An entity that holds secrets: in its current version, in older ones, or both. */
export interface SecretHolder {
  id: string;
  type: EntityType;
  /** What the current version holds (empty if only older versions do, or the entity is deleted). */
  current: Omit<FieldFinding, 'start' | 'end'>[];
  /** How many of its older versions hold a secret. */
  olderVersions: number;
}

export interface PurgeReport {
  /** Versions whose text was rewritten with the secrets redacted. */
  versions: number;
  /** Commits whose hash changed with them (their own version, or an ancestor's, was rewritten). */
  commits: number;
  entities: string[];
}

/** What an object holds, under the guard: findings and the redacted body (undefined when clean or unreadable). */
function scanObject(data: string, hash: string): { body: VersionBody; findings: FieldFinding[] } | undefined {
  const body = storedBody(data, hash);
  if (!body) return undefined;
  // Ids are left as they are (redacted, one would no longer name its scope); the guard refuses
  // new ones that hold a secret.
  const { type, agentId, userId, ...fields } = body;
  const { body: redacted, findings } = guardFields(fields, 'redact');
  if (findings.length === 0) return undefined;
  return { body: { ...redacted, type, agentId, ...(userId === undefined ? {} : { userId }) }, findings };
}

/**
 * Secrets already in a store (written before the guard, or under `allow`):
 * find them, redact the current versions as new commits, and on request
 * purge the older versions, the one operation that rewrites history.
 */
export class SecretAudit {
  constructor(
    private readonly store: EntityStore,
    private readonly events: EventBus,
  ) {}

  /** Every entity holding a secret in any of its versions. Reads every version once. */
  async scan(): Promise<SecretHolder[]> {
    return this.store.db.transaction(() => {
      const dirty = new Map<number, FieldFinding[]>();
      for (const row of this.store.db.iterate('SELECT seq, hash, data FROM objects')) {
        const found = scanObject(text(row, 'objects', 'data'), text(row, 'objects', 'hash'));
        if (found) dirty.set(num(row, 'objects', 'seq'), found.findings);
      }
      if (dirty.size === 0) return [];
      const holders = new Map<string, SecretHolder>();
      for (const row of this.store.db.iterate(
        `SELECT c.entity_id, c.object_seq, r.type, r.object_seq AS current, r.deleted
         FROM commits c JOIN refs r ON r.id = c.entity_id
         WHERE c.object_seq IN (SELECT value FROM json_each(?)) ORDER BY c.seq`,
        JSON.stringify([...dirty.keys()]),
      )) {
        const id = text(row, 'commits', 'entity_id');
        const objectSeq = num(row, 'commits', 'object_seq');
        const holder = holders.get(id) ?? {
          id,
          type: text(row, 'refs', 'type') as EntityType,
          current: [],
          olderVersions: 0,
        };
        const isCurrent =
          numOrNull(row, 'refs', 'current') === objectSeq && num(row, 'refs', 'deleted') !== REF_STATE.deleted;
        if (isCurrent) holder.current = dirty.get(objectSeq)!.map(({ kind, field, line }) => ({ kind, field, line }));
        else holder.olderVersions++;
        holders.set(id, holder);
      }
      return [...holders.values()];
    });
  }

  /** New versions of `ids` with their secrets redacted (whatever the store's policy), in one transaction. */
  async redact(ids: readonly string[]): Promise<CommitInfo[]> {
    this.assertIds(ids);
    const commits = this.store.db.transaction(() => {
      const made = ids.flatMap((id) => {
        const ref = this.store.readRef(id);
        if (!ref) throw new MemoryError('NOT_FOUND', `No entity with id ${id}.`);
        if (ref.objectSeq === null || ref.object === null) return [];
        const row = this.store.db.get('SELECT data FROM objects WHERE seq = ?', ref.objectSeq);
        const found = row ? scanObject(text(row, 'objects', 'data'), ref.object) : undefined;
        if (!found) return [];
        const kinds = [...new Set(found.findings.map((finding) => finding.kind))].join(', ');
        // The redacted version keeps the entity's state: one waiting for review still waits (with
        // what it proposes), one a correction retired stays retired.
        const head = this.store.getAny(id)?.head;
        const op = ref.state === REF_STATE.superseded ? 'supersede' : 'update';
        const links: CommitLinks =
          ref.state === REF_STATE.pending
            ? { review: 'pending', ...(head?.proposes ? { proposes: head.proposes } : {}) }
            : ref.state === REF_STATE.superseded && head?.supersededBy
              ? { supersededBy: head.supersededBy }
              : {};
        const message = `redact ${kinds}`;
        return [this.store.write({ id, body: found.body, op, message, links, guarded: true }).commit];
      });
      this.store.log.record(
        'redact',
        null,
        made.map((commit) => commit.entityId),
      );
      return made;
    });
    for (const commit of commits) {
      const type = this.store.readRef(commit.entityId)?.type;
      if (type)
        this.events.emit('entity:state', { entityId: commit.entityId, entityType: type, state: 'live', commit });
    }
    return commits;
  }

  /**
   * Rewrites every stored version of `ids` that holds a secret with the
   * secret redacted, then re-hashes their commits so verify still finds the
   * history whole: the one operation that changes history. The current
   * versions are redacted first (as new commits). Recorded in the audit log.
   * Snapshots are copies and keep what they hold: delete those that hold a
   * secret.
   */
  async purge(ids: readonly string[]): Promise<PurgeReport> {
    this.assertIds(ids);
    const live = ids.filter((id) => this.store.readRef(id)?.state !== REF_STATE.deleted);
    if (live.some((id) => this.store.readRef(id)?.objectSeq !== null)) await this.redact(live);
    // SQLite leaves a rewritten row's old bytes in free space and the write-ahead log until they
    // are reused: zeroed as they are freed, and the log emptied into the file, the secret is gone
    // from disk too.
    this.store.db.exec('PRAGMA secure_delete = ON');
    try {
      const report = this.rewrite(ids);
      this.store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return report;
    } finally {
      this.store.db.exec('PRAGMA secure_delete = OFF');
    }
  }

  /** The purge itself, in one transaction: see purge. */
  private rewrite(ids: readonly string[]): PurgeReport {
    return this.store.db.transaction(() => {
      const entities = new Set(ids);
      for (const id of ids) if (!this.store.readRef(id)) throw new MemoryError('NOT_FOUND', `No entity with id ${id}.`);
      // The versions of these entities that hold a secret.
      const objects = this.store.db.all(
        `SELECT DISTINCT o.seq, o.hash, o.data FROM commits c JOIN objects o ON o.seq = c.object_seq
         WHERE c.entity_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(ids),
      );
      const rewritten = new Map<number, number>();
      for (const row of objects) {
        const seq = num(row, 'objects', 'seq');
        const found = scanObject(text(row, 'objects', 'data'), text(row, 'objects', 'hash'));
        if (!found) continue;
        const data = canonicalJson(found.body);
        const hash = sha256(data);
        const existing = this.store.db.get('SELECT seq FROM objects WHERE hash = ?', hash);
        if (existing) rewritten.set(seq, num(existing, 'objects', 'seq'));
        else {
          this.store.db.run('UPDATE objects SET hash = ?, data = ? WHERE seq = ?', hash, data, seq);
          rewritten.set(seq, seq);
        }
      }
      if (rewritten.size === 0) {
        throw new MemoryError('NOT_FOUND', 'None of these entities holds a secret in its history.');
      }
      // Every commit that pointed at a rewritten version, of any entity (a version is shared by equal content).
      for (const [from, to] of rewritten) {
        for (const row of this.store.db.all('SELECT DISTINCT entity_id FROM commits WHERE object_seq = ?', from)) {
          entities.add(text(row, 'commits', 'entity_id'));
        }
        if (from !== to) {
          this.store.db.run('UPDATE commits SET object_seq = ? WHERE object_seq = ?', to, from);
          this.store.db.run('UPDATE refs SET object_seq = ? WHERE object_seq = ?', to, from);
          this.store.db.run('DELETE FROM objects WHERE seq = ?', from);
        }
      }
      const commits = this.rehash([...entities]);
      this.store.log.record('purge', null, [...entities], { versions: rewritten.size, commits, ids: [...entities] });
      return { versions: rewritten.size, commits, entities: [...entities] };
    });
  }

  /** Recomputes the hashes of every commit of `ids`, oldest first (a parent's new hash feeds its children's). */
  private rehash(ids: readonly string[]): number {
    const hashes = new Map<number, string>();
    let changed = 0;
    // Read whole before any update: the loop rewrites the rows it reads.
    for (const row of this.store.db.all(
      `SELECT c.seq, c.hash, c.entity_id, c.parent_seq, c.time, c.author, c.message, c.op, c.meta, o.hash AS object
       FROM commits c LEFT JOIN objects o ON o.seq = c.object_seq
       WHERE c.entity_id IN (SELECT value FROM json_each(?)) ORDER BY c.seq`,
      JSON.stringify(ids),
    )) {
      const parentSeq = numOrNull(row, 'commits', 'parent_seq');
      const parent =
        parentSeq === null
          ? null
          : (hashes.get(parentSeq) ??
            text(this.store.db.get('SELECT hash FROM commits WHERE seq = ?', parentSeq) ?? {}, 'commits', 'hash'));
      const hash = commitHash({
        entityId: text(row, 'commits', 'entity_id'),
        parent,
        object: textOrNull(row, 'objects', 'object'),
        time: text(row, 'commits', 'time'),
        author: text(row, 'commits', 'author'),
        message: text(row, 'commits', 'message'),
        op: text(row, 'commits', 'op') as CommitInfo['op'],
        meta: textOrNull(row, 'commits', 'meta'),
      });
      const seq = num(row, 'commits', 'seq');
      hashes.set(seq, hash);
      if (hash !== text(row, 'commits', 'hash')) {
        this.store.db.run('UPDATE commits SET hash = ? WHERE seq = ?', hash, seq);
        changed++;
      }
    }
    return changed;
  }

  private assertIds(ids: readonly string[]): void {
    if (!isArray(ids) || ids.length === 0) throw new MemoryError('INVALID_INPUT', 'Name at least one entity.');
    ids.forEach((id) => assertId(id));
  }
}
