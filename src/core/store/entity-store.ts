import { MemoryError } from '../errors';
import { currentProvenance, type Provenance } from '../provenance';
import type { EntityIndexer } from '../search/fts-index';
import { guardFields, guardText, type SecretPolicy } from '../secrets/guard';
import {
  type CommitInfo,
  type CommitMeta,
  type CommitOp,
  type Entity,
  type EntityType,
  type HistoryEntry,
  TEAM_AGENT_ID,
} from '../types';
import { assertContentSize } from '../validation';
import { commitHash, commitMetaOf, REF_STATE, type RefState, stateOfHead } from './commits';
import { assertNotDamaged } from './damage-marker';
import type { Database } from './database';
import {
  COMMIT_SELECT,
  ENTITY_SELECT,
  type ListFilter,
  REF_SELECT,
  type RefRow,
  rowToEntity,
  toCommit,
  toRef,
  whereClause,
} from './entity-queries';
import { canonicalJson, sha256 } from './hashing';
import { missingTableError } from './missing-table';
import { decodeBody, entityFromBody, storedBody } from './object-body';
import { splitPlace, withPlace } from './place';
import { commitRow, countOf, num, numOrNull, objectRow, text } from './rows';
import { createMissingTables, HISTORY_TABLES, missingTables } from './schema';
import { AccessCounts, AuditLog, sideTable } from './side-tables';

/**
 * The versioned part of an entity: everything but its id and timestamps.
 * It is what gets hashed, so identical content in the same scope is stored once.
 */
export type VersionBody = { type: EntityType; agentId: string; userId?: string } & Record<string, unknown>;

/** Whether a version is about code: it cites lines or names files by `appliesTo` (found through refs_cites). */
const anchored = (body: Record<string, unknown>): boolean =>
  (Array.isArray(body.citations) && body.citations.length > 0) ||
  (Array.isArray(body.appliesTo) && body.appliesTo.length > 0);

/** Fields that hold ids (scopes and links), never redacted: see guardBody. */
const ID_FIELDS: ReadonlySet<string> = new Set([
  'type',
  'agentId',
  'userId',
  'supersedes',
  'sourceSession',
  'conversationId',
  'sourceHash',
]);

/**
 * Told of every change to an entity of the team scope, inside the write's
 * transaction, so that the team folder's file is written (or removed) with
 * the commit or not at all: a file that cannot be written fails the write.
 * Not told of the changes the folder itself brought (writer kind `team`).
 */
export interface TeamMirror {
  /**
   * `entity`: the live team entity now; undefined when it is no longer one
   * (deleted, held, retired, made personal). `author`: who made the change.
   */
  changed(id: string, entity: Entity | undefined, author: string): void;
}

/** What a write adds to its commit's meta besides who made it. */
export type CommitLinks = Omit<CommitMeta, 'by'>;

export interface WriteRequest {
  id: string;
  body: VersionBody;
  op: CommitOp;
  message: string;
  /** Review and correction links for the commit; `review: 'pending'` stores the entity as waiting for review. */
  links?: CommitLinks;
  /** The body already went through guardBody (a collection does it before embedding): not scanned again. */
  guarded?: boolean;
  /** Only for imports, which keep the original timestamps. */
  createdAt?: string;
  time?: string;
  /** The id was just generated, so there is no ref to read first. */
  fresh?: boolean;
}

export interface WriteResult {
  entity: Entity;
  commit: CommitInfo;
  /** False when the body equals the current version: no commit was made. */
  changed: boolean;
  /** No new version, but the entity moved (a chunk's place, see place.ts): readers should look again. */
  moved: boolean;
  /** The row of the entity's current object. */
  objectSeq: number;
}

/**
 * The store's synchronous heart: objects, commit chains, refs, access counts
 * and the audit log on one SQLite connection. Write methods must run inside
 * `db.transaction`; the async collections above take care of that.
 */
export class EntityStore {
  constructor(
    readonly db: Database,
    private readonly now: () => Date,
    private readonly author: string,
    private readonly indexer: EntityIndexer,
    /** Who writes when the work running does not say (see withProvenance). */
    private readonly writer: Provenance,
    /** What happens to a secret in a write (see secrets/guard.ts). */
    private readonly secrets: SecretPolicy = 'redact',
  ) {
    this.access = new AccessCounts(db, () => this.timestamp());
    this.log = new AuditLog(db, () => this.timestamp());
  }

  /** Read counts, beside the history. */
  readonly access: AccessCounts;
  /** Where team entities are kept as files, when the store has a team folder (see team/mirror.ts). */
  teamMirror: TeamMirror | undefined;

  /** Tells the team mirror of a change to `id`, when it is or was a team entity and the folder did not bring it. */
  private mirror(id: string, wasTeam: boolean, entity: Entity | undefined, commit: CommitInfo): void {
    if (!this.teamMirror || this.currentWriter().kind === 'team') return;
    const isTeam = entity?.agentId === TEAM_AGENT_ID;
    if (wasTeam || isTeam) this.teamMirror.changed(id, isTeam ? entity : undefined, commit.author);
  }
  /** What was done, one entry per operation. */
  readonly log: AuditLog;

  /** Who is writing now: the work's provenance, or the store's default writer. */
  currentWriter(): Provenance {
    return currentProvenance() ?? this.writer;
  }

  /** The body of a stored version by its object hash, if it is stored and readable. */
  bodyByHash(hash: string, entityId: string): VersionBody | undefined {
    const row = this.db.get('SELECT seq FROM objects WHERE hash = ?', hash);
    return row ? this.objectBodyAt(num(row, 'objects', 'seq'), entityId) : undefined;
  }

  /**
   * A body under the secret policy: secrets redacted (or the write refused
   * with SECRET_DETECTED), before anything is hashed, stored or embedded.
   * Every write goes through it: in write(), unless the caller already did.
   */
  guardBody<B extends Record<string, unknown>>(body: B, policy: SecretPolicy = this.secrets): B {
    if (policy === 'allow') return body;
    // Ids name scopes and links: redacted, one would stop being a valid id (or merge two scopes), so
    // an id holding a secret is refused whatever the policy.
    const ids: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) (ID_FIELDS.has(key) ? ids : rest)[key] = value;
    const found = guardFields(ids, 'redact').findings[0];
    if (found) {
      throw new MemoryError(
        'SECRET_DETECTED',
        `The ${found.field} looks like a secret (${found.kind}); an id may not hold one. Use another id.`,
      );
    }
    const guarded = guardFields(rest, policy).body;
    if (guarded === rest) return body;
    // A redaction mark can be longer than what it replaces: the content limit still holds.
    if (typeof guarded.content === 'string') assertContentSize(String(body.type), guarded.content);
    return { ...ids, ...guarded } as B;
  }

  timestamp(): string {
    return this.now().toISOString();
  }

  readRef(id: string): RefRow | undefined {
    const row = this.db.get(`${REF_SELECT} WHERE r.id = ?`, id);
    return row ? toRef(row) : undefined;
  }

  get(id: string): Entity | null {
    const row = this.db.get(`${ENTITY_SELECT} WHERE r.id = ? AND r.deleted = 0`, id);
    return row ? rowToEntity(row) : null;
  }

  list(filter: ListFilter, page?: { limit: number; offset: number }): Entity[] {
    const { where, params } = whereClause(filter);
    const paging = page ? ` LIMIT ${page.limit} OFFSET ${page.offset}` : '';
    return this.db
      .all(`${ENTITY_SELECT} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC${paging}`, ...params)
      .map(rowToEntity);
  }

  count(filter: ListFilter): number {
    const { where, params } = whereClause(filter);
    return countOf(this.db.get(`SELECT count(*) AS n FROM refs r WHERE ${where}`, ...params), 'refs');
  }

  /** Profiles of one user across agents, most recently updated first. */
  profilesOfUser(userId: string, limit: number): Entity[] {
    return this.db
      .all(
        `${ENTITY_SELECT} WHERE r.type = 'profile' AND r.user_id = ? AND r.deleted = 0 ORDER BY r.updated_at DESC LIMIT ?`,
        userId,
        limit,
      )
      .map(rowToEntity);
  }

  private commitAt(
    seq: number,
  ): { commit: CommitInfo; parentSeq: number | null; objectSeq: number | null } | undefined {
    const row = this.db.get(`${COMMIT_SELECT} WHERE c.seq = ?`, seq);
    if (!row) return undefined;
    const stored = commitRow(row);
    return { commit: toCommit(stored, row), parentSeq: stored.parentSeq, objectSeq: stored.objectSeq };
  }

  private objectBodyAt(seq: number, entityId: string): VersionBody | undefined {
    const row = this.db.get('SELECT hash, data FROM objects WHERE seq = ?', seq);
    if (!row) return undefined;
    const { hash, data } = objectRow(row);
    return decodeBody(data, hash, entityId);
  }

  /** The commits of one entity, newest first, each with the entity as it was then. */
  history(id: string): HistoryEntry[] {
    const ref = this.readRef(id);
    if (!ref) return [];
    const entries: HistoryEntry[] = [];
    const seen = new Set<number>();
    let seq: number | null = ref.headSeq;
    while (seq !== null && !seen.has(seq)) {
      seen.add(seq);
      const found = this.commitAt(seq);
      if (!found) break; // verify() reports the broken chain; history shows what it can.
      const body = found.objectSeq === null ? undefined : this.objectBodyAt(found.objectSeq, id);
      // The ref's place is where the current version sits now; older versions keep what they recorded.
      const placed = body && seq === ref.headSeq ? withPlace(body, ref.place) : body;
      entries.push({
        commit: found.commit,
        entity: placed ? entityFromBody(id, placed, ref.createdAt, found.commit.time) : null,
      });
      seq = found.parentSeq;
    }
    return entries;
  }

  /** Writes a new version of an entity (creating it if needed). Must run in a transaction. */
  write(unguarded: WriteRequest): WriteResult {
    this.assertWritable();
    const request = unguarded.guarded ? unguarded : { ...unguarded, body: this.guardBody(unguarded.body) };
    const ref = request.fresh ? undefined : this.readRef(request.id);
    if (ref && ref.type !== request.body.type) {
      throw new MemoryError(
        'TYPE_MISMATCH',
        `The id ${request.id} belongs to a ${ref.type}, not a ${request.body.type}.`,
      );
    }
    // A chunk's place is kept beside its versions: moved, it keeps its version. A version written
    // back without one (a revert, an older version restored) stays where the chunk is.
    const split = splitPlace(request.body);
    const { body } = split;
    const place = split.place ?? ref?.place ?? null;
    const data = canonicalJson(body);
    const object = sha256(data);
    const time = request.time ?? this.timestamp();
    const createdAt = ref && !ref.deleted ? ref.createdAt : (request.createdAt ?? time);
    // The state the new head leaves the entity in: live, or held for review, or (a redaction of a
    // retired memory, written with op 'supersede') still superseded.
    const state = stateOfHead({ object, op: request.op, review: request.links?.review });
    if (ref && ref.state === REF_STATE.live && state === REF_STATE.live && this.holdsVersion(ref, object)) {
      const head = this.commitAt(ref.headSeq);
      if (head) {
        const moved = ref.place !== place;
        if (moved) this.db.run('UPDATE refs SET place = ? WHERE id = ?', place, request.id);
        return {
          entity: entityFromBody(request.id, request.body, createdAt, ref.updatedAt),
          commit: head.commit,
          changed: false,
          moved,
          objectSeq: ref.objectSeq ?? 0,
        };
      }
    }
    const objectSeq = this.putObject(object, data);
    const { commit, seq } = this.appendCommit(
      request.id,
      ref ?? null,
      object,
      objectSeq,
      request.op,
      request.message,
      time,
      request.links,
    );
    // Indexed before the ref is written, so the ref records its search row in the same statement.
    // An entity that is not live is not searchable: it leaves the index if it was in it.
    let searchRowid: number | null = null;
    if (state === REF_STATE.live) searchRowid = this.indexer.index(request.id, body, request.fresh === true);
    else if (ref?.state === REF_STATE.live) this.indexer.remove(request.id);
    this.db.run(
      `INSERT INTO refs (id, type, agent_id, user_id, head_seq, object_seq, deleted, created_at, updated_at,
         conversation_id, source, search_rowid, place, cites)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET agent_id = excluded.agent_id, user_id = excluded.user_id,
         head_seq = excluded.head_seq, object_seq = excluded.object_seq, deleted = excluded.deleted,
         created_at = excluded.created_at, updated_at = excluded.updated_at,
         conversation_id = excluded.conversation_id, source = excluded.source, search_rowid = excluded.search_rowid,
         place = excluded.place, cites = excluded.cites`,
      request.id,
      request.body.type,
      request.body.agentId,
      request.body.userId ?? null,
      seq,
      objectSeq,
      state,
      createdAt,
      commit.time,
      typeof request.body.conversationId === 'string' ? request.body.conversationId : null,
      typeof request.body.source === 'string' ? request.body.source : null,
      searchRowid,
      place,
      anchored(body) ? 1 : null,
    );
    const entity = entityFromBody(request.id, request.body, createdAt, commit.time);
    this.mirror(request.id, ref?.agentId === TEAM_AGENT_ID, state === REF_STATE.live ? entity : undefined, commit);
    return { entity, commit, changed: true, moved: false, objectSeq };
  }

  /**
   * Whether the ref's current version already says what `object` does: the
   * same object, or (a chunk written before schema 5, with its place inside
   * its version) the same once its place is taken out.
   */
  private holdsVersion(ref: RefRow, object: string): boolean {
    if (ref.object === object) return true;
    if (ref.type !== 'knowledge' || ref.objectSeq === null) return false;
    const stored = this.objectBodyAt(ref.objectSeq, ref.id);
    return stored !== undefined && sha256(canonicalJson(splitPlace(stored).body)) === object;
  }

  /** Stores an object once; returns its row whether it was new or already there. */
  private putObject(hash: string, data: string): number {
    const inserted = this.db.run('INSERT OR IGNORE INTO objects (hash, data) VALUES (?, ?)', hash, data);
    if (inserted.changes === 1) return inserted.lastInsertRowid;
    // The insert was ignored, so the row is there: reading nothing back is damage.
    return num(this.db.get('SELECT seq FROM objects WHERE hash = ?', hash) ?? {}, 'objects', 'seq');
  }

  /** Ends an entity's chain with a tombstone commit. Must run in a transaction. */
  tombstone(ref: RefRow, message: string, links?: CommitLinks): CommitInfo {
    this.assertWritable();
    const { commit, seq } = this.appendCommit(ref.id, ref, null, null, 'delete', message, undefined, links);
    // Out of the index first: it finds the entity's search row through the ref.
    if (ref.state === REF_STATE.live) this.indexer.remove(ref.id);
    this.db.run(
      'UPDATE refs SET head_seq = ?, object_seq = NULL, deleted = 1, updated_at = ?, search_rowid = NULL WHERE id = ?',
      seq,
      commit.time,
      ref.id,
    );
    this.mirror(ref.id, ref.agentId === TEAM_AGENT_ID, undefined, commit);
    return commit;
  }

  /**
   * Moves an entity that has content between live, pending and superseded
   * with a commit of the same content: an approval, a retirement by a
   * correction, or its undoing. The search index follows. Must run in a
   * transaction.
   */
  changeState(
    ref: RefRow,
    op: 'approve' | 'supersede' | 'reinstate',
    message: string,
    links?: CommitLinks,
  ): CommitInfo {
    this.assertWritable();
    if (ref.objectSeq === null || ref.object === null) {
      throw new MemoryError('NOT_FOUND', `Entity ${ref.id} is deleted.`);
    }
    const { commit, seq } = this.appendCommit(ref.id, ref, ref.object, ref.objectSeq, op, message, undefined, links);
    const state = stateOfHead(commit);
    let searchRowid: number | null = null;
    let live: Entity | undefined;
    if (state === REF_STATE.live) {
      const body = this.objectBodyAt(ref.objectSeq, ref.id);
      if (body) searchRowid = this.indexer.index(ref.id, body, false);
      if (body) live = entityFromBody(ref.id, body, ref.createdAt, commit.time);
    } else if (ref.state === REF_STATE.live) this.indexer.remove(ref.id);
    this.db.run(
      'UPDATE refs SET head_seq = ?, deleted = ?, updated_at = ?, search_rowid = ? WHERE id = ?',
      seq,
      state,
      commit.time,
      searchRowid,
      ref.id,
    );
    this.mirror(ref.id, ref.agentId === TEAM_AGENT_ID, live, commit);
    return commit;
  }

  /** The entity whatever its state (pending, superseded, deleted: its last content), for review and the views. */
  getAny(id: string): { entity: Entity; state: RefState; head: CommitInfo } | undefined {
    const ref = this.readRef(id);
    if (!ref) return undefined;
    const head = this.commitAt(ref.headSeq)?.commit;
    if (!head) return undefined;
    let seq: number | null = ref.objectSeq;
    if (seq === null) {
      // Deleted: its last content is the parent's.
      const parent = this.db.get(
        'SELECT object_seq FROM commits WHERE seq = (SELECT parent_seq FROM commits WHERE seq = ?)',
        ref.headSeq,
      );
      seq = parent ? numOrNull(parent, 'commits', 'object_seq') : null;
    }
    const body = seq === null ? undefined : this.objectBodyAt(seq, id);
    if (!body) return undefined;
    const placed = seq === ref.objectSeq ? withPlace(body, ref.place) : body;
    return { entity: entityFromBody(id, placed, ref.createdAt, ref.updatedAt), state: ref.state, head };
  }

  /**
   * A store verify found damaged takes no new versions until a verify finds
   * it whole (see damage-marker.ts). Asked once per transaction: a bulk save
   * checks once, not once per entity. Repairs (reindex, a snapshot restore)
   * do not ask.
   */
  private assertWritable(): void {
    this.db.perTransaction(
      'damage_checked',
      () => assertNotDamaged(this.db.path),
      () => undefined,
    );
  }

  /**
   * Re-creates the search index, all of its tables, from the live entities;
   * returns how many are searchable. An entity whose current version cannot
   * be read is left out rather than stopping the rebuild: no read can return
   * it either, and verify lists its object. Must run in a transaction.
   *
   * Also puts back, empty, the store's tables that hold no entities (read
   * counts, vectors, document sync state, the audit log) when another tool
   * dropped them: every write that touches one would fail until then. A
   * missing history table is refused instead: made again empty, it would
   * hide that the entities are gone.
   */
  reindex(): number {
    const history = missingTables(this.db, HISTORY_TABLES);
    if (history.length > 0) throw missingTableError(this.db.path, history[0]!);
    createMissingTables(this.db);
    this.indexer.clear();
    // Search rows are numbered afresh: no ref may keep pointing at an old one.
    this.db.run('UPDATE refs SET search_rowid = NULL WHERE search_rowid IS NOT NULL');
    let count = 0;
    for (const row of this.db.iterate(
      'SELECT r.id, o.hash, o.data FROM refs r JOIN objects o ON o.seq = r.object_seq WHERE r.deleted = 0',
    )) {
      const id = text(row, 'refs', 'id');
      const body = storedBody(row.data, row.hash);
      if (!body) continue;
      const searchRowid = this.indexer.index(id, body, true);
      this.db.run('UPDATE refs SET search_rowid = ? WHERE id = ?', searchRowid, id);
      // Counted: what a search finds again, entities and the sessions whose turns were indexed.
      if (searchRowid !== null || body.type === 'session') count++;
    }
    return count;
  }

  /** Live entities by id, with how often each was read; unknown or deleted ids are left out. */
  getWithAccess(ids: readonly string[]): Map<string, { entity: Entity; accessCount: number }> {
    const found = new Map<string, { entity: Entity; accessCount: number }>();
    // One statement for any number of ids: they arrive as a JSON array.
    const rows = sideTable(this.db, () =>
      this.db.all(
        `SELECT r.id, r.created_at, r.updated_at, r.place, o.hash, o.data, coalesce(a.count, 0) AS access_count
       FROM json_each(?) j JOIN refs r ON r.id = j.value JOIN objects o ON o.seq = r.object_seq
       LEFT JOIN access a ON a.entity_id = r.id
       WHERE r.deleted = 0`,
        JSON.stringify(ids),
      ),
    );
    for (const row of rows) {
      const entity = rowToEntity(row);
      found.set(entity.id, { entity, accessCount: num(row, 'access', 'access_count') });
    }
    return found;
  }

  private appendCommit(
    entityId: string,
    parent: RefRow | null,
    object: string | null,
    objectSeq: number | null,
    op: CommitOp,
    message: string,
    time = this.timestamp(),
    links: CommitLinks = {},
  ): { commit: CommitInfo; seq: number } {
    const by = this.currentWriter();
    const meta: CommitMeta = { by, ...links };
    // Messages quote what callers named (a revert's writer name): no secret gets in that way either.
    if (this.secrets !== 'allow') message = guardText(message, 'redact').text;
    const metaText = canonicalJson(meta);
    // A change the team folder brought is its git author's, not this machine's user's.
    const author = by.kind === 'team' && by.name ? by.name : this.author;
    const fields = { entityId, parent: parent?.head ?? null, object, time, author, message, op };
    const commit: CommitInfo = {
      hash: commitHash({ ...fields, meta: metaText }),
      ...fields,
      ...commitMetaOf(metaText, author, op),
    };
    const { lastInsertRowid } = this.db.run(
      `INSERT INTO commits (hash, entity_id, parent_seq, object_seq, time, author, message, op, meta)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      commit.hash,
      entityId,
      parent?.headSeq ?? null,
      objectSeq,
      time,
      commit.author,
      message,
      op,
      metaText,
    );
    return { commit, seq: lastInsertRowid };
  }
}
