import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isFoundTurn } from '../../src/core/collections/search-all';
import { isMemoryError, MemoryError } from '../../src/core/errors';
import { Memory } from '../../src/core/memory';
import { type StoreChange, StoreClient } from '../../src/extension/store/client';
import { FakeAi, json } from './fake-ai';
import { rejectsWith, tempDir } from './helpers';

// The worker runs the bundled script, as it does inside VS Code (`npm test` builds it first).
const WORKER = path.resolve(__dirname, '../../dist/worker.js');

function nextChange(client: StoreClient, origin: StoreChange['origin']): Promise<StoreChange> {
  return new Promise((resolve) => {
    const subscription = client.onDidChange((change) => {
      if (change.origin !== origin) return;
      subscription.dispose();
      resolve(change);
    });
  });
}

describe('store worker', () => {
  let dir: string;
  let client: StoreClient;

  beforeEach(async () => {
    dir = tempDir();
    client = await StoreClient.start(WORKER, { dir, options: { author: 'test' }, pollMs: 20 });
  });

  afterEach(async () => {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports its start-up times and whether the compile cache is on', async () => {
    assert.equal(client.startup.compileCache, 'off', 'no cache folder given');
    const cacheDir = tempDir('wm-cache-');
    const cached = await StoreClient.start(WORKER, { dir, options: {}, pollMs: 100, compileCacheDir: cacheDir });
    try {
      assert.equal(cached.startup.compileCache, 'on');
      for (const step of ['thread', 'load', 'open', 'delivery'] as const) assert.ok(cached.startup[step] >= 0, step);
    } finally {
      await cached.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  describe('the host’s model, asked from the worker', () => {
    beforeEach(async () => {
      await client.memory.memories.save('agent', undefined, { content: 'We deploy with docker compose on staging.' });
      await client.memory.memories.save('agent', undefined, { content: 'The VPN config lives in ops/vpn.conf.' });
    });

    it('recall reasons with the model of the view it is called through, asked by message', async () => {
      const ai = new FakeAi([json({ queries: ['vpn config'] })]);
      const result = await client
        .view({ model: ai })
        .recall('agent', undefined, 'reach the staging network', { reasoning: 'rewrite' });
      assert.equal(ai.requests.length, 1);
      assert.match(ai.lastMessage(0), /reach the staging network/);
      assert.deepEqual(result.items.map((item) => item.entity.content).sort(), [
        'The VPN config lives in ops/vpn.conf.',
        'We deploy with docker compose on staging.',
      ]);
      assert.equal(result.reasoning?.degraded, undefined);
    });

    it('the tools’ operations too, and a call that asks nothing costs no model call', async () => {
      const ai = new FakeAi([json({ order: [2, 1] })]);
      const view = client.view({ model: ai });
      const plain = await view.worker.operation('memory_search', { agentId: 'agent' }, { query: 'staging vpn' });
      assert.equal(ai.requests.length, 0);
      const reranked = await view.worker.operation(
        'memory_search',
        { agentId: 'agent' },
        { query: 'staging vpn', rerank: true },
      );
      assert.equal(ai.requests.length, 1);
      const order = (result: { data: Record<string, unknown> }) =>
        (result.data.results as { entity: { id: string } }[]).map((r) => r.entity.id);
      assert.deepEqual(order(reranked), [...order(plain)].reverse());
    });

    it('a model that fails on the host: plain recall answers, with the host’s reason', async () => {
      const failing = {
        chat: () => Promise.reject(new MemoryError('AI_UNAVAILABLE', 'No language model is available: sign in.')),
      };
      const result = await client.view({ model: failing }).recall('agent', undefined, 'staging vpn', { rerank: true });
      assert.equal(result.items.length, 2);
      assert.equal(result.reasoning?.degraded?.cause, 'unavailable');
      assert.match(result.reasoning.degraded.reason, /No language model is available: sign in\./);
    });

    it('the model is told the reply’s token bound, and a call without a model view cannot ask one', async () => {
      const ai = new FakeAi([json({ queries: ['vpn'] })]);
      const seen: (number | undefined)[] = [];
      const recording = {
        chat: (messages: Parameters<FakeAi['chat']>[0], options?: { maxTokens?: number; signal?: AbortSignal }) => {
          seen.push(options?.maxTokens);
          return ai.chat(messages, options);
        },
      };
      await client.view({ model: recording }).recall('agent', undefined, 'staging', { reasoning: 'rewrite' });
      assert.deepEqual(seen, [512]);
      const without = await client.memory.recall('agent', undefined, 'staging', { reasoning: 'rewrite' });
      assert.equal(without.reasoning?.degraded?.cause, 'unavailable');
    });
  });

  it('runs the facade in the worker with the core types', async () => {
    const [saved] = await client.memory.memories.save('agent', 'user', {
      content: 'The build uses esbuild',
      tags: ['build'],
    });
    const got = await client.memory.memories.get(saved.id);
    assert.equal(got?.content, 'The build uses esbuild');
    const results = await client.memory.memories.search('agent', 'user', 'esbuild', 5);
    assert.deepEqual(
      results.map((r) => r.entity.id),
      [saved.id],
    );
    const stats = await client.memory.stats();
    assert.equal(stats.memories, 1);
  });

  it('counts each type in the agent’s scope and the shared one in one call', async () => {
    await client.memory.memories.save('agent', 'user', { content: 'one' });
    await client.memory.memories.save('other', undefined, { content: 'not this agent' });
    await client.memory.skills.save('agent', undefined, { content: 'a skill' });
    await client.memory.skills.saveShared({ content: 'a shared skill' });
    const counts = await client.memory.worker.scopeCounts('agent');
    assert.deepEqual(counts.memory, { own: 1, shared: 0 });
    assert.deepEqual(counts.skill, { own: 1, shared: 1 });
    assert.deepEqual(counts.knowledge, { own: 0, shared: 0 });
  });

  it('gives back MemoryErrors with their codes and refuses unknown methods', async () => {
    await rejectsWith(client.memory.memories.get('bad/id'), 'INVALID_ID');
    await rejectsWith(client.memory.memories.update('memory-missing', { content: 'x' }), 'NOT_FOUND');
    await assert.rejects(client.call('close', []), /no method "close"/);
    await assert.rejects(client.call('memories.constructor', []), /no method/);
    await assert.rejects(client.call('db.close', []), /no method/);
  });

  it('serves any version of an entity and searches every collection at once', async () => {
    const [saved, first] = await client.memory.memories.save('agent', undefined, {
      content: 'version one about caching',
    });
    await client.memory.memories.update(saved.id, { content: 'version two about caching' });
    await client.memory.skills.save('agent', undefined, { content: 'How to clear the caching layer' });
    await client.memory.sessions.save('agent', undefined, { messages: [{ role: 'user', content: 'Is caching on?' }] });
    const entry = await client.memory.worker.entityAt(saved.id, first.hash);
    assert.equal(entry?.entity?.content, 'version one about caching');
    assert.equal(await client.memory.worker.entityAt(saved.id, 'f'.repeat(64)), null);
    const all = await client.memory.worker.searchAll('agent', undefined, 'caching', 10);
    assert.deepEqual(all.map((r) => (isFoundTurn(r) ? r.turn.turn.text : r.entity.type)).sort(), [
      'Is caching on?',
      'memory',
      'skill',
    ]);
    await client.memory.memories.delete(saved.id);
    const outline = await client.memory.worker.historyOutline(saved.id);
    assert.deepEqual(
      outline.commits.map((c) => [c.commit.op, c.hasVersion]),
      [
        ['delete', false],
        ['update', true],
        ['create', true],
      ],
    );
    assert.equal(outline.latest?.content, 'version two about caching');
  });

  it('reports local writes with their ids and writes by other processes as external', async () => {
    const local = nextChange(client, 'local');
    const [saved] = await client.memory.memories.save('agent', undefined, { content: 'local write' });
    assert.deepEqual((await local).entityIds, [saved.id]);

    const external = nextChange(client, 'external');
    const other = await Memory.open({ dir, author: 'cli' });
    await other.memories.save('agent', undefined, { content: 'written by the CLI' });
    await other.close();
    assert.equal((await external).origin, 'external');
  });

  it('reports a bulk write in a few messages, not one per entity', async () => {
    const seen: StoreChange[] = [];
    const subscription = client.onDidChange((change) => seen.push(change));
    const items = Array.from({ length: 2000 }, (_, i) => ({
      agentId: 'agent',
      input: { content: `bulk memory ${i}` },
    }));
    await client.memory.memories.saveMany(items);
    await new Promise((resolve) => setTimeout(resolve, 200));
    subscription.dispose();
    assert.ok(seen.length >= 1 && seen.length <= 3, `${seen.length} change messages`);
    // Too many ids to list: the message says "everything changed".
    assert.deepEqual(seen.at(-1)!.entityIds, []);
  });

  it('relays progress of long work and cancels it', async () => {
    const docs = tempDir('wm-docs-');
    for (let i = 0; i < 60; i++)
      fs.writeFileSync(path.join(docs, `doc${i}.md`), `# Doc ${i}\n\nParagraph ${i} text.\n`);
    const seen: unknown[] = [];
    const report = await client.task<{ added: string[] }>('rag.sync', [docs, 'agent', {}], {
      onProgress: (p) => seen.push(p),
    });
    assert.equal(report.added.length, 60);
    assert.ok(seen.length > 0, 'progress was reported');

    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(docs, `doc${i}.md`), `# Changed ${i}\n\nNew text ${i}.\n`);
    const controller = new AbortController();
    const cancelled = client.task<{ cancelled: boolean }>('rag.sync', [docs, 'agent', {}], {
      onProgress: () => controller.abort(),
      signal: controller.signal,
    });
    const outcome = await cancelled.then(
      (r) => r.cancelled,
      (error: { code?: string }) => error.code === 'CANCELLED',
    );
    assert.ok(outcome, 'the sync stopped when cancelled');
    fs.rmSync(docs, { recursive: true, force: true });
  });

  it('fails calls after close with STORE_CLOSED', async () => {
    await client.close();
    await rejectsWith(client.memory.stats(), 'STORE_CLOSED');
  });

  it('reports a store that cannot be opened, and tells a worker that died while opening apart', async () => {
    const file = path.join(dir, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    // Refused by the store (the worker says why): not counted as a crash.
    await assert.rejects(
      StoreClient.start(WORKER, { dir: file, options: {}, pollMs: 100 }),
      (error: unknown) => !isMemoryError(error, 'STORE_CLOSED'),
    );
    // A thread that throws before it can report (as one out of memory would) is a crash: STORE_CLOSED.
    const crashing = path.join(dir, 'crashing-worker.js');
    fs.writeFileSync(crashing, "throw new Error('boom');");
    await rejectsWith(StoreClient.start(crashing, { dir, options: {}, pollMs: 100 }), 'STORE_CLOSED');
  });
});
