import * as assert from 'node:assert/strict';

import { applyConsolidationPlan, consolidate, planConsolidation } from '../../src/core/ai/consolidation';
import type { ChatMessage } from '../../src/core/ai/provider';
import type { Memory } from '../../src/core/memory';
import type { MemoryEntity } from '../../src/core/types';
import { FakeAi, json } from './fake-ai';
import { openTemp, rejectsWith } from './helpers';

/** The ids the model was shown in a request. */
function shownIds(messages: readonly ChatMessage[]): string[] {
  return [...(messages[1]?.content ?? '').matchAll(/"id":"([^"]+)"/g)].map((match) => match[1]!);
}

describe('consolidation', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let m: MemoryEntity[];
  beforeEach(async () => {
    // Writes land at once here; that they wait for review by default is tested with the CLI (ai-cli.test.ts).
    ({ memory, cleanup } = await openTemp({ review: 'immediate' }));
    m = [];
    for (const [content, tags] of [
      ['We deploy with docker compose.', ['deploy']],
      ['Deployment uses docker compose on staging.', ['docker']],
      ['We use npm as the package manager.', ['tooling']],
      ['Tests run with mocha.', ['tests']],
    ] as const) {
      m.push((await memory.memories.save('a', 'u', { content, tags: [...tags] }))[0]);
    }
  });
  afterEach(async () => cleanup());

  const commits = async () => (await memory.stats()).commits;
  const plan = () =>
    json({
      merge: [
        {
          ids: [m[0]!.id, m[1]!.id],
          content: 'We deploy with docker compose on staging.',
          category: 'decision',
          reason: 'both describe deployment',
        },
      ],
      outdated: [{ id: m[2]!.id, reason: 'we switched to pnpm' }],
    });

  it('merges into the first id (keeping history) and deletes the others and the outdated', async () => {
    const ai = new FakeAi([plan()]);
    const report = await consolidate(memory, ai, { target: 'memory', agentId: 'a', userId: 'u' });
    assert.deepEqual(shownIds(ai.requests[0]!).sort(), m.map((e) => e.id).sort());

    const merged = await memory.memories.get(m[0]!.id);
    assert.equal(merged?.content, 'We deploy with docker compose on staging.');
    assert.equal(merged?.category, 'decision');
    assert.deepEqual(merged?.tags, ['deploy', 'docker'], 'without tags from the model, the group keeps all of them');
    assert.equal((await memory.history(m[0]!.id)).length, 2);
    assert.equal(await memory.memories.get(m[1]!.id), null);
    assert.equal(await memory.memories.get(m[2]!.id), null);
    assert.equal((await memory.history(m[2]!.id))[0]?.commit.op, 'delete', 'a tombstone, history kept');
    assert.ok(await memory.memories.get(m[3]!.id));

    assert.deepEqual(report.merged[0]?.removedIds, [m[1]!.id]);
    assert.deepEqual(
      report.deleted.map((d) => d.id),
      [m[1]!.id, m[2]!.id],
    );
    assert.deepEqual(report.notApplied, []);
  });

  it('rejects every action naming an id it was not shown, and applies the rest', async () => {
    const invented = json({
      merge: [{ ids: [m[0]!.id, 'memory-invented'], content: 'merged', reason: 'same' }],
      outdated: [
        { id: 'memory-made-up', reason: 'old' },
        { id: m[2]!.id, reason: 'we switched to pnpm' },
      ],
    });
    const before = await memory.history(m[0]!.id);
    const report = await consolidate(memory, new FakeAi([invented]), { target: 'memory', agentId: 'a', userId: 'u' });
    assert.equal(report.plan.rejected.length, 2);
    assert.match(report.plan.rejected[0]!.reason, /memory-invented/);
    assert.equal(report.plan.rejected[0]!.proposedBecause, 'same');
    assert.deepEqual(await memory.history(m[0]!.id), before, 'the real id of a rejected merge is untouched');
    assert.equal(await memory.memories.get(m[2]!.id), null);
    assert.deepEqual(
      report.deleted.map((d) => d.id),
      [m[2]!.id],
    );
  });

  it('refuses an id used twice and a merge of one entity', async () => {
    const answer = json({
      merge: [
        { ids: [m[0]!.id, m[0]!.id], content: 'x', reason: 'self' },
        { ids: [m[1]!.id, m[3]!.id], content: 'y', reason: 'r' },
      ],
      outdated: [{ id: m[3]!.id, reason: 'old' }],
    });
    const { plan: result } = await consolidate(memory, new FakeAi([answer]), {
      target: 'memory',
      agentId: 'a',
      userId: 'u',
      dryRun: true,
    });
    assert.deepEqual(
      result.rejected.map((r) => r.reason),
      ['a merge needs at least two different ids', `names ids already used by an earlier action: ${m[3]!.id}`],
    );
  });

  it('writes nothing on a dry run', async () => {
    const before = await commits();
    const report = await consolidate(memory, new FakeAi([plan()]), {
      target: 'memory',
      agentId: 'a',
      userId: 'u',
      dryRun: true,
    });
    assert.equal(report.plan.merges.length, 1);
    assert.equal(report.plan.deletions[0]?.reason, 'we switched to pnpm');
    assert.equal(await commits(), before);
  });

  it('retries a malformed plan with the error, and fails clearly with nothing written when it stays malformed', async () => {
    const retried = new FakeAi(['```json\n{"merge": [{"ids": []}]}\n```', plan()]);
    await consolidate(memory, retried, { target: 'memory', agentId: 'a', userId: 'u', dryRun: true });
    assert.equal(retried.requests.length, 2);
    assert.match(retried.lastMessage(1), /content/);

    const before = await commits();
    const broken = new FakeAi(['{"merge": "everything"}']);
    await rejectsWith(
      consolidate(memory, broken, { target: 'memory', agentId: 'a', userId: 'u' }),
      'AI_INVALID_OUTPUT',
    );
    assert.equal(await commits(), before);
  });

  it('reviews large collections in batches and rejects ids from another batch', async () => {
    for (let i = 0; i < 30; i++) {
      await memory.memories.save('a', 'u', { content: `Note ${i}: ${'detail '.repeat(40)}` });
    }
    let firstBatch: string[] = [];
    const ai = new FakeAi([
      (messages) => {
        firstBatch = shownIds(messages);
        return json({ merge: [], outdated: [] });
      },
      (messages) => {
        const foreign = firstBatch.find((id) => !shownIds(messages).includes(id))!;
        return json({ merge: [], outdated: [{ id: foreign, reason: 'old' }] });
      },
      json({ merge: [], outdated: [] }),
    ]);
    const progress: number[] = [];
    const report = await consolidate(memory, ai, {
      target: 'memory',
      agentId: 'a',
      userId: 'u',
      maxRequestChars: 5_000,
      onProgress: ({ done }) => progress.push(done),
    });
    assert.ok(ai.requests.length >= 3, `${ai.requests.length} requests`);
    assert.equal(report.plan.reviewed, 34);
    assert.equal(progress.length, ai.requests.length);
    assert.match(report.plan.rejected[0]?.reason ?? '', /not in the batch shown/);
    assert.equal((await memory.memories.list('a', 'u')).length, 34);
  });

  it('never merges across users when no user is given', async () => {
    await memory.memories.save('a', 'v', { content: 'We deploy with docker compose.' });
    const ai = new FakeAi([json({ merge: [], outdated: [] })]);
    await consolidate(memory, ai, { target: 'memory', agentId: 'a', dryRun: true });
    // u has four memories, v one: only u's batch is worth a request.
    assert.equal(ai.requests.length, 1);
    assert.equal(shownIds(ai.requests[0]!).length, 4);
  });

  it('leaves out an action whose entities changed after planning', async () => {
    const planned = await planConsolidation(memory, new FakeAi([plan()]), {
      target: 'memory',
      agentId: 'a',
      userId: 'u',
    });
    await memory.memories.update(m[1]!.id, { content: 'Deployment uses docker compose on staging and prod.' });
    const report = await applyConsolidationPlan(memory, planned);
    assert.match(report.notApplied[0]?.reason ?? '', /changed since the plan/);
    assert.equal((await memory.memories.get(m[0]!.id))?.content, 'We deploy with docker compose.');
    assert.deepEqual(
      report.deleted.map((d) => d.id),
      [m[2]!.id],
    );
  });

  it('consolidates skills, and knowledge apart from synced document chunks', async () => {
    const [s1] = await memory.skills.save('a', undefined, {
      content: 'Release: run tests, tag.',
      category: 'workflow',
    });
    const [s2] = await memory.skills.save('a', undefined, {
      content: 'To release, tag after tests.',
      category: 'workflow',
    });
    const skills = new FakeAi([
      json({
        merge: [{ ids: [s2.id, s1.id], content: 'Release: run the tests, then tag.', reason: 'same' }],
        outdated: [],
      }),
    ]);
    await consolidate(memory, skills, { target: 'skill', agentId: 'a' });
    assert.deepEqual(
      (await memory.skills.list('a')).map((s) => [s.id, s.category]),
      [[s2.id, 'workflow']],
    );

    await memory.knowledge.save('a', undefined, {
      content: 'Chunk of a file',
      source: 'a.md',
      sourceHash: 'f'.repeat(64),
    });
    await memory.knowledge.save('a', undefined, { content: 'Ports: the API listens on 8080.' });
    await memory.knowledge.save('a', undefined, { content: 'The API port is 8080.' });
    const knowledge = new FakeAi([json({ merge: [], outdated: [] })]);
    const report = await consolidate(memory, knowledge, { target: 'knowledge', agentId: 'a', dryRun: true });
    assert.equal(report.plan.documentChunks, 1);
    assert.equal(shownIds(knowledge.requests[0]!).length, 2);
  });

  it('is cancelled between batches and writes nothing', async () => {
    for (let i = 0; i < 30; i++)
      await memory.memories.save('a', 'u', { content: `Note ${i}: ${'detail '.repeat(40)}` });
    const before = await commits();
    const controller = new AbortController();
    const ai = new FakeAi([
      () => {
        controller.abort();
        return plan();
      },
    ]);
    await rejectsWith(
      consolidate(memory, ai, {
        target: 'memory',
        agentId: 'a',
        userId: 'u',
        maxRequestChars: 5_000,
        signal: controller.signal,
      }),
      'CANCELLED',
    );
    assert.equal(await commits(), before);
  });
});
