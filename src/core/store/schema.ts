import { loadSqlite } from '../sqlite';
import { SEARCHABLE_TYPES } from '../types';
import type { Database } from './database';
import { countOf, text } from './rows';

/** Bumped whenever the layout changes; `migrate` brings older stores forward. */
export const SCHEMA_VERSION = 6;

/** The FTS5 table (and its vocabulary) that indexes one searchable type's search rows. */
export const ftsTable = (type: string): string => `fts_${type}`;
export const vocabTable = (type: string): string => `fts_vocab_${type}`;

/** One external-content FTS5 table per searchable type, with its vocabulary, under the given names. */
function ftsTables(table: (type: string) => string = ftsTable, vocab: (type: string) => string = vocabTable): string {
  return SEARCHABLE_TYPES.map(
    (type) => `CREATE VIRTUAL TABLE IF NOT EXISTS ${table(type)} USING fts5(
  content, tags, meta,
  content = 'search_docs', content_rowid = 'rowid', detail = column,
  tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);
CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab(type)} USING fts5vocab(${table(type)}, 'row');`,
  ).join('\n');
}

// The names versions 1 and 2 gave them (see V3).
const v1FtsTable = (type: string): string => `search_fts_${type}`;
const v1VocabTable = (type: string): string => `search_vocab_${type}`;

/** Tables that together are the store's state; snapshots copy exactly these. */
export const STATE_TABLES = ['objects', 'commits', 'refs', 'access', 'vectors', 'rag_files'] as const;

// The search index's own tables (see V1 for what they hold). IF NOT EXISTS:
// rebuilding the index runs them again, to put back whatever is missing.
const SEARCH_DOCS = `CREATE TABLE IF NOT EXISTS search_docs (
  rowid INTEGER PRIMARY KEY,
  entity_id TEXT NOT NULL,
  type TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  user_id TEXT,
  length INTEGER NOT NULL,
  content TEXT NOT NULL,
  tags TEXT NOT NULL,
  meta TEXT NOT NULL
);`;
// Row count and total length of the indexed documents per type, kept in
// step with search_docs by every write: BM25's document count and average
// length (long document chunks must not make every memory look short).
const SEARCH_STATS = `CREATE TABLE IF NOT EXISTS search_stats (
  type TEXT PRIMARY KEY,
  docs INTEGER NOT NULL,
  terms INTEGER NOT NULL
) WITHOUT ROWID;`;

// Sessions are searched turn by turn: one row per turn of each live
// session, its stemmed terms in three columns (what was said, who said it,
// what the turns either side said), indexed by FTS5 as search_docs is. The
// time and conversation narrow a search without a join to the entities; a
// search within a time reads that time's turns by the (agent, time) index.
const SESSION_TURNS = `CREATE TABLE IF NOT EXISTS session_turns (
  rowid INTEGER PRIMARY KEY,
  entity_id TEXT NOT NULL,
  turn INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  user_id TEXT,
  conversation_id TEXT,
  time TEXT,
  text TEXT NOT NULL,
  speaker TEXT NOT NULL,
  context TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_turns_entity ON session_turns (entity_id);
CREATE INDEX IF NOT EXISTS session_turns_time ON session_turns (agent_id, time);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_session_turns USING fts5(
  text, speaker, context,
  content = 'session_turns', content_rowid = 'rowid', detail = column,
  tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab_session_turns USING fts5vocab(fts_session_turns, 'row');`;

/**
 * Derived indexes an upgrade added that the store fills in when it next
 * opens (the terms come from code, not SQL): a row per index to fill.
 */
const INDEX_BACKFILL = `CREATE TABLE IF NOT EXISTS index_backfill (
  name TEXT PRIMARY KEY
) WITHOUT ROWID;`;

// The store's own tables, each on its own: the first version's layout runs
// them all, and a repair (reindex, a snapshot restore) runs them again to put
// back any that was dropped. IF NOT EXISTS, so running them again is harmless.

// Objects and commits are appended in row order and point at each other by
// row number (parent_seq, object_seq, head_seq): the hashes are the identity
// and what verify() checks, the row numbers are how reads get there without
// an index on every hash. Measured: about a third faster bulk writes than
// linking by hash.
const OBJECTS = `CREATE TABLE IF NOT EXISTS objects (
  seq INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  data TEXT NOT NULL
);`;

const COMMITS = `CREATE TABLE IF NOT EXISTS commits (
  seq INTEGER PRIMARY KEY,
  hash TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  parent_seq INTEGER,
  object_seq INTEGER,
  time TEXT NOT NULL,
  author TEXT NOT NULL,
  message TEXT NOT NULL,
  op TEXT NOT NULL,
  -- Since version 4: who made the commit and its review and correction links
  -- (CommitMeta), as canonical JSON, part of the hash. NULL on older commits.
  meta TEXT
);`;

// Since version 4: the entities waiting for review and those superseded, per agent, newest first.
// Partial indexes hold only those few rows (nothing for the bulk of writes to maintain); SQLite
// uses one only for a query naming its state as a literal (see idsInState in entity-queries.ts).
const HELD_INDEXES = `CREATE INDEX IF NOT EXISTS refs_pending ON refs(agent_id, updated_at) WHERE deleted = 2;
CREATE INDEX IF NOT EXISTS refs_superseded ON refs(agent_id, updated_at) WHERE deleted = 3;`;

// Since version 5: the memories and skills that cite code, per agent (a partial index: nothing for the
// bulk of writes to maintain).
const CITES_INDEX = 'CREATE INDEX IF NOT EXISTS refs_cites ON refs(agent_id) WHERE cites = 1;';

// One row per entity: where its chain ends, plus the columns lists filter on.
// \`deleted\` is the entity's state, read from its head commit (RefState):
// 0 live, 1 deleted, 2 waiting for review, 3 superseded by a correction.
// Everything that serves entities asks for 0.
// Lists filter by type and agent and page newest first (created_at, then id
// for a stable order); user_id rides along so a per-user list is answered
// from the index without a sort.
const REFS = `CREATE TABLE IF NOT EXISTS refs (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  user_id TEXT,
  head_seq INTEGER NOT NULL,
  object_seq INTEGER,
  deleted INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  conversation_id TEXT,
  source TEXT,
  -- The search_docs row that indexes the entity, if any.
  search_rowid INTEGER,
  -- Since version 5: where a document chunk sits in its document (chunk
  -- index and lines, as canonical JSON; see place.ts), kept out of its
  -- versions so that moving it makes no commit. NULL for everything else.
  place TEXT,
  -- Since version 5: 1 when the current version of a memory or skill cites code (see anchors/),
  -- NULL otherwise: the few that do are found through refs_cites, not by reading every object.
  cites INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS refs_scope ON refs(type, agent_id, deleted, created_at, id, user_id);
CREATE INDEX IF NOT EXISTS refs_profile_user ON refs(user_id, updated_at) WHERE type = 'profile';
CREATE INDEX IF NOT EXISTS refs_conversation ON refs(agent_id, conversation_id) WHERE conversation_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS refs_source ON refs(agent_id, source) WHERE source IS NOT NULL;
${CITES_INDEX}
${HELD_INDEXES}`;

// Reads are counted here, beside the history, so reading never makes a commit.
const ACCESS = `CREATE TABLE IF NOT EXISTS access (
  entity_id TEXT PRIMARY KEY,
  count INTEGER NOT NULL,
  last_access TEXT NOT NULL
) WITHOUT ROWID;`;

// Optional embeddings (hybrid search). A vector belongs to one version of an
// entity (object_seq) and one model: a vector whose entity has changed since,
// or that another model made, is never used, and backfill replaces it.
const VECTORS = `CREATE TABLE IF NOT EXISTS vectors (
  entity_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  user_id TEXT,
  object_seq INTEGER NOT NULL,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL,
  vector BLOB NOT NULL
) WITHOUT ROWID;`;

// Bumped by every vector write, so a process knows when its cached copy is old.
const VECTOR_GENERATION = `CREATE TABLE IF NOT EXISTS vector_generation (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  generation INTEGER NOT NULL
);
INSERT OR IGNORE INTO vector_generation (id, generation) VALUES (1, 0);`;

// What document sync last saw of each file it ingested, per agent: lets a
// re-sync skip files whose size and modification time have not changed
// without reading them. Derived from the knowledge entities; never versioned.
const RAG_FILES = `CREATE TABLE IF NOT EXISTS rag_files (
  agent_id TEXT NOT NULL,
  path TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  synced_at TEXT NOT NULL,
  PRIMARY KEY (agent_id, path)
) WITHOUT ROWID;`;

// Append-only log of operations; only cleanup({ maxAuditLines }) trims it.
const AUDIT = `CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  time TEXT NOT NULL,
  op TEXT NOT NULL,
  entity_id TEXT,
  entity_type TEXT,
  detail TEXT
);`;

/**
 * Every table of the store other than the search index's, by name, with the
 * statement that creates it (empty) when it is missing.
 */
const STORE_TABLE_DDL = {
  objects: OBJECTS,
  commits: COMMITS,
  refs: REFS,
  access: ACCESS,
  vectors: VECTORS,
  vector_generation: VECTOR_GENERATION,
  rag_files: RAG_FILES,
  audit: AUDIT,
} as const;

export type StoreTable = keyof typeof STORE_TABLE_DDL;

/** The store's tables outside the search index: verify reports each one that is missing. */
export const STORE_TABLES = Object.keys(STORE_TABLE_DDL) as readonly StoreTable[];

/**
 * The history: the entities themselves. Put back empty, they would hide that
 * every entity is gone, so only a snapshot restore (which fills them) makes
 * them again; the others hold counts, caches and the log, whose loss loses
 * no entity, and a rebuild of the index puts them back empty.
 */
export const HISTORY_TABLES: readonly StoreTable[] = ['objects', 'commits', 'refs'];

/** The tables among `tables` that `schema` (main, or an attached snapshot) does not have. */
export function missingTables(db: Database, tables: readonly string[], schema = 'main'): string[] {
  const present = new Set(
    db
      .all(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`)
      .map((row) => text(row, 'sqlite_master', 'name')),
  );
  return tables.filter((table) => !present.has(table));
}

/**
 * Columns later versions added to a table, by the version that added them:
 * a snapshot taken before then lacks them and is still whole.
 */
const ADDED_COLUMNS: Readonly<Record<string, number>> = { 'commits.meta': 4, 'refs.place': 5, 'refs.cites': 5 };

let expectedColumns: ReadonlyMap<StoreTable, readonly string[]> | undefined;

/**
 * The columns each store table is made with, read once from its own DDL run
 * in a scratch in-memory database: the layout is written once, here.
 */
function columnsByTable(): ReadonlyMap<StoreTable, readonly string[]> {
  if (expectedColumns) return expectedColumns;
  const { DatabaseSync } = loadSqlite();
  const scratch = new DatabaseSync(':memory:');
  try {
    const columns = new Map<StoreTable, readonly string[]>();
    for (const table of STORE_TABLES) {
      scratch.exec(STORE_TABLE_DDL[table]);
      columns.set(
        table,
        scratch
          .prepare('SELECT name FROM pragma_table_info(?)')
          .all(table)
          .map((row) => String(row.name)),
      );
    }
    expectedColumns = columns;
    return columns;
  } finally {
    scratch.close();
  }
}

/** The columns of present store tables that `schema` lacks, as "table.column". */
export function missingColumns(db: Database, schema = 'main', tables: readonly StoreTable[] = STORE_TABLES): string[] {
  const missing: string[] = [];
  const present = new Set(
    db
      .all(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`)
      .map((row) => text(row, 'sqlite_master', 'name')),
  );
  const version = countOf(db.get(`PRAGMA ${schema}.user_version`), 'pragma', 'user_version');
  for (const table of tables) {
    if (!present.has(table)) continue;
    const have = new Set(
      db
        .all(`SELECT name FROM pragma_table_info(?, ?)`, table, schema)
        .map((row) => text(row, 'pragma_table_info', 'name')),
    );
    for (const column of columnsByTable().get(table) ?? []) {
      const name = `${table}.${column}`;
      if (!have.has(column) && version >= (ADDED_COLUMNS[name] ?? 0)) missing.push(name);
    }
  }
  return missing;
}

/** Creates `tables` (all of the store's by default) where they are missing, empty; the schema version stays. */
export function createMissingTables(db: Database, tables: readonly StoreTable[] = STORE_TABLES): StoreTable[] {
  const missing = missingTables(db, tables) as StoreTable[];
  for (const table of missing) db.exec(STORE_TABLE_DDL[table]);
  return missing;
}

const V1 = `
${OBJECTS}
${COMMITS}
${REFS}
${ACCESS}

-- Full-text search. search_docs holds each indexed entity's scope and its
-- pre-tokenized terms (see search/tokenizer.ts) column by column; one
-- external-content FTS5 table per searchable type indexes those terms, so
-- they are stored once and the searcher can rescore candidates without
-- tokenizing them again. Separate tables keep a search of 200 skills from
-- wading through 100,000 memories, and give each type its own word counts.
-- FTS5 only splits on spaces here, and keeps no positions (detail=column):
-- its BM25 only pre-ranks candidates that the searcher rescores with real
-- term frequencies, and the smaller index makes writes about 15% faster.
-- The scope stays out of the FTS index:
-- matching it there made FTS5 rank every row by tokens shared by the whole
-- store, five times slower than checking these columns.
${SEARCH_DOCS}
${ftsTables(v1FtsTable, v1VocabTable)}
${SEARCH_STATS}

${VECTORS}
${VECTOR_GENERATION}
${RAG_FILES}
${AUDIT}
`;

// Search rows not yet in their FTS5 table. FTS5 pays a fixed price for every
// transaction that touches it (it writes a new segment and merges older ones
// at commit): about half the cost of saving one memory. Small transactions
// leave their rows here instead, the searcher matches them directly, and
// they enter FTS5 together once enough have gathered (see fts-index.ts).
const SEARCH_PENDING = `CREATE TABLE IF NOT EXISTS search_pending (
  rowid INTEGER PRIMARY KEY
);`;
const V2 = SEARCH_PENDING;

/**
 * Every table of the search index, in an order they can be dropped in (each
 * vocabulary before its FTS5 table, the FTS5 tables before the search_docs
 * they read). The index is derived from the entities: all of it may be
 * dropped and rebuilt at any time.
 */
export const SEARCH_INDEX_TABLES: readonly string[] = [
  ...SEARCHABLE_TYPES.flatMap((type) => [vocabTable(type), ftsTable(type)]),
  'search_pending',
  'search_stats',
  'search_docs',
  'fts_vocab_session_turns',
  'fts_session_turns',
  'session_turns',
];

/** Creates whatever of the search index is missing (empty). */
export function createSearchIndex(db: Database): void {
  db.exec(`${SEARCH_DOCS}\n${SEARCH_STATS}\n${SEARCH_PENDING}\n${ftsTables()}\n${SESSION_TURNS}`);
}

/** The name under which index_backfill asks for the session turns to be indexed. */
export const SESSION_TURNS_BACKFILL = 'session_turns';

// The FTS5 tables under new names, rebuilt from search_docs. A process still
// running version 1 (an MCP server or a window started before the upgrade)
// knows nothing of waiting rows: it would miss them in searches and, deleting
// one, tell FTS5 to forget a row it never held, which damages the index. So
// its statements must fail: the old table names now belong to views whose
// writes abort with a message (a view rather than nothing, because a version-1
// restore attaches a snapshot that still has tables of those names, and would
// otherwise write into the snapshot's), and its searches find no vocabulary.
const UPGRADED = 'This store was upgraded by a newer Workspace Memory: update this one and reload.';

/**
 * Version 3, written against what the store holds rather than assumed: builds
 * made before it was released left version-2 stores in two other layouts (the
 * old FTS5 tables with rows waiting in the queue; or the new tables already
 * there), and each must come out the same. Every row is indexed afresh, so
 * none is left waiting.
 */
function toVersion3(db: Database): void {
  const kinds = new Map(db.all('SELECT name, type FROM sqlite_master').map((row) => [row.name, row.type]));
  for (const type of SEARCHABLE_TYPES) {
    if (kinds.get(v1VocabTable(type)) === 'table') db.exec(`DROP TABLE ${v1VocabTable(type)}`);
    if (kinds.get(v1FtsTable(type)) === 'table') db.exec(`DROP TABLE ${v1FtsTable(type)}`);
    db.exec(`CREATE VIEW IF NOT EXISTS ${v1FtsTable(type)} (rowid, ${v1FtsTable(type)}, content, tags, meta, rank)
  AS SELECT NULL, NULL, NULL, NULL, NULL, NULL WHERE 0;
CREATE TRIGGER IF NOT EXISTS ${v1FtsTable(type)}_upgraded INSTEAD OF INSERT ON ${v1FtsTable(type)}
  BEGIN SELECT RAISE(ABORT, '${UPGRADED}'); END;`);
  }
  db.exec(ftsTables());
  for (const type of SEARCHABLE_TYPES) {
    db.exec(`INSERT INTO ${ftsTable(type)} (${ftsTable(type)}) VALUES ('delete-all')`);
    db.run(
      `INSERT INTO ${ftsTable(type)} (rowid, content, tags, meta) SELECT rowid, content, tags, meta FROM search_docs WHERE type = ?`,
      type,
    );
  }
  db.exec('DELETE FROM search_pending');
}

/**
 * Copies one table from an attached snapshot into the live store, column by
 * column name: a snapshot made by an older version lacks the columns added
 * since, which stay empty (NULL) in the copy.
 */
export function copyFromSnapshot(db: Database, table: string, from = 'snap'): void {
  const columnsOf = (schema: string) =>
    db
      .all('SELECT name FROM pragma_table_info(?, ?)', table, schema)
      .map((row) => text(row, 'pragma_table_info', 'name'));
  const source = new Set(columnsOf(from));
  const shared = columnsOf('main')
    .filter((column) => source.has(column))
    .join(', ');
  db.exec(`INSERT INTO main.${table} (${shared}) SELECT ${shared} FROM ${from}.${table}`);
}

// Version 4: commits record their provenance (see COMMITS). A store made new
// at this version already has the column from V1.
function toVersion4(db: Database): void {
  const columns = db.all("SELECT name FROM pragma_table_info('commits')").map((row) => row.name);
  if (!columns.includes('meta')) db.exec('ALTER TABLE commits ADD COLUMN meta TEXT');
  db.exec(HELD_INDEXES);
}

// Version 5: a chunk's place moves out of its versions into its ref (see REFS).
function toVersion5(db: Database): void {
  const columns = db.all("SELECT name FROM pragma_table_info('refs')").map((row) => row.name);
  if (!columns.includes('place')) db.exec('ALTER TABLE refs ADD COLUMN place TEXT');
  if (!columns.includes('cites')) db.exec('ALTER TABLE refs ADD COLUMN cites INTEGER');
  db.exec(CITES_INDEX);
}

// Version 6: sessions searched turn by turn (see SESSION_TURNS); a store that
// had sessions indexes them when it next opens.
function toVersion6(db: Database, from: number): void {
  db.exec(`${SESSION_TURNS}\n${INDEX_BACKFILL}`);
  if (from > 0) db.run('INSERT OR IGNORE INTO index_backfill (name) VALUES (?)', SESSION_TURNS_BACKFILL);
}

/** Runs inside a write transaction; re-reads the version so two processes creating one store do not both migrate. */
export function migrate(db: Database): void {
  const from = Number(db.get('PRAGMA user_version')?.user_version ?? 0);
  if (from >= SCHEMA_VERSION) return;
  if (from < 1) db.exec(V1);
  if (from < 2) db.exec(V2);
  if (from < 3) toVersion3(db);
  if (from < 4) toVersion4(db);
  if (from < 5) toVersion5(db);
  if (from < 6) toVersion6(db, from);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}
