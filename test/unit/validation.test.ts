import * as assert from 'node:assert/strict';
import type { Memory } from '../../src/core/memory';
import { LIMITS } from '../../src/core/validation';
import { openTemp, rejectsWith } from './helpers';

describe('bad input', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  const badIds = ['a/b', 'a\\b', '..', 'x..y', 'c:d', 'nul\u0000', 'tab\there', 'del\u007f', ''];
  for (const id of badIds) {
    it(`refuses the id ${JSON.stringify(id)} everywhere and writes nothing`, async () => {
      await rejectsWith(memory.memories.save(id, 'u', { content: 'x' }), 'INVALID_ID');
      await rejectsWith(memory.memories.save('a', id, { content: 'x' }), 'INVALID_ID');
      await rejectsWith(memory.memories.get(id), 'INVALID_ID');
      await rejectsWith(memory.memories.update(id, { content: 'x' }), 'INVALID_ID');
      await rejectsWith(memory.memories.delete(id), 'INVALID_ID');
      await rejectsWith(memory.memories.history(id), 'INVALID_ID');
      await rejectsWith(memory.memories.list(id), 'INVALID_ID');
      assert.equal((await memory.stats()).commits, 0);
    });
  }

  it('refuses an id over 200 characters', async () => {
    await rejectsWith(memory.memories.save('a'.repeat(201), 'u', { content: 'x' }), 'INVALID_ID');
  });

  it('refuses unknown entity types', async () => {
    assert.throws(() => memory.collection('note' as never), /Unknown entity type "note"/);
  });

  it('measures content in UTF-8 bytes: 1 MB passes, one byte more does not', async () => {
    const exact = 'a'.repeat(LIMITS.maxContentBytes);
    const [saved] = await memory.knowledge.save('a', undefined, { content: exact });
    assert.equal(saved.content.length, LIMITS.maxContentBytes);
    // 'é' is two bytes: half as many characters already reach the cap.
    await rejectsWith(
      memory.knowledge.save('a', undefined, { content: 'é'.repeat(LIMITS.maxContentBytes / 2) + 'a' }),
      'CONTENT_TOO_LARGE',
    );
    await rejectsWith(memory.knowledge.update(saved.id, { content: exact + 'b' }), 'CONTENT_TOO_LARGE');
    assert.equal((await memory.knowledge.get(saved.id))?.content, exact, 'the refused update changed nothing');
  });

  it('refuses more than 50 tags, and accepts 50', async () => {
    const tags = Array.from({ length: 51 }, (_, i) => `tag${i}`);
    await rejectsWith(memory.memories.save('a', 'u', { content: 'x', tags }), 'TOO_MANY_TAGS');
    const [saved] = await memory.memories.save('a', 'u', { content: 'x', tags: tags.slice(0, 50) });
    assert.equal(saved.tags.length, 50);
  });

  it('refuses limits over 200 and negative offsets', async () => {
    await rejectsWith(memory.memories.listPaginated('a', 'u', { limit: 201 }), 'LIMIT_TOO_LARGE');
    await rejectsWith(memory.memories.listPaginated('a', 'u', { limit: 0 }), 'INVALID_INPUT');
    await rejectsWith(memory.memories.listPaginated('a', 'u', { offset: -1 }), 'INVALID_INPUT');
    await rejectsWith(memory.sessions.listConversations('a', 'u', { limit: 1000 }), 'LIMIT_TOO_LARGE');
  });

  it('refuses wrong field types, unknown fields, bad categories and empty content', async () => {
    await rejectsWith(memory.memories.save('a', 'u', { content: 42 } as never), 'INVALID_INPUT');
    await rejectsWith(memory.memories.save('a', 'u', { content: 'x', colour: 'red' } as never), 'INVALID_INPUT');
    await rejectsWith(memory.memories.save('a', 'u', { content: 'x', category: 'rumour' } as never), 'INVALID_INPUT');
    await rejectsWith(memory.skills.save('a', 'u', { content: 'x', status: 'retired' } as never), 'INVALID_INPUT');
    await rejectsWith(memory.memories.save('a', 'u', { content: '   ' }), 'INVALID_INPUT');
    await rejectsWith(memory.memories.save('a', 'u', null as never), 'INVALID_INPUT');
    await rejectsWith(memory.sessions.save('a', 'u', { content: 'x', startedAt: 'yesterday' }), 'INVALID_INPUT');
    const error = await rejectsWith(
      memory.memories.save('a', 'u', { content: 'x', category: 'rumour' } as never),
      'INVALID_INPUT',
    );
    assert.match(error.message, /category/);
    assert.equal((await memory.stats()).commits, 0);
  });

  it('refuses to update an entity with content of another type', async () => {
    const [saved] = await memory.memories.save('a', 'u', { content: 'x' });
    await rejectsWith(memory.memories.update(saved.id, { status: 'draft' } as never), 'INVALID_INPUT');
    await rejectsWith(memory.skills.update(saved.id, { content: 'y' }), 'NOT_FOUND');
  });

  it('refuses snapshot labels with line breaks or control characters, and over 200 characters', async () => {
    for (const label of ['a\nb', 'red \u001b[31m', 'tab\there', 'cr\r', 'del\u007f', 'c1\u009b31m', 'ls\u2028']) {
      const error = await rejectsWith(memory.snapshot(label), 'INVALID_INPUT');
      assert.match(error.message, /control characters/);
    }
    await rejectsWith(memory.snapshot('a\nb\u001b[31m'), 'INVALID_INPUT');
    await rejectsWith(memory.snapshot('x'.repeat(201)), 'INVALID_INPUT');
    await rejectsWith(memory.snapshot(42 as never), 'INVALID_INPUT');
    assert.deepEqual(await memory.listSnapshots(), [], 'nothing was written');
    const fine = 'Before the migration — größer, 日本語 🚀 '.padEnd(200, '.');
    assert.equal((await memory.snapshot(fine)).label, fine);
    assert.equal((await memory.snapshot()).label, '');
  });

  it('reports a closed store clearly', async () => {
    await memory.close();
    await rejectsWith(memory.memories.list('a'), 'STORE_CLOSED');
  });
});
