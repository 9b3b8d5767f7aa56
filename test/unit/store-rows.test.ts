import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { MemoryError } from '../../src/core/errors';
import { STORE_FILE } from '../../src/core/memory';
import { Database } from '../../src/core/store/database';
import { commitRow, countOf, entityRow, num, numOrNull, refRow, text, textOrNull } from '../../src/core/store/rows';
import { verifyState } from '../../src/core/verify';
import { openTemp, rejectsWith } from './helpers';

/** Writes to the store's file behind the open store's back, as another tool or a disk fault would. */
function tamper(dir: string, sql: string): void {
  const db = new DatabaseSync(path.join(dir, STORE_FILE));
  db.exec(sql);
  db.close();
}

function corruptError(work: () => unknown): MemoryError {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof MemoryError, String(error));
    assert.equal(error.code, 'STORE_CORRUPT');
    return error;
  }
  assert.fail('expected STORE_CORRUPT');
}

describe('typed store rows', () => {
  describe('column decoders', () => {
    it('return the value when its SQLite type is the one expected', () => {
      const row = { a: 'x', n: 3, z: null };
      assert.equal(text(row, 't', 'a'), 'x');
      assert.equal(textOrNull(row, 't', 'z'), null);
      assert.equal(num(row, 't', 'n'), 3);
      assert.equal(numOrNull(row, 't', 'z'), null);
      assert.equal(countOf(undefined, 't'), 0);
      assert.equal(countOf({ n: 7 }, 't'), 7);
    });

    it('throw STORE_CORRUPT naming the table, the column and what it held', () => {
      assert.match(corruptError(() => text({ a: 5 }, 'refs', 'a')).message, /refs table .* a column holds a number/);
      assert.match(corruptError(() => text({ a: null }, 'refs', 'a')).message, /holds NULL where text belongs/);
      assert.match(corruptError(() => num({ n: '5' }, 'commits', 'n')).message, /commits table .* holds a string/);
      assert.match(corruptError(() => numOrNull({ n: new Uint8Array(1) }, 'commits', 'n')).message, /holds a blob/);
      assert.match(corruptError(() => textOrNull({}, 'objects', 'hash')).message, /hash column holds no value/);
    });

    it('decode a ref, a commit and an entity row into typed fields', () => {
      assert.deepEqual(
        refRow({ id: 'i', type: 'memory', agent_id: 'a', user_id: null, head_seq: 4, object_seq: null, deleted: 1 }),
        {
          id: 'i',
          type: 'memory',
          agentId: 'a',
          userId: undefined,
          headSeq: 4,
          objectSeq: null,
          deleted: true,
          state: 1,
        },
      );
      // Pending review and superseded are not deleted, and not live either.
      const pending = refRow({
        id: 'i',
        type: 'memory',
        agent_id: 'a',
        user_id: null,
        head_seq: 4,
        object_seq: 2,
        deleted: 2,
      });
      assert.deepEqual([pending.deleted, pending.state], [true, 2]);
      assert.match(
        corruptError(() =>
          refRow({ id: 'i', type: 'memory', agent_id: 'a', user_id: null, head_seq: 4, object_seq: 2, deleted: 7 }),
        ).message,
        /state reads 7/,
      );
      const commit = {
        ...{ seq: 2, hash: 'h', entity_id: 'i', parent_seq: 1, object_seq: 3 },
        ...{ time: 't', author: 'me', message: 'm', op: 'update' },
      };
      assert.deepEqual(commitRow(commit), {
        ...{ seq: 2, hash: 'h', entityId: 'i', parentSeq: 1, objectSeq: 3 },
        ...{ time: 't', author: 'me', message: 'm', op: 'update', meta: null },
      });
      assert.equal(commitRow({ ...commit, meta: '{"by":{"kind":"cli"}}' }).meta, '{"by":{"kind":"cli"}}');
      assert.match(corruptError(() => commitRow({ ...commit, author: 9 })).message, /commits table .* author column/);
      assert.match(
        corruptError(() => entityRow({ id: 'i', created_at: 'c', updated_at: 'u', hash: 'h', data: null })).message,
        /objects table .* data column holds NULL/,
      );
    });
  });

  describe('in a store whose columns hold the wrong types', function () {
    this.timeout(60_000);

    it('reads of the entity fail with STORE_CORRUPT naming the table, not with made-up text', async () => {
      const { memory, dir, cleanup } = await openTemp();
      try {
        const [saved] = await memory.memories.save('a', 'u', { content: 'the staging deploy uses blue-green' });
        await memory.memories.update(saved.id, { content: 'the staging deploy uses canaries' });
        tamper(dir, `UPDATE refs SET updated_at = x'01' WHERE id = '${saved.id}'`);
        const error = await rejectsWith(memory.memories.get(saved.id), 'STORE_CORRUPT');
        assert.match(error.message, /refs table .* updated_at column holds a blob/);
        tamper(dir, `UPDATE refs SET updated_at = created_at WHERE id = '${saved.id}'`);
        assert.equal((await memory.memories.get(saved.id))?.content, 'the staging deploy uses canaries');

        tamper(dir, `UPDATE commits SET author = x'02' WHERE entity_id = '${saved.id}' AND op = 'create'`);
        const history = await rejectsWith(memory.memories.history(saved.id), 'STORE_CORRUPT');
        assert.match(history.message, /commits table .* author column holds a blob/);
      } finally {
        await cleanup();
      }
    });

    it('verify reports the row as unreadable and checks every other row', async () => {
      const { memory, dir, cleanup } = await openTemp();
      try {
        const saved = await memory.memories.saveMany(
          Array.from({ length: 5 }, (_, i) => ({ agentId: 'a', input: { content: `note ${i} on the cache` } })),
        );
        const first = saved[0]![0].id;
        await memory.memories.update(first, { content: 'a newer note on the cache' });
        // The first commit of the entity: its child (the update) still names it as parent.
        tamper(dir, `UPDATE commits SET time = x'03' WHERE entity_id = '${first}' AND op = 'create'`);
        // And another entity's object: its data is no longer text.
        const other = saved[1]![0].id;
        tamper(
          dir,
          `UPDATE objects SET data = CAST(data AS BLOB) WHERE seq = (SELECT object_seq FROM refs WHERE id = '${other}')`,
        );
        const db = new Database(path.join(dir, STORE_FILE), { readOnly: true });
        try {
          const report = verifyState(db);
          const unreadable = report.errors.filter((error) => error.code === 'UNREADABLE');
          assert.deepEqual(unreadable.map((error) => error.id).sort(), ['main.commits', 'main.objects']);
          assert.match(unreadable.find((e) => e.id === 'main.commits')!.message, /1 rows .* time column holds a blob/);
          // The other rows were all read: 6 commits less the damaged one, 5 objects (+1 update) less one.
          assert.equal(report.totalCommits, 5);
          assert.equal(report.totalObjects, 5);
          // Nothing is called missing because of the rows left out.
          assert.ok(!report.errors.some((error) => error.code === 'MISSING_PARENT' || error.code === 'MISSING_OBJECT'));
          assert.equal(report.valid, false);
        } finally {
          db.close();
        }
      } finally {
        await cleanup();
      }
    });
  });
});
