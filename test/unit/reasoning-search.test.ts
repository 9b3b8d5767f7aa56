import * as assert from 'node:assert/strict';

import type { AiProvider, ChatMessage, ChatOptions } from '../../src/core/ai/provider';
import { MemoryError } from '../../src/core/errors';
import { reasonedSearch } from '../../src/core/reasoning/reason';
import { wantsReasoning } from '../../src/core/reasoning/settings';
import type { Hit } from '../../src/core/reasoning/types';
import { FakeAi, json } from './fake-ai';
import { rejectsWith } from './helpers';

/** FakeAi that also records the options of each call: the maxTokens and signal it was sent. */
class ScriptedModel extends FakeAi {
  readonly options: ChatOptions[] = [];

  override chat(messages: readonly ChatMessage[], options: ChatOptions = {}): Promise<string> {
    this.options.push(options);
    return super.chat(messages, options);
  }
}

/** A model that must not be asked anything. */
const noModel: AiProvider = {
  chat: () => Promise.reject(new Error('the model was called')),
};

const DOCS: Record<string, string> = {
  d1: 'We deploy with docker compose on the staging host.',
  d2: 'The staging host is staging.example.com, reached over the VPN.',
  d3: 'Releases are tagged and pushed to the registry.',
  d4: 'Tests run with mocha.',
  d5: 'The VPN config lives in ops/vpn.conf.',
};

/** A keyword search over DOCS (hits scored by words matched) that records its calls. */
function corpus() {
  const calls: { query: string; limit: number }[] = [];
  const search = async (query: string, limit: number): Promise<Hit[]> => {
    calls.push({ query, limit });
    const words = query
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => word.length > 2);
    return Object.entries(DOCS)
      .map(([id, text]) => ({ id, text, score: words.filter((word) => text.toLowerCase().includes(word)).length }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  };
  return { search, calls };
}

/** A search that finds one new hit per query, its id the query: every round of searches finds something new. */
const echoSearch = async (query: string): Promise<Hit[]> => [{ id: query, text: `About ${query}.`, score: 1 }];

const ids = (hits: readonly Hit[]) => hits.map((hit) => hit.id);
const plan = (evidence: string[], enough: boolean, queries: string[] = []) => json({ evidence, enough, queries });

describe('reasoning: reasonedSearch', () => {
  it("answers plain search as it is with reasoning 'none' and no rerank: no model call", async () => {
    const { search, calls } = corpus();
    const plain = await search('staging host', 3);
    const result = await reasonedSearch(noModel, search, 'staging host', 3, { reasoning: 'none' });
    assert.deepEqual(result.results, plain);
    assert.deepEqual(calls.at(-1), { query: 'staging host', limit: 3 });
    assert.equal(calls.length, 2, 'one search for the run');
    assert.deepEqual(result.strategy, { reasoning: 'none', rerank: false });
    assert.deepEqual(result.steps, []);
    assert.equal(wantsReasoning({ reasoning: 'none', rerank: false }), false);
    assert.equal(wantsReasoning({ rerank: true }), true);
  });

  it('rewrite: searches the proposed queries and fuses them with the original results', async () => {
    const ai = new ScriptedModel([json({ queries: ['staging host vpn', 'DEPLOY'] })]);
    const { search, calls } = corpus();
    const result = await reasonedSearch(ai, search, 'deploy', 5, { reasoning: 'rewrite' });
    assert.match(ai.requests[0]!.at(-1)!.content, /deploy/);
    assert.deepEqual(
      calls.map((call) => call.query),
      ['deploy', 'staging host vpn'],
      'a repeat of the query is not searched again',
    );
    assert.deepEqual(ids(result.results), ['d1', 'd2', 'd5'], 'd1, found by both, first; the original kept');
    assert.deepEqual(result.steps, [
      { kind: 'search', queries: ['deploy'], newResults: 1 },
      { kind: 'rewrite', queries: ['staging host vpn'], newResults: 2 },
    ]);
    assert.equal(result.degraded, undefined);
  });

  it('iterative: plans, notes evidence and searches again until the model has enough', async () => {
    const ai = new ScriptedModel([
      plan(['Deploys use docker compose on the staging host.'], false, ['staging host']),
      plan(['The staging host is reached over the VPN.'], false, ['vpn config']),
      plan(['The VPN config is ops/vpn.conf.'], true, ['registry']),
    ]);
    const { search } = corpus();
    const result = await reasonedSearch(ai, search, 'how do we deploy', 5, { reasoning: 'iterative', maxSteps: 5 });
    assert.equal(ai.requests.length, 3, 'stops when the model says it has enough, and searches no more');
    assert.deepEqual(
      result.steps.map((step) => [step.kind, step.queries, step.newResults, step.enough]),
      [
        ['search', ['how do we deploy'], 1, undefined],
        ['plan', ['staging host'], 1, false],
        ['plan', ['vpn config'], 1, false],
        ['plan', [], 0, true],
      ],
    );
    assert.deepEqual(result.steps[2]!.evidence, ['The staging host is reached over the VPN.']);
    const second = ai.requests[1]!.at(-1)!.content;
    assert.match(second, /Deploys use docker compose/, 'the evidence so far is shown');
    assert.match(second, /`staging host`/, 'so are the searches run');
    assert.match(second, /staging\.example\.com/, 'the new hit is shown');
    assert.doesNotMatch(second, /We deploy with docker compose/, 'a hit already shown is not shown again');
    assert.deepEqual(ids(result.results), ['d1', 'd2', 'd5']);
  });

  it('iterative: stops at the step bound (default 3), and refuses more than 5 steps', async () => {
    const ai = new ScriptedModel([(_messages, call) => plan([], false, [`topic ${call}`])]);
    const result = await reasonedSearch(ai, echoSearch, 'start', 10, { reasoning: 'iterative' });
    assert.equal(ai.requests.length, 3);
    assert.deepEqual(ids(result.results), ['start', 'topic 1', 'topic 2', 'topic 3']);
    await rejectsWith(
      reasonedSearch(ai, echoSearch, 'start', 10, { reasoning: 'iterative', maxSteps: 6 }),
      'INVALID_INPUT',
    );
    assert.equal(ai.requests.length, 3, 'refused before any call');
  });

  it('iterative: stops when a round of searches finds nothing new', async () => {
    const ai = new ScriptedModel([plan([], false, ['deploy docker'])]);
    const { search } = corpus();
    const result = await reasonedSearch(ai, search, 'deploy', 5, { reasoning: 'iterative' });
    assert.equal(ai.requests.length, 1);
    assert.deepEqual(result.steps.at(-1), {
      kind: 'plan',
      queries: ['deploy docker'],
      newResults: 0,
      evidence: [],
      enough: false,
    });
  });

  it('rerank: the model orders the top candidates, read beyond the limit; the rest follow', async () => {
    const ai = new ScriptedModel([json({ order: [3, 1] })]);
    const { search, calls } = corpus();
    const result = await reasonedSearch(ai, search, 'staging host vpn', 2, { rerank: true });
    assert.deepEqual(calls[0], { query: 'staging host vpn', limit: 20 });
    assert.deepEqual(ids(result.results), ['d5', 'd2'], 'the third brought up; limit kept');
    const prompt = ai.requests[0]!.at(-1)!.content;
    assert.match(prompt, /\[1\]\n```text\nThe staging host is staging/);
    assert.deepEqual(result.steps.at(-1), { kind: 'rerank', queries: [], newResults: 0, candidates: 3 });
  });

  it('retries once with a correction after an invalid reply, then uses the valid one', async () => {
    const ai = new ScriptedModel(['Sure! Here you go.', json({ queries: ['vpn'] })]);
    const { search } = corpus();
    const result = await reasonedSearch(ai, search, 'deploy', 5, { reasoning: 'rewrite' });
    assert.equal(ai.requests.length, 2);
    assert.match(ai.lastMessage(1), /cannot be used/);
    assert.equal(result.degraded, undefined);
    assert.deepEqual(ids(result.results), ['d1', 'd2', 'd5']);
  });

  for (const [name, options, reply] of [
    ['garbage', { reasoning: 'rewrite' }, 'no idea'],
    ['empty', { reasoning: 'iterative' }, '   '],
    ['out-of-range', { rerank: true }, json({ order: [99] })],
  ] as const) {
    it(`degrades to plain results after two ${name} replies`, async () => {
      const ai = new ScriptedModel([reply]);
      const { search } = corpus();
      const plain = await search('staging host', 5);
      const result = await reasonedSearch(ai, search, 'staging host', 5, options);
      assert.equal(ai.requests.length, 2, 'one retry, no more');
      assert.deepEqual(result.results, plain);
      assert.equal(result.degraded?.cause, 'invalid-output');
      assert.match(result.degraded?.reason ?? '', /^Could not .*: The model did not return usable JSON/);
    });
  }

  it('degrades when the provider throws, and when its answer is too slow', async () => {
    const { search } = corpus();
    const plain = await search('vpn', 5);
    const down: AiProvider = { chat: () => Promise.reject(new MemoryError('AI_UNAVAILABLE', 'connection refused')) };
    const failed = await reasonedSearch(down, search, 'vpn', 5, { reasoning: 'rewrite', rerank: true });
    assert.deepEqual(failed.results, plain);
    assert.deepEqual(failed.degraded, {
      cause: 'unavailable',
      reason: 'Could not rewrite the query: connection refused',
    });

    const silent: AiProvider = { chat: () => new Promise(() => undefined) };
    const slow = await reasonedSearch(silent, search, 'vpn', 5, { rerank: true, timeoutMs: 20 });
    assert.deepEqual(slow.results, plain);
    assert.equal(slow.degraded?.cause, 'timeout');
  });

  it('keeps the results of plain search when a later step fails', async () => {
    const ai = new ScriptedModel([json({ queries: ['vpn'] }), 'garbage']);
    const { search } = corpus();
    const result = await reasonedSearch(ai, search, 'deploy', 5, { reasoning: 'rewrite', rerank: true });
    assert.deepEqual(ids(result.results), ['d1'], 'the query alone found d1');
    assert.deepEqual(
      result.steps.map((step) => step.kind),
      ['search', 'rewrite'],
      'the steps that ran are still reported',
    );
    assert.match(result.degraded?.reason ?? '', /^Could not rerank/);
  });

  it('cancelled mid-run: CANCELLED, and no further model call', async () => {
    const controller = new AbortController();
    const ai = new ScriptedModel([
      () => {
        controller.abort();
        return plan(['noted'], false, ['vpn']);
      },
    ]);
    const { search } = corpus();
    const options = { reasoning: 'iterative', maxSteps: 3, signal: controller.signal } as const;
    await rejectsWith(reasonedSearch(ai, search, 'deploy', 5, options), 'CANCELLED');
    assert.equal(ai.requests.length, 1);
  });

  it('cancelled during a search: CANCELLED, even when the search ignores or misreports it', async () => {
    for (const finish of ['return', 'throw'] as const) {
      const controller = new AbortController();
      const { search: corpusSearch } = corpus();
      let searches = 0;
      const search = async (query: string, limit: number) => {
        if (++searches < 2) return corpusSearch(query, limit);
        controller.abort();
        if (finish === 'throw') throw new Error('connection closed');
        return corpusSearch(query, limit);
      };
      const ai = new ScriptedModel([json({ queries: ['vpn'] })]);
      const options = { reasoning: 'rewrite', signal: controller.signal } as const;
      await rejectsWith(reasonedSearch(ai, search, 'deploy', 5, options), 'CANCELLED');
      assert.equal(ai.requests.length, 1, finish);
    }
  });

  it('cancelled while a model that ignores its signal is thinking: CANCELLED at once', async () => {
    const controller = new AbortController();
    const stuck: AiProvider = {
      chat: () => {
        setTimeout(() => controller.abort(), 5);
        return new Promise(() => undefined);
      },
    };
    const { search } = corpus();
    const options = { reasoning: 'rewrite', timeoutMs: 60_000, signal: controller.signal } as const;
    await rejectsWith(reasonedSearch(stuck, search, 'deploy', 5, options), 'CANCELLED');
  });

  it('sends every call a signal and the output bound', async () => {
    const ai = new ScriptedModel([json({ queries: ['vpn'] }), json({ order: [1] })]);
    const { search } = corpus();
    await reasonedSearch(ai, search, 'deploy', 5, { reasoning: 'rewrite', rerank: true, maxOutputTokens: 100 });
    assert.equal(ai.options.length, 2);
    for (const options of ai.options) {
      assert.equal(options.maxTokens, 100);
      assert.ok(options.signal instanceof AbortSignal, 'a timeout at least');
    }
  });
});
