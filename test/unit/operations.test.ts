import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Memory } from '../../src/core/memory';
import {
  findOperation,
  jsonSchemaOf,
  type OperationContext,
  OPERATIONS,
  operationsFor,
  runOperation,
} from '../../src/core/operations';
import type { HistoryEntry, MemoryEntity, ProfileEntity, SkillEntity } from '../../src/core/types';
import { openTemp, rejectsWith, tempDir } from './helpers';

const SCOPE = { agentId: 'a', userId: 'u' };

describe('operations', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let context: OperationContext;
  const run = (name: string, args: unknown = {}) => runOperation(context, name, args);

  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    context = { store: memory, scope: SCOPE };
  });
  afterEach(async () => cleanup());

  describe('the catalogue', () => {
    it('has unique snake_case names, a description, an effect and a described field for every argument', () => {
      const names = OPERATIONS.map((op) => op.name);
      assert.equal(new Set(names).size, names.length);
      for (const op of OPERATIONS) {
        assert.match(op.name, /^[a-z]+(_[a-z]+)*$/);
        assert.ok(op.description.length > 80, `${op.name} explains itself to a model`);
        assert.ok(['read', 'write', 'destructive'].includes(op.effect));
        assert.ok(op.surfaces.length > 0);
        const schema = jsonSchemaOf(op);
        assert.equal(schema.type, 'object');
        assert.equal(schema.additionalProperties, false, `${op.name} refuses unknown arguments`);
        assert.equal(schema.$schema, undefined);
        for (const [field, property] of Object.entries(schema.properties as Record<string, { description?: string }>))
          assert.ok(property.description, `${op.name}.${field} has a description`);
      }
    });

    it('offers the chat tools the workspace operations and MCP and the CLI everything', () => {
      assert.deepEqual(
        operationsFor('tool').map((op) => op.name),
        [
          'memory_save',
          'memory_search',
          'memory_recall',
          'memory_update',
          'memory_forget',
          'memory_history',
          'skill_save',
          'skill_search',
          'docs_search',
          'profile_get',
          'profile_update',
        ],
      );
      const mcp = operationsFor('mcp').map((op) => op.name);
      for (const name of ['rag_query', 'stats', 'verify', 'export']) assert.ok(mcp.includes(name), name);
      assert.deepEqual(operationsFor('cli'), operationsFor('mcp'));
      assert.equal(findOperation('memory_forget')?.effect, 'destructive');
      assert.equal(findOperation('memory_search')?.effect, 'read');
      assert.equal(findOperation('nope'), undefined);
    });

    it('describes required and defaulted arguments in the JSON schema', () => {
      const save = jsonSchemaOf(findOperation('memory_save')!);
      assert.deepEqual(save.required, ['content']);
      const properties = save.properties as Record<string, { enum?: string[] }>;
      assert.deepEqual(properties.category?.enum, ['fact', 'decision', 'issue', 'task', 'correction']);
      const search = jsonSchemaOf(findOperation('memory_search')!);
      assert.deepEqual(search.required, ['query'], 'a defaulted limit is optional for the caller');
      assert.equal((search.properties as Record<string, { default?: unknown }>).limit?.default, 10);
    });
  });

  describe('memories', () => {
    it('saves in the host scope, finds, recalls, updates, shows history and forgets', async () => {
      const saved = await run('memory_save', { content: 'We deploy the api with docker compose', tags: ['deploy'] });
      const entity = saved.data.entity as MemoryEntity;
      assert.equal(entity.agentId, 'a');
      assert.equal(entity.userId, 'u');
      assert.equal(entity.category, 'fact');
      assert.match(saved.text, new RegExp(entity.id));

      const found = await run('memory_search', { query: 'how do we deploy?' });
      assert.equal((found.data.results as unknown[]).length, 1);
      assert.match(found.text, new RegExp(entity.id));
      assert.match(found.text, /docker compose/);

      const recalled = await run('memory_recall', { query: 'deploy the api', budget: 500 });
      assert.match(recalled.text, /## Memories/);
      assert.match(recalled.text, new RegExp(entity.id));

      const updated = await run('memory_update', {
        id: entity.id,
        content: 'We deploy the api with helm',
        category: 'decision',
      });
      assert.equal((updated.data.entity as MemoryEntity).category, 'decision');
      assert.equal((await memory.memories.get(entity.id))?.content, 'We deploy the api with helm');

      const forgotten = await run('memory_forget', { id: entity.id });
      assert.match(forgotten.text, new RegExp(entity.id));
      assert.equal(await memory.memories.get(entity.id), null);

      const history = await run('memory_history', { id: entity.id });
      assert.deepEqual(
        (history.data.history as HistoryEntry[]).map((entry) => entry.commit.op),
        ['delete', 'update', 'create'],
      );
      assert.match(history.text, /docker compose/);
    });

    it('updates a near-duplicate instead of saving a twin', async () => {
      await run('memory_save', { content: 'The staging database is postgres 16 on port 5433', category: 'decision' });
      const again = await run('memory_save', {
        content: 'The staging database is postgres 16 on port 5433.',
        tags: ['db'],
      });
      assert.equal(again.data.deduplicated, true);
      assert.match(again.text, /near-duplicate/);
      assert.equal(await memory.memories.count('a'), 1);
      assert.equal((again.data.entity as MemoryEntity).category, 'decision', 'the category is kept when none is given');
    });

    it('says when nothing matches', async () => {
      assert.match((await run('memory_search', { query: 'kubernetes' })).text, /No memories match/);
      assert.match((await run('memory_recall', { query: 'kubernetes' })).text, /Nothing in memory/);
    });

    it("refuses another agent's or another user's memory as not found", async () => {
      const [other] = await memory.memories.save('b', 'u', { content: 'Agent b secret plan' });
      const [otherUser] = await memory.memories.save('a', 'v', { content: 'User v note' });
      for (const id of [other.id, otherUser.id]) {
        await rejectsWith(run('memory_update', { id, content: 'hijacked' }), 'NOT_FOUND');
        await rejectsWith(run('memory_forget', { id }), 'NOT_FOUND');
        await rejectsWith(run('memory_history', { id }), 'NOT_FOUND');
      }
      assert.equal((await memory.memories.get(other.id))?.content, 'Agent b secret plan');
      assert.equal((await memory.memories.get(otherUser.id))?.content, 'User v note');
      // Deleted is no loophole: history still checks whose it was.
      await memory.memories.delete(other.id);
      await rejectsWith(run('memory_history', { id: other.id }), 'NOT_FOUND');
      // Not a memory at all, or unknown.
      const [skill] = await memory.skills.save('a', undefined, { content: 'Release steps' });
      await rejectsWith(run('memory_forget', { id: skill.id }), 'NOT_FOUND');
      await rejectsWith(run('memory_update', { id: 'memory-missing', content: 'x' }), 'NOT_FOUND');
    });

    it('lets the user change workspace-wide memories of the agent, which search shows them too', async () => {
      const [shared] = await memory.memories.save('a', undefined, { content: 'CI runs on Node 22' });
      await run('memory_update', { id: shared.id, tags: ['ci'] });
      assert.deepEqual((await memory.memories.get(shared.id))?.tags, ['ci']);
    });

    it('refuses bad arguments with INVALID_INPUT naming the field, and writes nothing', async () => {
      const cases: [string, unknown, RegExp][] = [
        ['memory_save', { content: 42 }, /`content`/],
        ['memory_save', { content: '   ' }, /`content`/],
        ['memory_save', {}, /`content`/],
        ['memory_save', { content: 'x', category: 'rumour' }, /`category`/],
        ['memory_save', { content: 'x', tags: ['ok', 7] }, /each item of `tags` must be text/],
        ['memory_save', { content: 'x', agentId: 'b' }, /`agentId`.*host/],
        ['memory_save', [], /object/],
        ['memory_search', { query: 'x', limit: 0 }, /`limit`/],
        ['memory_search', { query: 'x', limit: 2.5 }, /`limit`/],
        ['memory_recall', { query: 'x', budget: 'big' }, /`budget`/],
        ['memory_update', { id: 'memory-x' }, /at least one/],
        ['memory_forget', {}, /`id`/],
        ['profile_update', { content: 'x', metadata: [1] }, /`metadata`/],
      ];
      for (const [name, args, pattern] of cases) {
        const error = await rejectsWith(run(name, args), 'INVALID_INPUT');
        assert.match(error.message, pattern, `${name} ${JSON.stringify(args)}: ${error.message}`);
        assert.match(error.message, new RegExp(`^${name}:|${name}`));
      }
      assert.equal((await memory.stats()).commits, 0);
    });

    it('refuses an unknown operation, or one the surface does not offer', async () => {
      await rejectsWith(run('memory_drop'), 'NOT_FOUND');
      await rejectsWith(runOperation(context, 'export', {}, 'tool'), 'NOT_FOUND');
    });
  });

  describe('skills', () => {
    it('saves a procedure for the agent and finds it with the shared ones', async () => {
      const saved = await run('skill_save', {
        content: 'Release: bump the version, tag, push, wait for CI',
        category: 'workflow',
      });
      const skill = saved.data.entity as SkillEntity;
      assert.equal(skill.agentId, 'a');
      assert.equal(skill.userId, undefined);
      assert.equal(skill.status, 'active');
      await memory.skills.saveShared({ content: 'Release notes come from the changelog' });
      const found = await run('skill_search', { query: 'release' });
      assert.equal((found.data.results as unknown[]).length, 2);
      assert.match(found.text, new RegExp(skill.id));
      await rejectsWith(run('skill_save', { content: 'x', status: 'retired' }), 'INVALID_INPUT');
    });
  });

  describe('documents', () => {
    let docs: string;
    beforeEach(async () => {
      docs = tempDir('wm-ops-docs-');
      fs.writeFileSync(
        path.join(docs, 'deploy.md'),
        '# Operations\n\nIntro.\n\n## Deploy\n\nRun make deploy to ship to kubernetes.\n',
      );
      await memory.rag.sync(docs, 'a');
    });
    afterEach(() => fs.rmSync(docs, { recursive: true, force: true }));

    it('docs_search cites passages as path:line with their heading', async () => {
      const result = await run('docs_search', { query: 'how do I deploy to k8s?' });
      const [first] = result.data.results as { citation: string; headingPath: string[]; id: string }[];
      assert.equal(first?.citation, 'deploy.md:5');
      assert.deepEqual(first?.headingPath, ['Operations', 'Deploy']);
      assert.match(result.text, /deploy\.md:5 — Operations › Deploy/);
      assert.match(result.text, new RegExp(first?.id ?? '-'));
    });

    it('rag_query returns the numbered, cited context', async () => {
      const result = await run('rag_query', { query: 'deploy', limit: 3 });
      assert.match(result.text, /^\[1\] deploy\.md:5/);
      assert.equal((result.data.sources as { number: number }[])[0]?.number, 1);
      assert.match((await run('docs_search', { query: 'zebra' })).text, /No workspace documents/);
    });

    it("does not search another agent's documents", async () => {
      context = { store: memory, scope: { agentId: 'b' } };
      assert.deepEqual((await run('docs_search', { query: 'deploy' })).data.results, []);
    });
  });

  describe('profiles', () => {
    it('reads nothing, creates, reads, and keeps metadata when only the text changes', async () => {
      assert.equal((await run('profile_get')).data.profile, null);
      const created = await run('profile_update', { content: 'Staff engineer', metadata: { tz: 'Europe/Madrid' } });
      assert.match(created.text, /Created/);
      const updated = await run('profile_update', { content: 'Staff engineer; prefers small pull requests' });
      assert.match(updated.text, /Updated/);
      const profile = (await run('profile_get')).data.profile as ProfileEntity;
      assert.equal(profile.content, 'Staff engineer; prefers small pull requests');
      assert.deepEqual(profile.metadata, { tz: 'Europe/Madrid' });
      assert.equal(profile.agentId, 'a');
      assert.equal(profile.userId, 'u');
      assert.equal((await memory.profiles.history(profile.id)).length, 2);
    });

    it("falls back to the user's shared profile", async () => {
      await memory.profiles.saveShared('u', { content: 'Prefers British spelling' });
      assert.match((await run('profile_get')).text, /British spelling/);
    });

    it('needs a user from the host', async () => {
      context = { store: memory, scope: { agentId: 'a' } };
      const error = await rejectsWith(run('profile_get'), 'INVALID_INPUT');
      assert.match(error.message, /--user/);
    });
  });

  describe('the store', () => {
    it('stats, verify and export cover the whole store', async () => {
      await run('memory_save', { content: 'One fact' });
      await memory.memories.save('b', undefined, { content: 'Another agent fact' });
      const stats = await run('stats');
      assert.equal(stats.data.memories, 2);
      assert.match(stats.text, /memories: 2/);
      const verify = await run('verify');
      assert.equal(verify.data.valid, true);
      assert.match(verify.text, /^Valid/);
      const exported = await run('export');
      assert.equal((exported.data.entities as { memories: unknown[] }).memories.length, 2);
      assert.deepEqual(JSON.parse(exported.text), exported.data);
    });
  });
});
