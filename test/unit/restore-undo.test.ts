import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import type { Memory } from '../../src/core/memory';
import type { Snapshots } from '../../src/core/snapshots';
import { beforeRestoreLabel, type SnapshotInfo } from '../../src/core/snapshots/manifests';
import { STORE_FILE } from '../../src/core/store/store-file';
import { openTemp } from './helpers';

// Issue #17: a restore dropped everything written since the snapshot, with no way back.

describe('a snapshot restore can be undone', () => {
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ memory, dir, cleanup } = await openTemp());
  });
  afterEach(() => cleanup());

  const contents = async () => (await memory.memories.list('a')).map((m) => m.content).sort();

  it('keeps the store as it was as a snapshot named after the one restored, and restoring that one undoes it', async () => {
    await memory.memories.save('a', undefined, { content: 'in the snapshot' });
    const weekly = await memory.snapshot('weekly');
    await memory.memories.save('a', undefined, { content: 'written since' });

    const restored = await memory.restore(weekly.id);
    assert.equal(restored.id, weekly.id);
    assert.ok(restored.before, 'the restore says where the store as it was went');
    assert.equal(restored.before.label, 'before restoring weekly');
    assert.equal(restored.before.entities, 2);
    assert.deepEqual(await contents(), ['in the snapshot']);

    await memory.restore(restored.before.id);
    assert.deepEqual(await contents(), ['in the snapshot', 'written since']);
  });

  it('names an unlabelled snapshot by its id, and an old label with a line break on one line', () => {
    const info = { id: 'snap-1', label: '', createdAt: '', entities: 0, bytes: 0 };
    assert.equal(beforeRestoreLabel(info), 'before restoring snap-1');
    assert.equal(beforeRestoreLabel({ ...info, label: 'two\nlines' }), 'before restoring two lines');
    assert.ok(beforeRestoreLabel({ ...info, label: 'word '.repeat(60) }).length <= 200);
  });

  it('keeps the store again when another process writes while it is kept, so the kept copy misses nothing', async () => {
    const other = new DatabaseSync(path.join(dir, STORE_FILE));
    try {
      const snapshot = await memory.snapshot('empty');
      // The other process commits right after the first copy is taken, before the restore's transaction.
      const snapshots = (memory as unknown as { snapshots: Snapshots }).snapshots;
      const create = snapshots.create.bind(snapshots);
      let copies = 0;
      snapshots.create = (label: string): SnapshotInfo => {
        const info = create(label);
        if (++copies === 1) other.exec("INSERT INTO audit (time, op) VALUES ('2020-01-01', 'meanwhile')");
        return info;
      };
      const { before } = await memory.restore(snapshot.id);

      assert.equal(copies, 2);
      assert.ok(before);
      const kept = new DatabaseSync(path.join(dir, 'snapshots', `${before.id}.db`), { readOnly: true });
      try {
        assert.equal(kept.prepare("SELECT count(*) AS n FROM audit WHERE op = 'meanwhile'").get()?.n, 1);
      } finally {
        kept.close();
      }
      assert.deepEqual(
        (await memory.listSnapshots()).map((s) => s.label),
        ['before restoring empty', 'empty'],
        'the first, stale copy was removed',
      );
    } finally {
      other.close();
    }
  });
});
