import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { type OperationContext, runOperation } from '../../src/core/operations';
import { SHARED_AGENT_ID } from '../../src/core/types';
import { openTemp, rejectsWith } from './helpers';

/** `{"a":{"a":…1…}}` nested `levels` deep, parsed from text as a caller's JSON would be. */
function deepObject(levels: number): Record<string, unknown> {
  return JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`) as Record<string, unknown>;
}

function deepArray(levels: number): unknown[] {
  return JSON.parse(`${'['.repeat(levels)}1${']'.repeat(levels)}`) as unknown[];
}

const DEEP = 10_000;
const FORBIDDEN = ['__proto__'];

/** A minimal valid export document around `entities`. */
function exportOf(entities: Record<string, unknown[]>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { format: 'workspace-memory', version: 1, exportedAt: '2026-01-01T00:00:00.000Z', entities, ...extra };
}

const memoryItem = { id: 'memory-1', type: 'memory', agentId: 'a', content: 'fine', tags: [], category: 'fact' };
const profileItem = { id: 'profile-1', type: 'profile', agentId: 'a', userId: 'u', content: 'me', metadata: {} };

describe('input hardening', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let context: OperationContext;
  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    context = { store: memory, scope: { agentId: 'a', userId: 'u' } };
  });
  afterEach(async () => cleanup());

  const commits = async () => (await memory.stats()).commits;

  describe(`JSON nested ${DEEP} levels deep is INVALID_INPUT, not a stack overflow`, () => {
    it('through save, for objects and arrays', async () => {
      for (const deep of [deepObject(DEEP), deepArray(DEEP)]) {
        const error = await rejectsWith(
          memory.profiles.save('a', 'u', { content: 'me', metadata: { deep } }),
          'INVALID_INPUT',
        );
        assert.match(error.message, /metadata\.deep.*nested deeper than 32 levels/);
      }
      assert.equal(await commits(), 0);
    });

    it('through update, and the profile keeps its version', async () => {
      const [profile] = await memory.profiles.save('a', 'u', { content: 'me', metadata: { tz: 'UTC' } });
      await rejectsWith(memory.profiles.update(profile.id, { metadata: deepObject(DEEP) }), 'INVALID_INPUT');
      assert.deepEqual((await memory.profiles.get(profile.id))?.metadata, { tz: 'UTC' });
      assert.equal(await commits(), 1);
    });

    it("through a session's messages, saved and appended", async () => {
      const deepMessage = { role: 'user', content: 'hi', extra: deepObject(DEEP) };
      await rejectsWith(memory.sessions.save('a', 'u', { messages: [deepMessage] } as never), 'INVALID_INPUT');
      const [session] = await memory.sessions.save('a', 'u', { messages: [{ role: 'user', content: 'hi' }] });
      const messages = [...(session.messages ?? []), deepMessage];
      await rejectsWith(memory.sessions.update(session.id, { messages } as never), 'INVALID_INPUT');
      assert.equal((await memory.sessions.get(session.id))?.messages?.length, 1);
    });

    it('through import, naming the entity, and nothing is written', async () => {
      const deep = { ...profileItem, metadata: deepObject(DEEP) };
      const error = await rejectsWith(
        memory.import(exportOf({ memories: [memoryItem], profiles: [deep] })),
        'IMPORT_INVALID',
      );
      assert.match(error.message, /entities\.profiles\[0\].*metadata\.a.*nested deeper than 32 levels/);
      assert.equal(await commits(), 0);
    });

    it('through a catalogue operation', async () => {
      const error = await rejectsWith(
        runOperation(context, 'profile_update', { content: 'me', metadata: deepObject(DEEP) }),
        'INVALID_INPUT',
      );
      assert.match(error.message, /nested deeper/);
      assert.equal(await commits(), 0);
    });

    it('a cyclic value is refused instead of walked forever', async () => {
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic.self = cyclic;
      await rejectsWith(memory.profiles.save('a', 'u', { content: 'me', metadata: cyclic }), 'INVALID_INPUT');
    });
  });

  describe('keys that reach a prototype are refused by name, never dropped', () => {
    for (const key of FORBIDDEN) {
      it(`"${key}" in metadata, at the top and nested, and in any input`, async () => {
        const top = JSON.parse(`{"${key}":{"admin":true},"tz":"UTC"}`) as Record<string, unknown>;
        const nested = JSON.parse(`{"prefs":[{"${key}":1}]}`) as Record<string, unknown>;
        const error = await rejectsWith(
          memory.profiles.save('a', 'u', { content: 'me', metadata: top }),
          'INVALID_INPUT',
        );
        assert.ok(error.message.includes(`metadata.${key}`), error.message);
        const deeper = await rejectsWith(
          memory.profiles.save('a', 'u', { content: 'me', metadata: nested }),
          'INVALID_INPUT',
        );
        assert.ok(deeper.message.includes(`metadata.prefs[0].${key}`), deeper.message);
        const input = JSON.parse(`{"content":"x","${key}":{"tags":["a"]}}`) as { content: string };
        await rejectsWith(memory.memories.save('a', 'u', input), 'INVALID_INPUT');
        assert.equal(await commits(), 0);
      });

      it(`"${key}" in an update leaves the entity as it was`, async () => {
        const [profile] = await memory.profiles.save('a', 'u', { content: 'me', metadata: { tz: 'UTC' } });
        const metadata = JSON.parse(`{"${key}":"x"}`) as Record<string, unknown>;
        await rejectsWith(memory.profiles.update(profile.id, { metadata }), 'INVALID_INPUT');
        assert.deepEqual((await memory.profiles.get(profile.id))?.metadata, { tz: 'UTC' });
      });

      it(`"${key}" in an import document, on an entity, in metadata or in accessCounts`, async () => {
        const documents = [
          exportOf({ memories: [{ ...memoryItem, ...(JSON.parse(`{"${key}":{"x":1}}`) as object) }] }),
          exportOf({ profiles: [{ ...profileItem, metadata: JSON.parse(`{"${key}":1}`) as object }] }),
          exportOf({ memories: [memoryItem] }, { accessCounts: JSON.parse(`{"${key}":3}`) as object }),
        ];
        for (const document of documents) {
          const error = await rejectsWith(memory.import(document), 'IMPORT_INVALID');
          assert.ok(error.message.includes(`${key} is not allowed as a key`), error.message);
        }
        assert.equal(await commits(), 0);
      });

      it(`"${key}" in a catalogue operation's arguments`, async () => {
        const metadata = JSON.parse(`{"${key}":{"admin":true}}`) as Record<string, unknown>;
        const error = await rejectsWith(
          runOperation(context, 'profile_update', { content: 'me', metadata }),
          'INVALID_INPUT',
        );
        assert.ok(error.message.includes(`metadata.${key} is not allowed as a key`), error.message);
        assert.equal(await commits(), 0);
      });
    }

    it('ordinary keys that merely look alike are kept, and so are "constructor" and "prototype", as data', async () => {
      const metadata = JSON.parse(
        '{"proto":1,"constructors":["a"],"__proto":"x","Prototype":true,"constructor":"Ford","prototype":{"v":2}}',
      ) as Record<string, unknown>;
      const [profile] = await memory.profiles.save('a', 'u', { content: 'me', metadata });
      assert.deepEqual((await memory.profiles.get(profile.id))?.metadata, metadata);
    });
  });

  describe('import refuses what it does not understand, naming it, and writes nothing', () => {
    afterEach(async () => assert.equal(await commits(), 0));

    it('an unknown format', async () => {
      const error = await rejectsWith(
        memory.import({ ...exportOf({ memories: [memoryItem] }), format: 'other-tool' }),
        'IMPORT_INVALID',
      );
      assert.match(error.message, /format/);
    });

    it('an unknown version', async () => {
      const error = await rejectsWith(
        memory.import({ ...exportOf({ memories: [memoryItem] }), version: 2 }),
        'IMPORT_INVALID',
      );
      assert.match(error.message, /version 1/);
    });

    it('an unknown collection', async () => {
      const error = await rejectsWith(
        memory.import(exportOf({ memories: [memoryItem], notes: [{ id: 'n', type: 'note', agentId: 'a' }] })),
        'IMPORT_INVALID',
      );
      assert.match(error.message, /unknown collection "notes"/);
    });

    it('an unknown field of the document', async () => {
      const error = await rejectsWith(
        memory.import(exportOf({ memories: [memoryItem] }, { comment: 'hi' })),
        'IMPORT_INVALID',
      );
      assert.match(error.message, /unknown field "comment"/);
    });

    for (const [collection, item] of [
      ['memories', { ...memoryItem, id: 'memory-2' }],
      ['sessions', { id: 'session-1', type: 'session', agentId: 'a', content: 'talk', mined: false }],
    ] as const) {
      it(`${collection} of the shared agent`, async () => {
        const shared = { ...item, id: `${item.id}-shared`, agentId: SHARED_AGENT_ID };
        const error = await rejectsWith(memory.import(exportOf({ [collection]: [item, shared] })), 'IMPORT_INVALID');
        assert.ok(error.message.includes(`entities.${collection}[1]`), error.message);
        assert.ok(error.message.includes(SHARED_AGENT_ID), error.message);
      });
    }
  });

  it('import still takes skills, knowledge and profiles of the shared agent', async () => {
    const report = await memory.import(
      exportOf({
        skills: [{ id: 'skill-1', type: 'skill', agentId: SHARED_AGENT_ID, content: 'deploy', tags: [] }],
        knowledge: [{ id: 'knowledge-1', type: 'knowledge', agentId: SHARED_AGENT_ID, content: 'doc', tags: [] }],
        profiles: [{ ...profileItem, agentId: SHARED_AGENT_ID }],
      }),
    );
    assert.equal(report.imported, 3);
  });

  it('memories and sessions cannot be saved for the shared agent either, so every export imports', async () => {
    const error = await rejectsWith(memory.memories.save(SHARED_AGENT_ID, 'u', { content: 'x' }), 'INVALID_INPUT');
    assert.match(error.message, /shared agent/);
    await rejectsWith(memory.sessions.save(SHARED_AGENT_ID, 'u', { content: 'x' }), 'INVALID_INPUT');
    memory.use({ beforeSave: (entity) => ({ ...entity, agentId: SHARED_AGENT_ID }) });
    await rejectsWith(memory.memories.save('a', 'u', { content: 'x' }), 'INVALID_INPUT');
    assert.equal(await commits(), 0);
  });
});
