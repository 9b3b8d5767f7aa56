import * as assert from 'node:assert/strict';

import type { MemoryErrorCode } from '../../src/core/errors';
import type { Memory } from '../../src/core/memory';
import { runOperation } from '../../src/core/operations';
import { MAX_RESULTS } from '../../src/core/operations/fields';
import type { Citation } from '../../src/core/types';
import { LIMITS, validateInput } from '../../src/core/validation';
import { openTemp, rejectsWith } from './helpers';

/** An object nested `levels` deep (itself level 1), as a caller's JSON would be. */
function nested(levels: number): Record<string, unknown> {
  return JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`) as Record<string, unknown>;
}

/** Runs `check`, which throws a MemoryError, as a rejected promise for rejectsWith. */
async function throwsWith(check: () => unknown, code: MemoryErrorCode) {
  return rejectsWith(async () => check(), code);
}

/** A citation given whole (as an import or a re-anchoring gives it): kept as it is, nothing read. */
const whole = (fields: Partial<Citation> = {}): Citation => ({
  path: 'src/app.ts',
  startLine: 1,
  endLine: 2,
  text: 'cited',
  hash: 'a'.repeat(64),
  ...fields,
});

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

  /**
   * Every limit, exactly at it (accepted) and one over (refused with its
   * code). Typed by LIMITS' keys: a new limit without a test here does not compile.
   */
  const boundaries: Record<keyof typeof LIMITS, () => Promise<void>> = {
    maxContentBytes: async () => {
      const [saved] = await memory.memories.save('a', 'u', { content: 'a'.repeat(LIMITS.maxContentBytes) });
      assert.equal(Buffer.byteLength(saved.content), LIMITS.maxContentBytes);
      await rejectsWith(
        memory.memories.save('a', 'u', { content: 'a'.repeat(LIMITS.maxContentBytes + 1) }),
        'CONTENT_TOO_LARGE',
      );
    },
    maxTags: async () => {
      const tags = Array.from({ length: LIMITS.maxTags + 1 }, (_, i) => `tag${i}`);
      const [saved] = await memory.memories.save('a', 'u', { content: 'x', tags: tags.slice(0, LIMITS.maxTags) });
      assert.equal(saved.tags.length, LIMITS.maxTags);
      await rejectsWith(memory.memories.save('a', 'u', { content: 'x', tags }), 'TOO_MANY_TAGS');
    },
    maxTagLength: async () => {
      const tag = 't'.repeat(LIMITS.maxTagLength);
      const [saved] = await memory.memories.save('a', 'u', { content: 'x', tags: [tag] });
      assert.deepEqual(saved.tags, [tag]);
      await rejectsWith(memory.memories.save('a', 'u', { content: 'x', tags: [`${tag}t`] }), 'INVALID_INPUT');
      // The catalogue's tags field has the same bound.
      await runOperation({ store: memory, scope: { agentId: 'a', userId: 'u' } }, 'memory_save', {
        content: 'y',
        tags: [tag],
      });
      await rejectsWith(
        runOperation({ store: memory, scope: { agentId: 'a', userId: 'u' } }, 'memory_save', {
          content: 'y',
          tags: [`${tag}t`],
        }),
        'INVALID_INPUT',
      );
    },
    maxIdLength: async () => {
      const id = 'a'.repeat(LIMITS.maxIdLength);
      const [saved] = await memory.memories.save(id, id, { content: 'x' });
      assert.equal(saved.agentId, id);
      await rejectsWith(memory.memories.save(`${id}a`, 'u', { content: 'x' }), 'INVALID_ID');
      await rejectsWith(memory.memories.save('a', `${id}a`, { content: 'x' }), 'INVALID_ID');
      await rejectsWith(memory.memories.get(`${id}a`), 'INVALID_ID');
    },
    maxPageSize: async () => {
      const page = await memory.memories.listPaginated('a', 'u', { limit: LIMITS.maxPageSize });
      assert.equal(page.limit, LIMITS.maxPageSize);
      await rejectsWith(memory.memories.listPaginated('a', 'u', { limit: LIMITS.maxPageSize + 1 }), 'LIMIT_TOO_LARGE');
      await rejectsWith(memory.profiles.getByUserAcrossAgents('u', LIMITS.maxPageSize + 1), 'LIMIT_TOO_LARGE');
    },
    defaultPageSize: async () => {
      await memory.memories.saveMany(
        Array.from({ length: LIMITS.defaultPageSize + 1 }, (_, i) => ({
          agentId: 'a',
          input: { content: `note ${i}` },
        })),
      );
      const page = await memory.memories.listPaginated('a');
      assert.equal(page.limit, LIMITS.defaultPageSize);
      assert.equal(page.items.length, LIMITS.defaultPageSize);
      assert.equal(page.hasMore, true);
      // The catalogue's `limit` fields stop at MAX_RESULTS (50): 50 passes, 51 is refused.
      const context = { store: memory, scope: { agentId: 'a', userId: 'u' } };
      const found = await runOperation(context, 'memory_search', { query: 'note', limit: MAX_RESULTS });
      assert.match(found.text, /note/);
      const error = await rejectsWith(
        runOperation(context, 'memory_search', { query: 'note', limit: MAX_RESULTS + 1 }),
        'INVALID_INPUT',
      );
      assert.match(error.message, /limit/);
    },
    maxJsonDepth: async () => {
      // The input is level 1 and its metadata level 2.
      const atLimit = nested(LIMITS.maxJsonDepth - 1);
      const [saved] = await memory.profiles.save('a', 'u', { content: 'me', metadata: atLimit });
      assert.deepEqual(saved.metadata, atLimit);
      const error = await rejectsWith(
        memory.profiles.save('a', 'u', { content: 'me', metadata: nested(LIMITS.maxJsonDepth) }),
        'INVALID_INPUT',
      );
      assert.match(error.message, new RegExp(`nested deeper than ${LIMITS.maxJsonDepth} levels`));
    },
    maxInputBytes: async () => {
      // Counted as the bytes of strings and keys, plus 1 for every other value: here the
      // input object (1), "content" (7), "x" (1), "questions" (9) and the array (1).
      const room = LIMITS.maxInputBytes - 19;
      const input = { content: 'x', questions: ['q'.repeat(room)] };
      assert.deepEqual(validateInput('knowledge', input), input);
      await throwsWith(
        () => validateInput('knowledge', { content: 'x', questions: ['q'.repeat(room + 1)] }),
        'CONTENT_TOO_LARGE',
      );
      // Many small values add up the same way (a session of countless empty messages).
      const messages = Array.from({ length: LIMITS.maxInputBytes / 8 }, () => ({ role: 'user' as const, content: '' }));
      await rejectsWith(memory.sessions.save('a', 'u', { content: 'x', messages }), 'CONTENT_TOO_LARGE');
    },
    maxMetadataBytes: async () => {
      // The metadata object (1) and its key "k" (1), then the value.
      const value = 'm'.repeat(LIMITS.maxMetadataBytes - 2);
      const [saved] = await memory.profiles.save('a', 'u', { content: 'me', metadata: { k: value } });
      assert.equal(saved.metadata.k, value);
      const error = await rejectsWith(
        memory.profiles.save('a', 'u', { content: 'me', metadata: { k: `${value}m` } }),
        'CONTENT_TOO_LARGE',
      );
      assert.match(error.message, /metadata/);
    },
    maxCitations: async () => {
      const citations = Array.from({ length: LIMITS.maxCitations + 1 }, (_, i) => whole({ path: `src/${i}.ts` }));
      const [saved] = await memory.memories.save('a', 'u', {
        content: 'x',
        citations: citations.slice(0, LIMITS.maxCitations),
      });
      assert.equal(saved.citations?.length, LIMITS.maxCitations);
      await rejectsWith(memory.memories.save('a', 'u', { content: 'x', citations }), 'INVALID_INPUT');
    },
    maxCitationPath: async () => {
      const path = 'p'.repeat(LIMITS.maxCitationPath);
      const [saved] = await memory.skills.save('a', 'u', { content: 'x', citations: [whole({ path })] });
      assert.equal(saved.citations?.[0]?.path, path);
      await rejectsWith(
        memory.skills.save('a', 'u', { content: 'x', citations: [whole({ path: `${path}p` })] }),
        'INVALID_INPUT',
      );
    },
    maxCitationText: async () => {
      const text = 't'.repeat(LIMITS.maxCitationText);
      const [saved] = await memory.memories.save('a', 'u', { content: 'x', citations: [whole({ text })] });
      assert.equal(saved.citations?.[0]?.text, text);
      await rejectsWith(
        memory.memories.save('a', 'u', { content: 'x', citations: [whole({ text: `${text}t` })] }),
        'INVALID_INPUT',
      );
    },
    maxCitationSymbol: async () => {
      const symbol = 's'.repeat(LIMITS.maxCitationSymbol);
      const [saved] = await memory.memories.save('a', 'u', { content: 'x', citations: [whole({ symbol })] });
      assert.equal(saved.citations?.[0]?.symbol, symbol);
      await rejectsWith(
        memory.memories.save('a', 'u', { content: 'x', citations: [whole({ symbol: `${symbol}s` })] }),
        'INVALID_INPUT',
      );
    },
    maxAppliesTo: async () => {
      const globs = Array.from({ length: LIMITS.maxAppliesTo + 1 }, (_, i) => `src/part${i}/**`);
      const [saved] = await memory.skills.save('a', undefined, { content: 'x', appliesTo: globs.slice(0, -1) });
      assert.equal(saved.appliesTo?.length, LIMITS.maxAppliesTo);
      await rejectsWith(memory.skills.save('a', undefined, { content: 'x', appliesTo: globs }), 'INVALID_INPUT');
    },
    maxGlob: async () => {
      const glob = `${'d'.repeat(LIMITS.maxGlob - 5)}/**.*`;
      const [saved] = await memory.memories.save('a', 'u', { content: 'x', appliesTo: [glob] });
      assert.deepEqual(saved.appliesTo, [glob]);
      await rejectsWith(memory.memories.save('a', 'u', { content: 'x', appliesTo: [`d${glob}`] }), 'INVALID_INPUT');
    },
  };
  for (const [name, check] of Object.entries(boundaries)) {
    it(`${name} (${LIMITS[name as keyof typeof LIMITS]}): exactly at it passes, one over is refused`, check);
  }

  it('reports a closed store clearly', async () => {
    await memory.close();
    await rejectsWith(memory.memories.list('a'), 'STORE_CLOSED');
  });
});
