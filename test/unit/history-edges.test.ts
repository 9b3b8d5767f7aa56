import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { STORE_FILE } from '../../src/core/store/store-file';
import { FakeClock, openTemp, rejectsWith } from './helpers';

/**
 * Edges of the history that the main suites pass over: times that must not
 * move, an import over an entity deleted here, and a restore that fails in
 * the middle of its copy.
 */
describe('history edges', () => {
  it('keeps createdAt at the first save while updates move updatedAt (a clock that moves, not the wall)', async () => {
    const clock = new FakeClock();
    const { memory, cleanup } = await openTemp({ now: clock.now });
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'v1' });
      clock.advance(60_000);
      const [updated] = await memory.memories.update(saved.id, { content: 'v2' });
      clock.advance(60_000);
      const [again] = await memory.memories.update(saved.id, { tags: ['t'] });
      assert.equal(updated.createdAt, saved.createdAt);
      assert.equal(again.createdAt, saved.createdAt);
      assert.equal(updated.updatedAt, '2026-01-01T00:01:00.000Z');
      assert.equal(again.updatedAt, '2026-01-01T00:02:00.000Z');
      assert.equal((await memory.memories.get(saved.id))?.createdAt, '2026-01-01T00:00:00.000Z');
    } finally {
      await cleanup();
    }
  });

  it('an update records the message it is given (a restored version says so), and a bad message writes nothing', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'v1' });
      await memory.memories.update(saved.id, { content: 'v2' });
      const [, restore] = await memory.memories.update(
        saved.id,
        { content: 'v1' },
        { message: '  restore version 1 of “v1”  ' },
      );
      assert.equal(restore.message, 'restore version 1 of “v1”');
      assert.deepEqual(
        (await memory.history(saved.id)).map((entry) => [entry.commit.op, entry.commit.message]),
        [
          ['update', 'restore version 1 of “v1”'],
          ['update', 'update memory'],
          ['create', 'create memory'],
        ],
      );
      for (const message of ['', '   ', 'two\nlines', 'x'.repeat(201), 42]) {
        await rejectsWith(
          memory.memories.update(saved.id, { content: 'v3' }, { message: message as string }),
          'INVALID_INPUT',
        );
      }
      // 200 characters is the limit, and allowed.
      await memory.memories.update(saved.id, { content: 'v4' }, { message: 'x'.repeat(200) });
      assert.equal((await memory.history(saved.id)).length, 4, 'only the last update wrote');
    } finally {
      await cleanup();
    }
  });

  for (const skipExisting of [false, true]) {
    it(`an import brings back an entity deleted here, keeping its history${skipExisting ? ' (skipExisting too: a deleted entity does not exist)' : ''}`, async () => {
      const { memory, cleanup } = await openTemp();
      try {
        const [saved] = await memory.memories.save('a', undefined, { content: 'exported, then deleted here' });
        const data = await memory.export();
        await memory.memories.delete(saved.id);
        const report = await memory.import(data, { skipExisting });
        assert.equal(report.imported, 1);
        assert.equal(report.skipped, 0);
        assert.equal((await memory.memories.get(saved.id))?.content, 'exported, then deleted here');
        assert.deepEqual(
          (await memory.history(saved.id)).map((entry) => entry.commit.op),
          ['import', 'delete', 'create'],
        );
        assert.equal((await memory.verify()).valid, true);
      } finally {
        await cleanup();
      }
    });
  }

  it('a restore that fails in the middle of its copy leaves the live store exactly as it was', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [kept] = await memory.memories.save('a', undefined, { content: 'in the snapshot' });
      const snapshot = await memory.snapshot('before');
      await memory.memories.save('a', undefined, { content: 'written after the snapshot' });
      const before = (await memory.export()).entities;
      // Another connection makes the copy fail part-way: the refs of the snapshot go in one by one,
      // and the second one is refused.
      const other = new DatabaseSync(path.join(dir, STORE_FILE));
      other.exec(`CREATE TRIGGER fail_restore BEFORE INSERT ON refs WHEN NEW.id = '${kept.id}'
        BEGIN SELECT RAISE(ABORT, 'the disk went away'); END;`);
      try {
        const error = await rejectsWith(memory.restore(snapshot.id), 'SNAPSHOT_INVALID');
        assert.match(error.message, /the disk went away/);
      } finally {
        other.exec('DROP TRIGGER fail_restore');
        other.close();
      }
      assert.deepEqual((await memory.export()).entities, before);
      assert.equal((await memory.verify()).valid, true);
      // And the same restore succeeds once nothing stops it.
      await memory.restore(snapshot.id);
      assert.deepEqual(
        (await memory.memories.list('a')).map((entity) => entity.content),
        ['in the snapshot'],
      );
    } finally {
      await cleanup();
    }
  });
});
