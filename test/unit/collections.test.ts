import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { type Entity, SHARED_AGENT_ID } from '../../src/core/types';
import { FakeClock, openTemp, rejectsWith } from './helpers';

describe('collections', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  describe('memories', () => {
    it('saves with defaults and returns the entity and its first commit', async () => {
      const [entity, commit] = await memory.memories.save('agent', 'user', { content: 'Prefers tabs' });
      assert.match(entity.id, /^memory-/);
      assert.equal(entity.type, 'memory');
      assert.equal(entity.agentId, 'agent');
      assert.equal(entity.userId, 'user');
      assert.equal(entity.category, 'fact');
      assert.deepEqual(entity.tags, []);
      assert.equal(entity.createdAt, entity.updatedAt);
      assert.equal(commit.entityId, entity.id);
      assert.equal(commit.parent, null);
      assert.equal(commit.op, 'create');
      assert.equal(commit.author, 'test');
      assert.match(commit.hash, /^[0-9a-f]{64}$/);
      assert.deepEqual(await memory.memories.get(entity.id), entity);
    });

    it('normalizes tags: trimmed, de-duplicated, empties dropped', async () => {
      const [entity] = await memory.memories.save('a', undefined, { content: 'x', tags: [' db ', 'db', '', 'sql'] });
      assert.deepEqual(entity.tags, ['db', 'sql']);
    });

    it('update makes a new commit whose parent is the previous head', async () => {
      const [saved, first] = await memory.memories.save('a', 'u', { content: 'v1', tags: ['t'] });
      const [updated, second] = await memory.memories.update(saved.id, { content: 'v2' });
      assert.equal(updated.content, 'v2');
      assert.deepEqual(updated.tags, ['t'], 'fields not given are kept');
      assert.equal(updated.createdAt, saved.createdAt);
      assert.equal(second.parent, first.hash);
      assert.equal(second.op, 'update');
      const history = await memory.memories.history(saved.id);
      assert.deepEqual(
        history.map((h) => h.entity?.content),
        ['v2', 'v1'],
      );
    });

    it('an update that changes nothing makes no commit', async () => {
      const [saved, first] = await memory.memories.save('a', 'u', { content: 'same' });
      const [, commit] = await memory.memories.update(saved.id, { content: 'same' });
      assert.equal(commit.hash, first.hash);
      assert.equal((await memory.memories.history(saved.id)).length, 1);
    });

    it('delete leaves a tombstone: get is null, history still there', async () => {
      const [saved] = await memory.memories.save('a', 'u', { content: 'gone soon' });
      const tombstone = await memory.memories.delete(saved.id);
      assert.equal(tombstone.op, 'delete');
      assert.equal(tombstone.object, null);
      assert.equal(await memory.memories.get(saved.id), null);
      const history = await memory.memories.history(saved.id);
      assert.equal(history.length, 2);
      assert.equal(history[0]?.entity, null);
      assert.equal(history[1]?.entity?.content, 'gone soon');
      await rejectsWith(memory.memories.delete(saved.id), 'NOT_FOUND');
      await rejectsWith(memory.memories.update(saved.id, { content: 'x' }), 'NOT_FOUND');
    });

    it('identical content is stored once', async () => {
      await memory.memories.save('a', 'u', { content: 'twin' });
      await memory.memories.save('a', 'u', { content: 'twin' });
      const stats = await memory.stats();
      assert.equal(stats.memories, 2);
      assert.equal(stats.objects, 1);
      assert.equal(stats.commits, 2);
    });

    it('lists by agent and user, newest first, with pagination', async () => {
      for (let i = 0; i < 5; i++) await memory.memories.save('a', 'u1', { content: `m${i}` });
      await memory.memories.save('a', 'u2', { content: 'other user' });
      await memory.memories.save('b', 'u1', { content: 'other agent' });
      assert.equal(await memory.memories.count('a', 'u1'), 5);
      assert.equal(await memory.memories.count('a'), 6, 'no user: every user of the agent');
      const all = await memory.memories.list('a', 'u1');
      assert.equal(all.length, 5);
      const page1 = await memory.memories.listPaginated('a', 'u1', { limit: 2, offset: 0 });
      const page3 = await memory.memories.listPaginated('a', 'u1', { limit: 2, offset: 4 });
      assert.equal(page1.total, 5);
      assert.equal(page1.items.length, 2);
      assert.equal(page1.hasMore, true);
      assert.equal(page3.items.length, 1);
      assert.equal(page3.hasMore, false);
      const pages = [
        ...page1.items,
        ...(await memory.memories.listPaginated('a', 'u1', { limit: 2, offset: 2 })).items,
        ...page3.items,
      ];
      assert.deepEqual(
        pages.map((e) => e.id),
        all.map((e) => e.id),
      );
    });

    it('get returns null for an id of another type', async () => {
      const [skill] = await memory.skills.save('a', undefined, { content: 'deploy' });
      assert.equal(await memory.memories.get(skill.id), null);
      assert.equal((await memory.get(skill.id))?.type, 'skill');
    });
  });

  describe('saveMany and deleteMany', () => {
    it('returns one result per item, in order, in one transaction', async () => {
      const results = await memory.memories.saveMany([
        { agentId: 'a', userId: 'u', input: { content: 'one' } },
        { agentId: 'a', userId: 'u', input: { content: 'two', category: 'task' } },
        { agentId: 'b', input: { content: 'three' } },
      ]);
      assert.deepEqual(
        results.map((r) => r?.[0].content),
        ['one', 'two', 'three'],
      );
      assert.equal(results[1]?.[0].category, 'task');
      assert.equal(results[2]?.[0].userId, undefined);
    });

    it('one invalid item rejects the whole batch and writes nothing', async () => {
      await rejectsWith(
        memory.memories.saveMany([
          { agentId: 'a', input: { content: 'fine' } },
          { agentId: 'a', input: { content: 'x', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) } },
        ]),
        'TOO_MANY_TAGS',
      );
      assert.equal(await memory.memories.count('a'), 0);
    });

    it('deleteMany deletes all or, with an unknown id, nothing', async () => {
      const results = await memory.memories.saveMany(
        [1, 2, 3].map((n) => ({ agentId: 'a', input: { content: `m${n}` } })),
      );
      const ids = results.map((r) => r![0].id);
      await rejectsWith(memory.memories.deleteMany([ids[0]!, 'memory-missing']), 'NOT_FOUND');
      assert.equal(await memory.memories.count('a'), 3);
      const commits = await memory.memories.deleteMany(ids.slice(0, 2));
      assert.equal(commits.length, 2);
      assert.equal(await memory.memories.count('a'), 1);
    });

    it('deleteMany deletes a repeated id once, giving each of its places that commit', async () => {
      const [kept] = await memory.memories.save('a', undefined, { content: 'kept' });
      const [gone] = await memory.memories.save('a', undefined, { content: 'gone' });
      const deleted: string[] = [];
      memory.on('entity:delete', ({ entityId }) => deleted.push(entityId));
      const commits = await memory.memories.deleteMany([gone.id, gone.id]);
      assert.equal(commits.length, 2, 'one result per id given');
      assert.equal(commits[0]?.entityId, gone.id);
      assert.deepEqual(commits[1], commits[0]);
      assert.deepEqual(deleted, [gone.id], 'one delete event');
      assert.equal((await memory.memories.history(gone.id)).length, 2, 'one tombstone');
      assert.deepEqual(
        (await memory.memories.list('a')).map((m) => m.id),
        [kept.id],
      );
    });
  });

  describe('skills and knowledge', () => {
    it('skills have category and status defaults and a shared scope', async () => {
      const [skill] = await memory.skills.save('agent', undefined, { content: 'Run npm ci' });
      assert.equal(skill.category, 'procedure');
      assert.equal(skill.status, 'active');
      const [shared] = await memory.skills.saveShared({ content: 'Common deploy', category: 'workflow' });
      assert.equal(shared.agentId, SHARED_AGENT_ID);
      assert.deepEqual(
        (await memory.skills.listShared()).map((s) => s.id),
        [shared.id],
      );
      assert.deepEqual(
        (await memory.skills.list('agent')).map((s) => s.id),
        [skill.id],
      );
    });

    it('knowledge keeps source, chunk index, version and questions', async () => {
      const [chunk] = await memory.knowledge.save('agent', undefined, {
        content: 'Rate limit is 100/min',
        source: 'docs/api.md',
        chunkIndex: 2,
        version: '2.0',
        questions: ['What is the rate limit?'],
      });
      assert.deepEqual(await memory.knowledge.get(chunk.id), chunk);
      const [shared] = await memory.knowledge.saveShared({ content: 'Shared doc' });
      assert.equal((await memory.knowledge.listShared())[0]?.id, shared.id);
    });
  });

  describe('sessions', () => {
    it('stores structured messages and groups by conversation', async () => {
      const messages = [
        { role: 'user' as const, content: 'How do I deploy?', timestamp: '2026-01-01T00:00:00.000Z' },
        { role: 'assistant' as const, content: 'docker compose up', timestamp: '2026-01-01T00:00:01.000Z' },
      ];
      const [first] = await memory.sessions.save('a', 'u', { messages, conversationId: 'c1' });
      const [second] = await memory.sessions.save('a', 'u', { content: 'follow-up', conversationId: 'c1' });
      await memory.sessions.save('a', 'u', { content: 'elsewhere', conversationId: 'c2' });
      await memory.sessions.save('a', 'u', { content: 'no conversation' });
      assert.equal(first.mined, false);
      assert.deepEqual(first.messages, messages);
      assert.deepEqual(
        (await memory.sessions.listByConversation('a', 'u', 'c1')).map((s) => s.id),
        [first.id, second.id],
      );
      const conversations = await memory.sessions.listConversations('a', 'u', { limit: 1 });
      assert.equal(conversations.total, 2);
      assert.equal(conversations.items.length, 1);
      assert.equal(conversations.hasMore, true);
      const both = await memory.sessions.listConversations('a', 'u');
      assert.deepEqual(both.items.map((c) => [c.conversationId, c.count]).sort(), [
        ['c1', 2],
        ['c2', 1],
      ]);
      const [mined] = await memory.sessions.markMined(first.id);
      assert.equal(mined.mined, true);
    });

    it('refuses a session with neither content nor messages', async () => {
      await rejectsWith(memory.sessions.save('a', 'u', {}), 'INVALID_INPUT');
    });
  });

  describe('profiles', () => {
    it('keeps one profile per agent and user: saving again versions it', async () => {
      const [first] = await memory.profiles.save('a', 'u', { content: 'Senior dev', metadata: { tz: 'UTC' } });
      const [second, commit] = await memory.profiles.save('a', 'u', { content: 'Staff engineer' });
      assert.equal(second.id, first.id);
      assert.equal(commit.op, 'update');
      assert.equal((await memory.profiles.getByUser('a', 'u'))?.content, 'Staff engineer');
      assert.equal(await memory.profiles.count('a'), 1);
      assert.equal((await memory.profiles.history(first.id)).length, 2);
    });

    it('keeps one profile without a user per agent, found by getByUser without a user', async () => {
      const [first] = await memory.profiles.save('a', undefined, { content: 'p1' });
      const [second, commit] = await memory.profiles.save('a', undefined, { content: 'p2' });
      assert.equal(second.id, first.id);
      assert.equal(commit.op, 'update');
      assert.equal(second.userId, undefined);
      const [withUser] = await memory.profiles.save('a', 'u', { content: 'of u' });
      const [otherAgent] = await memory.profiles.save('b', undefined, { content: 'of b' });
      assert.notEqual(withUser.id, first.id, 'a user is not the same as no user');
      assert.notEqual(otherAgent.id, first.id);
      assert.equal(await memory.profiles.count('a'), 2);
      assert.equal((await memory.profiles.getByUser('a', undefined))?.content, 'p2');
      assert.equal((await memory.profiles.getByUser('a', 'u'))?.content, 'of u');
      assert.equal(await memory.profiles.getByUser('c', undefined), null);
      const batch = await memory.profiles.saveMany([
        { agentId: 'c', input: { content: 'c1' } },
        { agentId: 'c', input: { content: 'c2' } },
      ]);
      assert.equal(batch[1]?.[0].id, batch[0]?.[0].id, 'also within one batch');
      assert.equal(await memory.profiles.count('c'), 1);
    });

    it('finds a user across agents and in the shared scope', async () => {
      await memory.profiles.save('a', 'u', { content: 'in a' });
      await memory.profiles.save('b', 'u', { content: 'in b' });
      await memory.profiles.save('b', 'other', { content: 'not u' });
      await memory.profiles.saveShared('u', { content: 'global' });
      const across = await memory.profiles.getByUserAcrossAgents('u');
      assert.deepEqual(across.map((p) => p.content).sort(), ['global', 'in a', 'in b']);
      assert.equal((await memory.profiles.getByUserAcrossAgents('u', 1)).length, 1);
      assert.equal((await memory.profiles.getSharedByUser('u'))?.content, 'global');
      await rejectsWith(memory.profiles.getByUserAcrossAgents('u', 201), 'LIMIT_TOO_LARGE');
    });
  });

  describe('cleanup', () => {
    it('a dry run reports the audit entries the real run drops, its own delete entries counted', async () => {
      const clock = new FakeClock();
      const { memory: store, cleanup: close } = await openTemp({ now: clock.now });
      try {
        for (let i = 0; i < 17; i++) await store.memories.save('a', undefined, { content: `m${i}` });
        const preview = await store.cleanup({ maxAuditLines: 2, dryRun: true });
        assert.equal(preview.auditRemoved, 15);
        assert.equal((await store.stats()).auditEntries, 17, 'a dry run drops nothing');
        const report = await store.cleanup({ maxAuditLines: 2 });
        assert.equal(report.auditRemoved, 15);
        assert.equal((await store.stats()).auditEntries, 2);
        // With everything stale, the real run first logs one delete per entity type, then trims.
        await store.skills.save('a', undefined, { content: 'deploy' });
        clock.advance(1000);
        const both = { maxAgeDays: 0, maxAuditLines: 1 };
        const dry = await store.cleanup({ ...both, dryRun: true });
        const real = await store.cleanup(both);
        assert.equal(real.removed, 18);
        assert.equal(real.auditRemoved, 4);
        assert.equal(dry.auditRemoved, real.auditRemoved);
        // Keeping none drops the run's own entries too.
        await store.memories.save('a', undefined, { content: 'last' });
        clock.advance(1000);
        const none = { maxAgeDays: 0, maxAuditLines: 0 };
        assert.equal((await store.cleanup({ ...none, dryRun: true })).auditRemoved, 3);
        assert.equal((await store.cleanup(none)).auditRemoved, 3);
      } finally {
        await close();
      }
    });
  });

  describe('access counts', () => {
    it('count reads without making commits', async () => {
      const [saved] = await memory.memories.save('a', 'u', { content: 'popular' });
      await memory.memories.incrementAccess([saved.id, saved.id, 'memory-unknown']);
      assert.equal(await memory.memories.accessCount(saved.id), 2);
      assert.equal((await memory.memories.history(saved.id)).length, 1);
    });
  });

  describe('events', () => {
    it('fire after each write, and a throwing handler never breaks a write', async () => {
      const seen: string[] = [];
      const errors: unknown[] = [];
      await memory.close();
      ({ memory, cleanup } = await openTemp({ onHandlerError: (error) => errors.push(error) }));
      memory.on('entity:save', ({ entity }) => void seen.push(`save ${entity.id}`));
      memory.on('entity:update', ({ entity, previous }) => void seen.push(`update ${entity.id} ${previous.content}`));
      memory.on('entity:delete', ({ entityId, entityType }) => void seen.push(`delete ${entityType} ${entityId}`));
      memory.on('entity:save', () => {
        throw new Error('handler bug');
      });
      memory.on('entity:save', async () => Promise.reject(new Error('async handler bug')));
      const [saved] = await memory.memories.save('a', 'u', { content: 'v1' });
      await memory.memories.update(saved.id, { content: 'v2' });
      await memory.memories.delete(saved.id);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(seen, [`save ${saved.id}`, `update ${saved.id} v1`, `delete memory ${saved.id}`]);
      assert.equal(errors.length, 2);
      assert.equal((await memory.memories.history(saved.id)).length, 3);
    });

    it('off removes a handler', async () => {
      let calls = 0;
      const handler = () => void calls++;
      memory.on('entity:save', handler);
      await memory.memories.save('a', 'u', { content: 'one' });
      memory.off('entity:save', handler);
      await memory.memories.save('a', 'u', { content: 'two' });
      assert.equal(calls, 1);
    });
  });

  describe('middleware', () => {
    it('can transform saves and updates, and cancel saves, updates and deletes', async () => {
      memory.use({
        beforeSave: (entity: Entity) =>
          entity.content.includes('secret')
            ? null
            : 'tags' in entity
              ? { ...entity, tags: entity.tags.map((t) => t.toLowerCase()) }
              : entity,
        beforeUpdate: (entity, updates) => (entity.content === 'locked' ? null : { ...updates, tags: ['edited'] }),
        beforeDelete: async (_id, type) => type !== 'profile',
      });
      const [saved] = await memory.memories.save('a', 'u', { content: 'hello', tags: ['UPPER'] });
      assert.deepEqual(saved.tags, ['upper']);
      await rejectsWith(memory.memories.save('a', 'u', { content: 'my secret' }), 'CANCELLED');
      const batch = await memory.memories.saveMany([
        { agentId: 'a', input: { content: 'ok' } },
        { agentId: 'a', input: { content: 'secret stuff' } },
      ]);
      assert.equal(batch[1], null, 'a cancelled item yields null in its place');
      assert.equal(batch[0]?.[0].content, 'ok');
      const [updated] = await memory.memories.update(saved.id, { content: 'hello again' });
      assert.deepEqual(updated.tags, ['edited']);
      const [locked] = await memory.memories.save('a', 'u', { content: 'locked' });
      await rejectsWith(memory.memories.update(locked.id, { content: 'changed' }), 'CANCELLED');
      const [profile] = await memory.profiles.save('a', 'u', { content: 'me' });
      await rejectsWith(memory.profiles.delete(profile.id), 'CANCELLED');
      assert.deepEqual(await memory.profiles.deleteMany([profile.id]), [null]);
      assert.ok(await memory.profiles.get(profile.id));
    });

    it('a middleware that produces invalid content is refused', async () => {
      memory.use({ beforeSave: (entity) => ({ ...entity, content: '' }) });
      await rejectsWith(memory.memories.save('a', 'u', { content: 'x' }), 'INVALID_INPUT');
      assert.equal(await memory.memories.count('a'), 0);
    });
  });
});
