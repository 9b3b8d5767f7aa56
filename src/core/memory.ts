import * as os from 'node:os';
import * as path from 'node:path';

import type { Embedder } from './ai/embedder';
import { anchorAll, CitedFiles, normalizeFolders } from './anchors/citations';
import {
  checkCitations,
  type CitationCheckOptions,
  type CitationReport,
  type CitedEntityReport,
  citingFiles,
  type StaleNote,
  staleNotes,
} from './anchors/staleness';
import type { WorkspaceFolder } from './anchors/workspace-paths';
import type { Collection, CollectionContext } from './collections/collection';
import { type Groups, groupsOf } from './collections/groups';
import { ProfileCollection } from './collections/profiles';
import { AgentScopedCollection, MemoryCollection } from './collections/searchable';
import { SessionCollection } from './collections/sessions';
import { MemoryError } from './errors';
import { EventBus, type MemoryEventHandler, type MemoryEventName } from './events';
import {
  auditOverflow,
  type CleanupOptions,
  type CleanupReport,
  collectStats,
  countAgeable,
  rotateAudit,
  staleEntities,
  type StoreStats,
} from './maintenance';
import { type Middleware, MiddlewarePipeline } from './middleware';
import { assertStoreConfined } from './paths';
import { type ExportData, exportState, type ImportOptions, type ImportReport, importState } from './portable';
import { asWriter, normalizeProvenance, type Provenance, type WriterKind } from './provenance';
import { storedChunks } from './rag/chunk-matching';
import { Rag } from './rag/rag';
import { chunkCounts, chunksOf, fileStamps, liveDocuments, saveStamps, surplusChunks } from './rag/state';
import {
  recall,
  recallCollections,
  type RecallOptions,
  type RecallResult,
  STALENESS_MODES,
  type StalenessMode,
} from './recall/recall';
import { FtsIndex } from './search/fts-index';
import { Embeddings, HybridSearch } from './search/hybrid';
import { DEFAULT_SCORING, type ScoringOptions } from './search/scoring';
import { Searcher } from './search/searcher';
import { QueryExpander, type SynonymMap } from './search/synonyms';
import { VectorIndex } from './search/vectors';
import { checkSecretPolicy, type SecretPolicy } from './secrets/guard';
import { backfillTurns } from './sessions/backfill';
import { TurnIndex, withTurnIndex } from './sessions/turn-index';
import { Snapshots } from './snapshots';
import type { RestoredSnapshot, SnapshotInfo } from './snapshots/manifests';
import type { RestorePreview } from './snapshots/preview';
import { Database } from './store/database';
import { headProvenance } from './store/entity-queries';
import { EntityStore } from './store/entity-store';
import { prepareStoreFolder, STORE_FILE } from './store/store-file';
import { TeamFolderMirror } from './team/mirror';
import { type TeamChange } from './team/sync';
import { Team } from './team/team';
import { Reverter, type RevertFilter, type RevertReport } from './trust/revert';
import { Review } from './trust/review';
import { isQueued, resolveReviewPolicy, type ReviewMode, type ReviewPolicy } from './trust/review-policy';
import { SecretAudit } from './trust/secret-audit';
import { unusedEntities, type UnusedReport } from './trust/unused';
import type { Entity, EntityType, HistoryEntry } from './types';
import { assertEntityType, assertId, assertOptionalId, isArray } from './validation';
import { type VerifyReport, verifyState } from './verify';
export interface MemoryOptions {
  /** The folder that holds the store (created if missing). */
  dir: string;
  /**
   * Also start a new store in an existing empty store file (zero bytes, or a
   * database without tables), which is otherwise refused because it means the
   * store's data went missing. What `workspace-memory init` does. A missing
   * file is always created; another program's database is always refused.
   */
  init?: boolean;
  /** Recorded as the author of every commit this instance makes. */
  author?: string;
  /**
   * Who writes when the work running does not say otherwise (withProvenance):
   * the CLI is `{ kind: 'cli' }`, the extension `{ kind: 'user' }`. Default: user.
   */
  writer?: Provenance;
  /**
   * Which writers' writes wait for a person's review: one mode for all, or
   * per writer kind. Default: MCP clients, mining and consolidation wait.
   */
  review?: ReviewPolicy;
  /**
   * What happens to a secret (an API key, a password, a private key) in any
   * write: `redact` (default) stores `[redacted: <kind>]` in its place,
   * `block` refuses the write with SECRET_DETECTED, `allow` keeps it.
   */
  secrets?: SecretPolicy;
  /** See DatabaseOptions.synchronous: `normal` (default) or `full` for power-loss durability. */
  synchronous?: 'full' | 'normal';
  busyTimeoutMs?: number;
  /** Where event handler failures are reported; default: console.error. */
  onHandlerError?: (error: unknown, event: MemoryEventName) => void;
  /** The clock; tests replace it. */
  now?: () => Date;
  /** Search ranking weights; anything left out keeps its default. */
  scoring?: Partial<ScoringOptions>;
  /** More abbreviations and synonyms for query expansion (both directions), e.g. `{ "gql": ["graphql"] }`. */
  synonyms?: SynonymMap;
  /** Similarity (0..1) from which saveOrUpdate updates an existing entity instead of adding one. Default 0.7. */
  dedupThreshold?: number;
  /**
   * Turns on hybrid search: entities are embedded as they are written, and
   * searches fuse keyword and vector results. Off when left out.
   */
  embedder?: Embedder;
  /** Where non-fatal problems go (an unreachable embedder, say); default: console.warn. Also emitted as `warning`. */
  onWarning?: (message: string) => void;
  /**
   * The workspace's folders, which citations name files in (see
   * anchors/citations.ts): the CLI gives its `--workspace` (the current
   * folder by default), the extension the open workspace's folders. Without
   * any, a citation given as path and lines is refused.
   */
  workspaceFolders?: readonly WorkspaceFolder[];
  /**
   * What recall does with a memory or skill whose cited code changed or is
   * gone, unless a call says otherwise: `mark` it (default), `exclude` it or
   * `ignore` the change. The extension's `workspaceMemory.staleness.inRecall`.
   */
  staleness?: StalenessMode;
  /**
   * Whether recall draws on the turns of past conversations when a call does
   * not name its collections (default true). The extension's
   * `workspaceMemory.recall.includeConversations`.
   */
  recallConversations?: boolean;
  /**
   * The repository's team folder (absolute; see team/folder.ts teamFolderPath,
   * which keeps it inside the workspace): its files are the team scope,
   * `memory.team` syncs them in, and a write to a team entity writes its file.
   */
  teamFolder?: string;
}

export { STORE_FILE };
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A workspace's memory: five collections over one versioned SQLite store,
 * plus snapshots, verification, export/import and cleanup. Open one with
 * `Memory.open({ dir })` and `close()` it when done. Several processes may
 * open the same folder at once.
 */
/** Read counts that another process's write kept from being recorded wait here, at most this many. */
const MAX_UNRECORDED_ACCESS = 10_000;

export class Memory {
  /** Recalled ids whose read counts wait for the next write lock recall can take without waiting. */
  private unrecordedAccess: string[] = [];
  readonly memories: MemoryCollection;
  readonly skills: AgentScopedCollection<'skill'>;
  readonly knowledge: AgentScopedCollection<'knowledge'>;
  readonly sessions: SessionCollection;
  readonly profiles: ProfileCollection;

  private readonly events: EventBus;
  private readonly middleware = new MiddlewarePipeline();
  private readonly snapshots: Snapshots;

  /** Embedding backfill and status; undefined unless Memory.open got an embedder. */
  readonly embeddings: Embeddings | undefined;
  /** Workspace documents as searchable knowledge: ingest, sync, query, status. */
  readonly rag: Rag;
  /** Grouped listings for views of a big store: counts per group and one page of a group's ids. */
  readonly groups: Groups;
  /** Writes waiting for a person's approval: list, approve, reject. */
  readonly review: Review;
  private readonly reverter: Reverter;
  /** The team scope, when the store has a team folder (MemoryOptions.teamFolder). */
  readonly team: Team | undefined;
  /** The clock (MemoryOptions.now). */
  private readonly now: () => Date;
  /** The folders citations resolve against (MemoryOptions.workspaceFolders). */
  private readonly workspaceFolders: readonly WorkspaceFolder[];
  /** What recall does with stale items unless a call says (MemoryOptions.staleness). */
  private readonly staleness: StalenessMode | undefined;
  /** Whether recall draws on past conversations unless a call says (MemoryOptions.recallConversations). */
  private readonly recallConversations: boolean;
  /** Cited files' lines, read again only when they change: recall checks every item's citations. */
  private readonly citedFiles = new CitedFiles();
  /** Secrets already in the store: find them, redact current versions, purge older ones. */
  readonly secretAudit: SecretAudit;

  private constructor(
    readonly dir: string,
    private readonly db: Database,
    private readonly store: EntityStore,
    searcher: Searcher,
    turns: TurnIndex,
    dedupThreshold: number,
    reviewModes: Record<WriterKind, ReviewMode>,
    writer: Provenance,
    options: MemoryOptions,
  ) {
    this.workspaceFolders = options.workspaceFolders ?? [];
    this.staleness = options.staleness;
    this.recallConversations = options.recallConversations ?? true;
    this.now = options.now ?? (() => new Date());
    this.events = new EventBus(
      options.onHandlerError ??
        ((error, event) => console.error(`Workspace Memory: a ${event} handler failed:`, error)),
    );
    const warn = (message: string) => {
      (options.onWarning ?? console.warn)(message);
      this.events.emit('warning', { message });
    };
    this.groups = groupsOf(db);
    if (options.teamFolder !== undefined) {
      const mirror = new TeamFolderMirror(options.teamFolder);
      store.teamMirror = mirror;
      this.team = new Team(store, mirror, (changes) => this.announce(changes));
    }
    const vectors = new VectorIndex(db);
    this.embeddings = options.embedder ? new Embeddings(db, vectors, options.embedder, warn) : undefined;
    const hybrid = new HybridSearch(searcher, vectors, store, this.embeddings, warn);
    const ctx: CollectionContext = {
      store,
      events: this.events,
      middleware: this.middleware,
      searcher,
      search: (scope, query, limit, searchOptions) => hybrid.search(scope, query, limit, searchOptions),
      embeddings: this.embeddings,
      dedupThreshold,
      queued: () => isQueued(reviewModes, writer),
      anchor: (citations) => anchorAll(this.workspaceFolders, citations),
    };
    this.review = new Review(store, this.events);
    this.reverter = new Reverter(store, this.events);
    this.secretAudit = new SecretAudit(store, this.events);
    this.memories = new MemoryCollection(ctx, 'memory');
    this.skills = new AgentScopedCollection(ctx, 'skill');
    this.knowledge = new AgentScopedCollection(ctx, 'knowledge');
    this.sessions = new SessionCollection(ctx, 'session', turns);
    this.profiles = new ProfileCollection(ctx, 'profile');
    this.snapshots = new Snapshots(db, store, path.join(dir, 'snapshots'));
    this.snapshots.removeOrphanedPartials();
    this.rag = new Rag(
      {
        // Document sync writes as itself, whoever started it.
        saveChunks: (agentId, inputs) =>
          asWriter(
            'docsync',
            async () => void (await this.knowledge.saveMany(inputs.map((input) => ({ agentId, input })))),
          ),
        updateChunk: (id, input) =>
          asWriter('docsync', async () => {
            const before = store.readRef(id)?.head;
            const [, commit] = await this.knowledge.update(id, input);
            return commit.hash !== before;
          }),
        deleteChunks: (ids) => asWriter('docsync', async () => void (await this.knowledge.deleteMany(ids))),
        chunksOf: (agentId, source) => chunksOf(db, agentId, source),
        storedChunks: (agentId, source) => storedChunks(db, agentId, source),
        surplusChunks: (agentId, source, expected) => surplusChunks(db, agentId, source, expected),
        chunkCounts: (agentId) => chunkCounts(db, agentId),
        liveDocuments: (agentId, scope) => liveDocuments(db, agentId, scope),
        stamps: (agentId, scope) => fileStamps(db, agentId, scope),
        saveStamps: (agentId, stamps, removed) => saveStamps(db, agentId, stamps, removed, store.timestamp()),
        search: (agentId, query, limit) => this.knowledge.search(agentId, query, limit),
      },
      options.secrets,
    );
  }

  static async open(options: MemoryOptions): Promise<Memory> {
    if (!options || typeof options.dir !== 'string' || options.dir.trim() === '') {
      throw new MemoryError('INVALID_INPUT', 'Memory.open needs a `dir` (the folder of the store).');
    }
    const dir = path.resolve(options.dir);
    // Options are checked before anything is opened or created.
    const author = options.author ?? defaultAuthor();
    const writer = normalizeProvenance(options.writer ?? { kind: 'user', name: author });
    const reviewModes = resolveReviewPolicy(options.review);
    const workspaceFolders = normalizeFolders(options.workspaceFolders);
    if (options.staleness !== undefined && !STALENESS_MODES.includes(options.staleness)) {
      throw new MemoryError(
        'INVALID_INPUT',
        `staleness must be ${STALENESS_MODES.join(', ')} (got ${String(options.staleness)}).`,
      );
    }
    checkSecretPolicy(options.secrets ?? 'redact');
    prepareStoreFolder(dir);
    // The database, its WAL and the snapshots may not be links leading out of the store's folder.
    assertStoreConfined(dir, STORE_FILE);
    const db = new Database(path.join(dir, STORE_FILE), {
      synchronous: options.synchronous,
      busyTimeoutMs: options.busyTimeoutMs,
      init: options.init,
    });
    const now = options.now ?? (() => new Date());
    const index = new FtsIndex(db);
    const turns = new TurnIndex(db);
    const store = new EntityStore(db, now, author, withTurnIndex(index, turns), writer, options.secrets);
    backfillTurns(db, store, turns);
    const scoring: ScoringOptions = {
      ...DEFAULT_SCORING,
      ...options.scoring,
      columns: { ...DEFAULT_SCORING.columns, ...options.scoring?.columns },
      bm25: { ...DEFAULT_SCORING.bm25, ...options.scoring?.bm25 },
    };
    let expander: QueryExpander | undefined;
    const searcher = new Searcher(index, store, () => (expander ??= new QueryExpander(options.synonyms)), scoring, now);
    const dedupThreshold = options.dedupThreshold ?? 0.7;
    if (!(dedupThreshold > 0 && dedupThreshold <= 1)) {
      db.close();
      throw new MemoryError('INVALID_INPUT', `dedupThreshold must be above 0 and at most 1 (got ${dedupThreshold}).`);
    }
    return new Memory(dir, db, store, searcher, turns, dedupThreshold, reviewModes, writer, {
      ...options,
      workspaceFolders,
    });
  }

  /** Sends the events of changes made outside the collections (the team folder's sync, sharing). */
  private announce(changes: readonly TeamChange[]): void {
    for (const change of changes) {
      if (change.kind === 'delete') this.events.emit('entity:delete', change);
      else if (change.kind === 'update') this.events.emit('entity:update', change);
      else this.events.emit('entity:save', change);
    }
  }

  /**
   * Undoes everything one writer wrote (a writer kind, optionally narrowed by
   * name, conversation and time): created entities are deleted, changed ones
   * get back their version from before the writer's first change, as new
   * commits. `dryRun` lists what would happen. NOTHING_TO_REVERT when none
   * of its writes is in effect.
   */
  async revert(filter: RevertFilter, options: { dryRun?: boolean } = {}): Promise<RevertReport> {
    return this.reverter.revert(filter, options);
  }

  /**
   * Checks the citations of every memory and skill (or one agent's) against
   * the workspace folders: valid, moved (re-anchored unless `reanchor` is
   * false), changed or missing. An entity with a changed or missing citation
   * is stale.
   */
  async checkCitations(options: CitationCheckOptions = {}): Promise<CitationReport> {
    return checkCitations(this.db, this.workspaceFolders, { memory: this.memories, skill: this.skills }, options);
  }

  /**
   * The memories and skills of an agent (and a user) that cite any of
   * `paths` (workspace-relative), with each citation's state now: what is
   * recorded about code before someone changes it. Writes nothing.
   */
  async citingFiles(
    agentId: string,
    userId: string | undefined,
    paths: readonly string[],
  ): Promise<CitedEntityReport[]> {
    assertId(agentId, 'agent id');
    assertOptionalId(userId, 'user id');
    if (!isArray(paths) || paths.length === 0 || paths.some((cited) => typeof cited !== 'string' || !cited.trim())) {
      throw new MemoryError('INVALID_INPUT', 'Give the files as a list of workspace-relative paths.');
    }
    return citingFiles(this.db, this.workspaceFolders, this.citedFiles, { agentId, userId }, paths);
  }

  /**
   * Every memory and skill of an agent (and a user) that cites code, with
   * each citation's state now: the stale ones are those whose code changed
   * or is gone. Writes nothing; cheap when no cited file changed since the
   * last call.
   */
  async citedEntities(agentId: string, userId?: string): Promise<CitedEntityReport[]> {
    assertId(agentId, 'agent id');
    assertOptionalId(userId, 'user id');
    return citingFiles(this.db, this.workspaceFolders, this.citedFiles, { agentId, userId });
  }

  /**
   * The memories and skills of an agent (and a user) that nothing used or
   * changed for `days` days: recall never handed them to a model and no
   * tool read them. Longest unused first, for a person to review; nothing
   * is deleted.
   */
  async unused(
    agentId: string,
    userId: string | undefined,
    days: number,
    page?: { limit?: number; offset?: number },
  ): Promise<UnusedReport> {
    return unusedEntities(this.db, this.now(), { agentId, userId }, days, page);
  }

  /**
   * The stale ones among `entities` (their cited code changed or is gone),
   * with why, and what the store's staleness mode says to do with them:
   * searches that hand items to a model mark them, or leave them out. Writes nothing.
   */
  async staleNotes(entities: readonly Entity[]): Promise<{ mode: StalenessMode; notes: Map<string, StaleNote> }> {
    const mode = this.staleness ?? 'mark';
    return {
      mode,
      notes:
        mode === 'ignore' ? new Map<string, StaleNote>() : staleNotes(this.workspaceFolders, entities, this.citedFiles),
    };
  }

  /** The collection that holds entities of `type`. */
  collection(type: EntityType): Collection<EntityType> {
    const byType: Record<EntityType, Collection<EntityType>> = {
      memory: this.memories,
      skill: this.skills,
      knowledge: this.knowledge,
      session: this.sessions,
      profile: this.profiles,
    };
    return byType[assertEntityType(type)];
  }

  /** Any live entity by id, whatever its type. */
  async get(id: string): Promise<Entity | null> {
    return this.store.get(assertId(id));
  }

  /** The history of any entity by id, newest first (empty if it never existed). */
  async history(id: string): Promise<HistoryEntry[]> {
    return this.store.history(assertId(id));
  }

  on<K extends MemoryEventName>(event: K, handler: MemoryEventHandler<K>): () => void {
    return this.events.on(event, handler);
  }

  off<K extends MemoryEventName>(event: K, handler: MemoryEventHandler<K>): void {
    this.events.off(event, handler);
  }

  /** Registers middleware; returns a function that removes it. */
  use(middleware: Middleware): () => void {
    return this.middleware.use(middleware);
  }

  async snapshot(label = ''): Promise<SnapshotInfo> {
    return this.snapshots.create(label);
  }

  async listSnapshots(): Promise<SnapshotInfo[]> {
    return this.snapshots.list();
  }

  /** What restoring a snapshot would change (entities brought back, removed, changed), changing nothing. */
  async restorePreview(snapshotId: string): Promise<RestorePreview> {
    return this.snapshots.compare(snapshotId);
  }

  /** Replaces the whole state with a snapshot's, atomically, keeping the state it replaces as a snapshot (`before`). */
  async restore(snapshotId: string): Promise<RestoredSnapshot> {
    const info = await this.snapshots.restore(snapshotId);
    this.events.emit('store:replaced', { reason: 'restore', snapshotId });
    return info;
  }

  /**
   * The best memories, skills, knowledge and turns of past conversations for
   * `query`, ranked together and packed into a Markdown context within the
   * budget, with the user's profile first. Counts an access for every
   * memory, skill and chunk returned.
   */
  async recall(
    agentId: string,
    userId: string | undefined,
    query: string,
    options: RecallOptions = {},
  ): Promise<RecallResult> {
    return recall(
      {
        searchMemories: (agent, user, text, limit) => this.memories.search(agent, user, text, limit),
        searchSkills: (agent, text, limit, includeShared) => this.skills.search(agent, text, limit, { includeShared }),
        searchKnowledge: (agent, text, limit, includeShared) =>
          this.knowledge.search(agent, text, limit, { includeShared }),
        profile: async (agent, user) =>
          (await this.profiles.getByUser(agent, user)) ?? (await this.profiles.getSharedByUser(user)),
        searchTurns: (agent, user, text, limit) => this.sessions.search(agent, user, text, limit),
        folders: this.workspaceFolders,
        provenance: async (ids) => headProvenance(this.db, ids),
        staleness: async (entities) => staleNotes(this.workspaceFolders, entities, this.citedFiles),
        markRecalled: async (ids) => this.recordAccess(ids),
      },
      agentId,
      userId,
      query,
      {
        staleness: this.staleness,
        ...(this.recallConversations ? {} : { collections: recallCollections(false) }),
        ...options,
      },
    );
  }

  /** Rebuilds the full-text index from the stored entities (for recovery); returns how many were indexed. */
  async rebuildIndex(): Promise<number> {
    return this.db.transaction(() => this.store.reindex());
  }

  async verify(): Promise<VerifyReport> {
    // One snapshot of the store: counts read apart while another process writes would disagree.
    return this.db.read(() => verifyState(this.db));
  }

  async stats(): Promise<StoreStats> {
    return collectStats(this.db, this.snapshots.list().length, this.snapshots.partials());
  }

  async export(): Promise<ExportData> {
    return exportState(this.db, this.store.timestamp());
  }

  async import(data: unknown, options: ImportOptions = {}): Promise<ImportReport> {
    const report = asWriter('import', () => importState(this.store, data, options));
    if (report.imported + report.overwritten > 0) this.events.emit('store:replaced', { reason: 'import' });
    return report;
  }

  /**
   * Deletes (with tombstones, so history stays) memories, skills and
   * knowledge not updated for `maxAgeDays`, and trims the audit log.
   * Middleware may veto individual deletes.
   */
  async cleanup(options: CleanupOptions = {}): Promise<CleanupReport> {
    const { maxAgeDays, maxAuditLines, dryRun = false } = options;
    if (maxAgeDays !== undefined && !(Number.isFinite(maxAgeDays) && maxAgeDays >= 0)) {
      throw new MemoryError('INVALID_INPUT', `maxAgeDays must be a number of at least 0 (got ${maxAgeDays}).`);
    }
    if (maxAuditLines !== undefined && !(Number.isInteger(maxAuditLines) && maxAuditLines >= 0)) {
      throw new MemoryError(
        'INVALID_INPUT',
        `maxAuditLines must be a whole number of at least 0 (got ${maxAuditLines}).`,
      );
    }
    const cutoff =
      maxAgeDays === undefined ? undefined : new Date(this.store.timestamp()).getTime() - maxAgeDays * DAY_MS;
    const candidates = cutoff === undefined ? [] : staleEntities(this.db, new Date(cutoff).toISOString());
    let details = candidates;
    if (!dryRun) {
      const removed = new Set<string>();
      for (const type of ['memory', 'skill', 'knowledge'] as const) {
        const ids = candidates.filter((c) => c.type === type).map((c) => c.id);
        if (ids.length === 0) continue;
        const commits = await this.collection(type).deleteMany(ids);
        commits.forEach((commit) => commit && removed.add(commit.entityId));
      }
      details = candidates.filter((c) => removed.has(c.id));
    }
    let auditRemoved = 0;
    if (maxAuditLines !== undefined) {
      auditRemoved = dryRun
        ? // The real run logs one delete per entity type it deletes from, then trims.
          auditOverflow(this.db, maxAuditLines, new Set(candidates.map((c) => c.type)).size)
        : rotateAudit(this.db, maxAuditLines);
    }
    return {
      dryRun,
      removed: details.length,
      preserved: countAgeable(this.db) - (dryRun ? details.length : 0),
      auditRemoved,
      details,
    };
  }

  /**
   * Changes whenever any connection (this process or another) commits;
   * lets a long-lived host notice writes made by the CLI or the MCP server.
   */
  dataVersion(): number {
    return this.db.dataVersion();
  }

  get closed(): boolean {
    return this.db.isClosed;
  }

  /**
   * Read counts are a ranking hint: recall records them without waiting for
   * another process's write (a saveMany batch holds the lock for 100-500 ms,
   * which recall used to wait out), and keeps them for its next try when the
   * lock is taken; close() records what is left.
   */
  private recordAccess(ids: readonly string[]): void {
    const all = [...this.unrecordedAccess, ...ids].slice(-MAX_UNRECORDED_ACCESS);
    this.unrecordedAccess = this.db.tryTransaction(() => this.store.access.increment(all)) ? [] : all;
  }

  async close(): Promise<void> {
    if (this.unrecordedAccess.length > 0 && !this.db.isClosed) {
      try {
        this.db.transaction(() => this.store.access.increment(this.unrecordedAccess));
      } catch {
        // Read counts only: a close never fails over them.
      }
      this.unrecordedAccess = [];
    }
    this.db.close();
  }
}

function defaultAuthor(): string {
  try {
    return os.userInfo().username || 'workspace-memory';
  } catch {
    return 'workspace-memory';
  }
}
