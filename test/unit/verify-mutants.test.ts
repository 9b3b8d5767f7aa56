import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { STORE_FILE } from '../../src/core/memory';
import { REBUILD_ADVICE } from '../../src/core/search/fts-index';
import { Database } from '../../src/core/store/database';
import { type VerifyReport, verifyState } from '../../src/core/verify';
import { openTemp, rejectsWith } from './helpers';

// Gaps the mutation run (issue #18) found in verify's tests: what each report entry says, and
// which checks hold back when part of a table could not be read.

/** Writes to the store's file behind the open store's back, as another tool or a disk fault would. */
function tamper(dir: string, sql: string): void {
  const db = new DatabaseSync(path.join(dir, STORE_FILE));
  db.exec(sql);
  db.close();
}

/** Verifies the store in `dir` through a connection of its own. */
function verifyAt(dir: string): VerifyReport {
  const db = new Database(path.join(dir, STORE_FILE), { readOnly: true });
  try {
    return verifyState(db);
  } finally {
    db.close();
  }
}

const entries = (report: VerifyReport): string[] => report.errors.map((error) => `${error.code} ${error.id}`).sort();

/** The row number of a commit, for tampering with links by row number as the store keeps them. */
const seqOf = (hash: string): string => `(SELECT seq FROM commits WHERE hash = '${hash}')`;

describe('verify, as mutation testing probed it', function () {
  this.timeout(60_000);
  let dir: string;
  let cleanup: () => Promise<void>;
  /** A memory saved then updated (two commits), and a skill (one). */
  let noteId: string;
  let skillId: string;
  let created: { hash: string; object: string | null };
  let updated: { hash: string; object: string | null };
  let skillHead: { hash: string; object: string | null };

  beforeEach(async () => {
    const opened = await openTemp();
    ({ dir, cleanup } = opened);
    const { memory } = opened;
    const [note] = await memory.memories.save('a', 'u', { content: 'the staging deploy uses blue-green' });
    await memory.memories.update(note.id, { content: 'the staging deploy uses canaries' });
    const [skill] = await memory.skills.save('a', undefined, { content: 'deploy with care' });
    noteId = note.id;
    skillId = skill.id;
    const [latest, first] = (await memory.history(noteId)).map((entry) => entry.commit);
    updated = latest!;
    created = first!;
    skillHead = (await memory.history(skillId))[0]!.commit;
    await memory.close();
  });
  afterEach(async () => cleanup());

  describe('each entry of the report', () => {
    it('names the commit, its entity and the other entity when a parent belongs to another entity', () => {
      tamper(dir, `UPDATE commits SET parent_seq = ${seqOf(created.hash)} WHERE hash = '${skillHead.hash}'`);
      const foreign = verifyAt(dir).errors.find((error) => error.code === 'FOREIGN_PARENT');
      assert.deepEqual(foreign, {
        code: 'FOREIGN_PARENT',
        id: skillHead.hash,
        message: `Commit ${skillHead.hash} of ${skillId} has a parent of ${noteId}.`,
      });
    });

    it('names the commit that points at a missing object', () => {
      tamper(dir, `DELETE FROM objects WHERE hash = '${skillHead.object}'`);
      const missing = verifyAt(dir).errors.find((error) => error.code === 'MISSING_OBJECT');
      assert.deepEqual(missing, {
        code: 'MISSING_OBJECT',
        id: skillHead.hash,
        message: `Commit ${skillHead.hash} points at a missing object.`,
      });
    });

    it('names the entity of a stale search row, with the advice to rebuild', () => {
      tamper(dir, `UPDATE refs SET search_rowid = NULL WHERE id = '${skillId}'`);
      const report = verifyAt(dir);
      assert.deepEqual(
        report.errors.find((error) => error.message.includes('stale row')),
        {
          code: 'SEARCH_INDEX',
          id: skillId,
          message: `The search index holds a stale row for ${skillId}. ${REBUILD_ADVICE}`,
        },
      );
      assert.ok(
        report.errors.every((error) => error.code === 'SEARCH_INDEX'),
        entries(report).join(', '),
      );
    });

    it('counts the rows waiting to enter the full-text index that have no document', () => {
      tamper(dir, 'INSERT INTO search_pending (rowid) VALUES (900001), (900002)');
      const report = verifyAt(dir);
      assert.deepEqual(report.errors, [
        {
          code: 'SEARCH_INDEX',
          id: 'search_pending',
          message: `2 waiting search rows have no document. ${REBUILD_ADVICE}`,
        },
      ]);
    });
  });

  describe('a table it could not read whole', () => {
    it('does not judge the hash of a commit whose parent may be among the rows left unread', () => {
      // The memory's first commit can no longer be read: its update still names it as parent.
      tamper(dir, `UPDATE commits SET time = x'03' WHERE hash = '${created.hash}'`);
      const report = verifyAt(dir);
      assert.deepEqual(report.errors, [
        {
          code: 'UNREADABLE',
          id: 'main.commits',
          message:
            "1 rows of the main.commits table hold values of the wrong type (The store's commits table is damaged: its time column holds a blob where text belongs. Run verify to see what else is damaged, then restore a snapshot.): the checks that need them were skipped.",
        },
        {
          code: 'CHECK_SKIPPED',
          id: 'orphan commits',
          message: 'Commits were not checked for being on some history: the commits or entities could not all be read.',
        },
      ]);
      assert.equal(report.totalCommits, 2);
    });

    it('does not judge the hash of a commit whose object may be among the rows left unread', () => {
      tamper(dir, `UPDATE objects SET data = CAST(data AS BLOB) WHERE hash = '${updated.object}'`);
      const report = verifyAt(dir);
      assert.deepEqual(entries(report), ['UNREADABLE main.objects']);
      assert.equal(report.totalObjects, 2);
    });

    it('says which search table and column hold a value of the wrong type', () => {
      tamper(dir, `UPDATE search_docs SET entity_id = x'01' WHERE entity_id = '${skillId}'`);
      const stale = verifyAt(dir).errors.find((error) => error.id === 'stale search rows');
      assert.ok(stale, 'the stale rows check reports that it could not finish');
      assert.equal(stale.code, 'SEARCH_INDEX');
      assert.match(
        stale.message,
        /^The stale search rows check could not finish: The store's search_docs table is damaged: its entity_id column holds a blob where text belongs\./,
      );
      assert.ok(stale.message.endsWith(` ${REBUILD_ADVICE}`), stale.message);
    });

    it('says which column of the search counts holds a value of the wrong type', () => {
      for (const column of ['docs', 'terms', 'type']) {
        tamper(
          dir,
          `CREATE TABLE kept AS SELECT * FROM search_stats; UPDATE search_stats SET ${column} = x'07' WHERE type = 'skill'`,
        );
        const counts = verifyAt(dir).errors.find((error) => error.id === 'search counts');
        assert.ok(counts, column);
        assert.match(counts.message, new RegExp(`search_stats table is damaged: its ${column} column holds a blob`));
        tamper(dir, 'DELETE FROM search_stats; INSERT INTO search_stats SELECT * FROM kept; DROP TABLE kept');
        assert.deepEqual(verifyAt(dir).errors, [], column);
      }
    });

    it('says which entity id could not be read when it looks for unindexed entities', () => {
      tamper(dir, `UPDATE refs SET id = x'01', search_rowid = NULL WHERE id = '${skillId}'`);
      const unindexed = verifyAt(dir).errors.find((error) => error.id === 'search rows of entities');
      assert.ok(unindexed);
      assert.match(unindexed.message, /refs table is damaged: its id column holds a blob/);
    });
  });
  describe('a snapshot before it is restored', () => {
    it('is refused naming a state table it lacks, as damage done after it was taken', async () => {
      const { memory, dir: storeDir, cleanup: done } = await openTemp();
      try {
        await memory.memories.save('a', 'u', { content: 'in the snapshot' });
        const snapshot = await memory.snapshot('lacks a table');
        const file = path.join(storeDir, 'snapshots', `${snapshot.id}.db`);
        const db = new DatabaseSync(file);
        db.exec('DROP TABLE access');
        db.close();
        const error = await rejectsWith(memory.restore(snapshot.id), 'SNAPSHOT_INVALID');
        assert.equal(
          error.message,
          `Snapshot ${snapshot.id} failed verification: The snapshot has no access table: it was damaged after it was taken.`,
        );
      } finally {
        await done();
      }
    });
  });
});
