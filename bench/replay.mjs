// The SQLite floor: how fast a fresh store takes rows that a real store
// already holds, replayed with the store's own statements, pragmas and
// transaction size, and no JavaScript work besides binding them (no
// validation, hashing, tokenizing or parsing). Whatever the store's code
// does, its write rate on this machine cannot beat this figure.
import { DatabaseSync } from 'node:sqlite';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

// The statements src/core/store/entity-store.ts and search/fts-index.ts run for a new entity.
const INSERT_OBJECT = 'INSERT OR IGNORE INTO objects (seq, hash, data) VALUES (?, ?, ?)';
const INSERT_COMMIT = `INSERT INTO commits (seq, hash, entity_id, parent_seq, object_seq, time, author, message, op)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_DOC = `INSERT INTO search_docs (rowid, entity_id, type, agent_id, user_id, length, content, tags, meta)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_FTS = (type) => `INSERT INTO fts_${type} (rowid, content, tags, meta) VALUES (?, ?, ?, ?)`;
const UPSERT_REF = `INSERT INTO refs (id, type, agent_id, user_id, head_seq, object_seq, deleted, created_at, updated_at,
    conversation_id, source, search_rowid)
  VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
  ON CONFLICT(id) DO UPDATE SET agent_id = excluded.agent_id, user_id = excluded.user_id,
    head_seq = excluded.head_seq, object_seq = excluded.object_seq, deleted = 0,
    created_at = excluded.created_at, updated_at = excluded.updated_at,
    conversation_id = excluded.conversation_id, source = excluded.source, search_rowid = excluded.search_rowid`;

/**
 * Replays every entity of `storeFile` (read while its writer may still be
 * open) into a fresh store, `perTransaction` entities per transaction, and
 * returns entities per second, by the wall clock and per CPU-second.
 */
export async function sqliteFloor(storeFile, perTransaction) {
  const source = new DatabaseSync(storeFile, { readOnly: true });
  const rows = (sql) => source.prepare(sql).all();
  const objects = rows('SELECT seq, hash, data FROM objects ORDER BY seq');
  const commits = rows('SELECT * FROM commits ORDER BY seq');
  const docs = rows('SELECT * FROM search_docs ORDER BY rowid');
  const refs = rows('SELECT * FROM refs ORDER BY head_seq');
  source.close();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-floor-'));
  try {
    // The schema exactly as the store makes it; then the pragmas src/core/store/database.ts sets.
    await (await Memory.open({ dir })).close();
    const db = new DatabaseSync(path.join(dir, 'memory.db'));
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32000;
      PRAGMA mmap_size = 268435456; PRAGMA wal_autocheckpoint = 8000; PRAGMA journal_size_limit = 67108864`);
    const insertObject = db.prepare(INSERT_OBJECT);
    const insertCommit = db.prepare(INSERT_COMMIT);
    const insertDoc = db.prepare(INSERT_DOC);
    const insertFts = new Map();
    const upsertRef = db.prepare(UPSERT_REF);
    const count = Math.max(objects.length, commits.length, docs.length, refs.length);
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for (let first = 0; first < count; first += perTransaction) {
      db.exec('BEGIN IMMEDIATE');
      for (let i = first; i < Math.min(count, first + perTransaction); i++) {
        const object = objects[i];
        if (object) insertObject.run(object.seq, object.hash, object.data);
        const c = commits[i];
        if (c)
          insertCommit.run(c.seq, c.hash, c.entity_id, c.parent_seq, c.object_seq, c.time, c.author, c.message, c.op);
        const d = docs[i];
        if (d) {
          insertDoc.run(d.rowid, d.entity_id, d.type, d.agent_id, d.user_id, d.length, d.content, d.tags, d.meta);
          if (!insertFts.has(d.type)) insertFts.set(d.type, db.prepare(INSERT_FTS(d.type)));
          insertFts.get(d.type).run(d.rowid, d.content, d.tags, d.meta);
        }
        const r = refs[i];
        if (r) {
          upsertRef.run(
            r.id,
            r.type,
            r.agent_id,
            r.user_id,
            r.head_seq,
            r.object_seq,
            r.created_at,
            r.updated_at,
            r.conversation_id,
            r.source,
            r.search_rowid,
          );
        }
      }
      db.exec('COMMIT');
    }
    const seconds = (performance.now() - start) / 1000;
    const { user, system } = process.cpuUsage(cpuStart);
    db.close();
    return { perSec: Math.round(count / seconds), perCpuSec: Math.round(count / ((user + system) / 1e6)) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
