import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Memory } from '../../src/core/memory';
import { RESTORE_PREVIEW_IDS } from '../../src/core/snapshots/preview';
import { openTemp, rejectsWith } from './helpers';

describe('restore preview (Memory.restorePreview)', () => {
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ memory, dir, cleanup } = await openTemp());
  });
  afterEach(() => cleanup());

  it('counts, by type, what a restore brings back, removes and changes, and changes nothing itself', async () => {
    const [kept] = await memory.memories.save('a', undefined, { content: 'kept as is' });
    const [edited] = await memory.memories.save('a', undefined, { content: 'before the edit' });
    const [revisited] = await memory.skills.save('a', undefined, { content: 'make deploy' });
    const [deleted] = await memory.knowledge.save('a', undefined, { content: 'deleted after the snapshot' });
    const snapshot = await memory.snapshot('before');

    await memory.memories.update(edited.id, { content: 'after the edit' });
    // Edited and edited back: the same content, so not a change.
    await memory.skills.update(revisited.id, { content: 'make ship' });
    await memory.skills.update(revisited.id, { content: 'make deploy' });
    await memory.knowledge.delete(deleted.id);
    const [added] = await memory.memories.save('a', undefined, { content: 'added after the snapshot' });
    const stats = await memory.stats();

    const preview = await memory.restorePreview(snapshot.id);
    assert.equal(preview.snapshot.id, snapshot.id);
    assert.deepEqual(preview.restored, {
      total: 1,
      byType: { knowledge: 1 },
      ids: [{ id: deleted.id, type: 'knowledge' }],
    });
    assert.deepEqual(preview.removed, { total: 1, byType: { memory: 1 }, ids: [{ id: added.id, type: 'memory' }] });
    assert.deepEqual(preview.changed, { total: 1, byType: { memory: 1 }, ids: [{ id: edited.id, type: 'memory' }] });
    assert.equal(preview.unchanged, 2, `${kept.id} and ${revisited.id}`);
    assert.deepEqual(await memory.stats(), stats, 'a preview writes nothing');

    await memory.restore(snapshot.id);
    const after = await memory.restorePreview(snapshot.id);
    for (const kind of ['restored', 'removed', 'changed'] as const) assert.equal(after[kind].total, 0, kind);
    assert.equal(after.unchanged, 4);
  });

  it('lists a bounded number of ids, in id order, while counting all', async () => {
    const snapshot = await memory.snapshot('empty');
    const saved = await memory.memories.saveMany(
      Array.from({ length: RESTORE_PREVIEW_IDS + 5 }, (_, i) => ({
        agentId: 'a',
        input: { content: `memory number ${i}` },
      })),
    );
    const preview = await memory.restorePreview(snapshot.id);
    assert.equal(preview.removed.total, RESTORE_PREVIEW_IDS + 5);
    assert.deepEqual(preview.removed.byType, { memory: RESTORE_PREVIEW_IDS + 5 });
    assert.deepEqual(
      preview.removed.ids.map((entry) => entry.id),
      saved
        .map((result) => result![0].id)
        .sort()
        .slice(0, RESTORE_PREVIEW_IDS),
    );
  });

  it('refuses an unknown or malformed id, and a snapshot of an unknown layout, leaving the store alone', async () => {
    await rejectsWith(memory.restorePreview('snap-nope'), 'SNAPSHOT_NOT_FOUND');
    await rejectsWith(memory.restorePreview('../x'), 'INVALID_ID');
    const snapshot = await memory.snapshot('future');
    const { DatabaseSync } = await import('node:sqlite');
    const copy = new DatabaseSync(path.join(dir, 'snapshots', `${snapshot.id}.db`));
    copy.exec('PRAGMA user_version = 999');
    copy.close();
    await rejectsWith(memory.restorePreview(snapshot.id), 'SNAPSHOT_INVALID');
    // The snapshot was detached: another preview of a good one still works.
    const good = await memory.snapshot('good');
    assert.equal((await memory.restorePreview(good.id)).unchanged, 0);
    assert.ok(fs.existsSync(path.join(dir, 'memory.db')));
  });
});
