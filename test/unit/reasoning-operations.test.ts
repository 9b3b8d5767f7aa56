import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { runOperation } from '../../src/core/operations';
import { FakeAi, json } from './fake-ai';
import { openTemp } from './helpers';

/** The data of an operation's result, as the surfaces hand it on. */
interface SearchData {
  results: { entity: { content: string } }[];
  reasoning?: { strategy: { reasoning: string; rerank: boolean }; degraded?: { cause: string } };
}

describe('reasoning and reranking through search and recall', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    await memory.memories.save('a', undefined, { content: 'We deploy with docker compose on the staging host.' });
    await memory.memories.save('a', undefined, { content: 'The VPN config lives in ops/vpn.conf.' });
    await memory.memories.save('a', undefined, { content: 'Tests run with mocha.' });
  });
  afterEach(async () => cleanup());

  const search = (args: object, ai?: FakeAi) =>
    runOperation({ store: memory, scope: { agentId: 'a' }, ai }, 'memory_search', args);

  it('memory_search: rewrite finds what the words asked did not, and says what ran', async () => {
    const plain = await search({ query: 'reach the staging network' });
    assert.deepEqual(
      (plain.data as unknown as SearchData).results.map((r) => r.entity.content),
      ['We deploy with docker compose on the staging host.'],
    );
    const ai = new FakeAi([json({ queries: ['vpn config'] })]);
    const result = await search({ query: 'reach the staging network', reasoning: 'rewrite' }, ai);
    const data = result.data as unknown as SearchData;
    assert.deepEqual(data.results.map((r) => r.entity.content).sort(), [
      'The VPN config lives in ops/vpn.conf.',
      'We deploy with docker compose on the staging host.',
    ]);
    assert.equal(ai.requests.length, 1);
    assert.deepEqual(data.reasoning?.strategy, { reasoning: 'rewrite', rerank: false });
    assert.match(result.text, /\(Reasoning: rewrite; 2 searches run\.\)$/);
  });

  it('memory_search: rerank orders the candidates as the model says', async () => {
    const ai = new FakeAi([json({ order: [2, 1] })]);
    const result = await search({ query: 'staging vpn config docker', rerank: true }, ai);
    const contents = (result.data as unknown as SearchData).results.map((r) => r.entity.content);
    const plain = (await search({ query: 'staging vpn config docker' })).data as unknown as SearchData;
    assert.deepEqual(contents.slice(0, 2), [plain.results[1]!.entity.content, plain.results[0]!.entity.content]);
  });

  it('without a model: plain search answers, and the text says why reasoning was skipped', async () => {
    const result = await search({ query: 'staging', reasoning: 'iterative' });
    const data = result.data as unknown as SearchData;
    assert.equal(data.results.length, 1);
    assert.equal(data.reasoning?.degraded?.cause, 'unavailable');
    assert.match(result.text, /\(Plain search answered; iterative was skipped: .*No language model is available/);
  });

  it('with a model that answers garbage: plain search answers, degraded as invalid output', async () => {
    const ai = new FakeAi(['not json at all']);
    const result = await search({ query: 'staging', reasoning: 'rewrite' }, ai);
    assert.equal((result.data as unknown as SearchData).reasoning?.degraded?.cause, 'invalid-output');
    assert.equal(ai.requests.length, 2, 'one correction, then plain search');
  });

  it('without reasoning asked: no model call, no note', async () => {
    const ai = new FakeAi([]);
    const result = await search({ query: 'staging' }, ai);
    assert.equal(ai.requests.length, 0);
    assert.equal((result.data as unknown as SearchData).reasoning, undefined);
    assert.doesNotMatch(result.text, /Reasoning|Plain search/);
  });

  it('refuses a reasoning mode it does not know, naming the choices', async () => {
    await assert.rejects(search({ query: 'staging', reasoning: 'deep' }), /reasoning.*none.*rewrite.*iterative/s);
  });

  it('recall: rewrite brings in what the query alone missed, and the context says what ran', async () => {
    const ai = new FakeAi([json({ queries: ['vpn config'] })]);
    const result = await memory.recall('a', undefined, 'reach the staging network', { reasoning: 'rewrite', ai });
    assert.deepEqual(result.items.map((item) => item.entity.content).sort(), [
      'The VPN config lives in ops/vpn.conf.',
      'We deploy with docker compose on the staging host.',
    ]);
    assert.deepEqual(result.reasoning?.strategy, { reasoning: 'rewrite', rerank: false });
    const op = await runOperation(
      { store: memory, scope: { agentId: 'a' }, ai: new FakeAi([json({ queries: ['vpn config'] })]) },
      'memory_recall',
      {
        query: 'reach the staging network',
        reasoning: 'rewrite',
      },
    );
    assert.match(op.text, /ops\/vpn\.conf[\s\S]*\(Reasoning: rewrite; 2 searches run\.\)$/);
  });

  it('recall: rerank packs in the model’s order, turns of past conversations among the candidates', async () => {
    await memory.sessions.save('a', undefined, {
      messages: [{ role: 'user', name: 'Ana', content: 'The staging VPN needs the new config from ops.' }],
    });
    const plain = await memory.recall('a', undefined, 'staging vpn config');
    const candidates = plain.items.length + plain.turns.length;
    assert.ok(candidates >= 3, `${candidates} candidates`);
    // The model puts the last candidate first.
    const ai = new FakeAi([json({ order: [candidates] })]);
    const result = await memory.recall('a', undefined, 'staging vpn config', { rerank: true, ai });
    const prompt = ai.lastMessage(0);
    assert.match(prompt, /Ana: The staging VPN needs the new config from ops\./, 'the turn was a candidate');
    // The candidate the model put first (the last shown) leads its section, and packing follows the model's order.
    const lastShown = new RegExp(`\\[${candidates}\\]\\n\`\`\`text\\n([^\\n]*)`).exec(prompt)?.[1];
    assert.ok(lastShown, 'the last candidate is in the prompt');
    const first = [
      ...result.items.map((i) => i.entity.content),
      ...result.turns.map((t) => `${t.turn.turn.speaker}: ${t.turn.turn.text}`),
    ];
    assert.ok(first.includes(lastShown));
    const plainFirst = [
      ...plain.items.map((i) => i.entity.content),
      ...plain.turns.map((t) => `${t.turn.turn.speaker}: ${t.turn.turn.text}`),
    ];
    assert.notEqual(plainFirst.indexOf(lastShown), 0, 'plain recall did not put it first');
    const leads = [
      result.items[0]?.entity.content,
      result.turns[0] && `${result.turns[0].turn.turn.speaker}: ${result.turns[0].turn.turn.text}`,
    ];
    assert.ok(leads.includes(lastShown), `${lastShown} leads its section`);
    assert.equal(result.reasoning?.strategy.rerank, true);
    assert.equal(result.reasoning?.degraded, undefined);
  });

  it('recall: cancelled while the model thinks, CANCELLED', async () => {
    const controller = new AbortController();
    const ai = new FakeAi([
      () => {
        controller.abort();
        return json({ queries: ['vpn'] });
      },
    ]);
    await assert.rejects(
      memory.recall('a', undefined, 'staging', { reasoning: 'rewrite', ai, signal: controller.signal }),
      (error: Error & { code?: string }) => error.code === 'CANCELLED',
    );
  });
});
