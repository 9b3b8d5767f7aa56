import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { folderOf, workerMethods } from '../../src/extension/store/methods';
import { openTemp } from './helpers';

describe('grouped listings for the Collections view (worker methods)', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let worker: ReturnType<typeof workerMethods>;
  beforeEach(async () => {
    // A clock that ticks a second per write: "newest first" must not depend on two writes' milliseconds.
    let time = Date.parse('2026-01-01T00:00:00Z');
    ({ memory, cleanup } = await openTemp({ now: () => new Date((time += 1000)) }));
    worker = workerMethods(memory);
  });
  afterEach(() => cleanup());

  it('counts memories per category and user, user-less first, leaving out other agents and deleted ones', async () => {
    await memory.memories.save('a', undefined, { content: 'everyone 1', category: 'decision' });
    await memory.memories.save('a', undefined, { content: 'everyone 2', category: 'decision' });
    await memory.memories.save('a', 'bob', { content: 'bob only', category: 'decision' });
    await memory.memories.save('a', undefined, { content: 'a fact' });
    const [gone] = await memory.memories.save('a', undefined, { content: 'deleted', category: 'task' });
    await memory.memories.delete(gone.id);
    await memory.memories.save('other', undefined, { content: 'another agent', category: 'issue' });

    assert.deepEqual(await worker.categoryGroups('memory', 'a'), [
      { category: 'decision', userId: null, count: 2 },
      { category: 'decision', userId: 'bob', count: 1 },
      { category: 'fact', userId: null, count: 1 },
    ]);
    const everyone = await worker.categoryEntities('memory', 'a', 'decision', null, 0, 10);
    assert.deepEqual(
      everyone.map((e) => e.content),
      ['everyone 2', 'everyone 1'],
      'newest first',
    );
    const bob = await worker.categoryEntities('memory', 'a', 'decision', 'bob', 0, 10);
    assert.deepEqual(
      bob.map((e) => e.content),
      ['bob only'],
    );
    const paged = await worker.categoryEntities('memory', 'a', 'decision', null, 1, 1);
    assert.deepEqual(
      paged.map((e) => e.content),
      ['everyone 1'],
    );
  });

  it('groups documents by folder with document and chunk counts, and pages a document’s chunks in order', async () => {
    const chunk = (source: string, chunkIndex: number) => ({
      agentId: 'a',
      input: { content: `${source} #${chunkIndex}`, source, chunkIndex },
    });
    await memory.knowledge.saveMany([
      chunk('docs/b.md', 2),
      chunk('docs/b.md', 0),
      chunk('docs/b.md', 1),
      chunk('docs/a.md', 0),
      chunk('docs/api/c.md', 0),
      chunk('README.md', 0),
      { agentId: 'other', input: { content: 'not this agent', source: 'docs/z.md', chunkIndex: 0 } },
    ]);
    await memory.knowledge.save('a', undefined, { content: 'saved by hand, no document' });

    const { folders, loose } = await worker.documentFolders('a');
    assert.deepEqual(folders, [
      { folder: '', documents: 1, chunks: 1 },
      { folder: 'docs', documents: 2, chunks: 4 },
      { folder: 'docs/api', documents: 1, chunks: 1 },
    ]);
    assert.equal(loose, 1);
    assert.deepEqual(await worker.folderDocuments('a', 'docs', 0, 10), {
      items: [
        { source: 'docs/a.md', chunks: 1 },
        { source: 'docs/b.md', chunks: 3 },
      ],
      total: 2,
    });
    assert.deepEqual(await worker.folderDocuments('a', 'docs', 1, 1), {
      items: [{ source: 'docs/b.md', chunks: 3 }],
      total: 2,
    });
    const chunks = await worker.documentChunks('a', 'docs/b.md', 0, 10);
    assert.deepEqual(
      chunks.map((e) => e.content),
      ['docs/b.md #0', 'docs/b.md #1', 'docs/b.md #2'],
    );
    const second = await worker.documentChunks('a', 'docs/b.md', 1, 1);
    assert.deepEqual(
      second.map((e) => e.content),
      ['docs/b.md #1'],
    );
    const hand = await worker.looseKnowledge('a', 0, 10);
    assert.deepEqual(
      hand.map((e) => e.content),
      ['saved by hand, no document'],
    );
  });

  it('names the folder of a document path', () => {
    assert.equal(folderOf('README.md'), '');
    assert.equal(folderOf('docs/guide.md'), 'docs');
    assert.equal(folderOf('root-a/docs/api/x.md'), 'root-a/docs/api');
  });
});
