import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { OpenAiCompatibleEmbedder } from '../../src/core/ai/embedder';
import type { Memory } from '../../src/core/memory';
import { openTemp, rejectsWith } from './helpers';

/**
 * A real HTTP server speaking OpenAI's /v1/embeddings, with a deterministic
 * "model": words of one concept (car, automobile, vehicle) land on the same
 * dimension, so vector search finds what keywords cannot.
 */
const CONCEPTS: Record<string, number> = {
  car: 1,
  automobile: 1,
  vehicle: 1,
  cat: 2,
  kitten: 2,
  feline: 2,
  deploy: 3,
  release: 3,
  ship: 3,
};
const DIMS = 16;

function embed(text: string, model: string): number[] {
  const vector = new Array<number>(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const slot = CONCEPTS[word] ?? 4 + (word.length % (DIMS - 4));
    vector[slot]! += 1;
  }
  // A different model gives a different (but still deterministic) space.
  if (model === 'other-model') vector.reverse();
  vector[0] = 0.01;
  return vector;
}

interface FakeServer {
  url: string;
  requests: number;
  failing: boolean;
  close(): Promise<void>;
}

async function startServer(): Promise<FakeServer> {
  const state = { requests: 0, failing: false };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += String(chunk)));
    request.on('end', () => {
      state.requests++;
      if (state.failing || request.url !== '/v1/embeddings') {
        response.writeHead(503).end('unavailable');
        return;
      }
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: input.map((text, index) => ({ index, embedding: embed(text, model) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('hybrid search', () => {
  let server: FakeServer;
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let warnings: string[];
  beforeEach(async () => {
    server = await startServer();
    warnings = [];
    ({ memory, cleanup } = await openTemp({
      embedder: new OpenAiCompatibleEmbedder({ url: server.url, model: 'test-model' }),
      onWarning: (message) => warnings.push(message),
    }));
  });
  afterEach(async () => {
    await cleanup();
    await server.close();
  });

  it('embeds on write and finds by meaning what keywords cannot', async () => {
    const [car] = await memory.memories.save('a', 'u', { content: 'The car needs new tyres' });
    await memory.memories.save('a', 'u', { content: 'The kitten sleeps all day' });
    assert.equal(memory.embeddings?.pending(), 0, 'written with vectors');
    // No keyword overlap at all: only the vector list can find it.
    const results = await memory.memories.search('a', 'u', 'automobile', 5, { explain: true });
    assert.equal(results[0]?.entity.id, car.id);
    assert.equal(results[0]?.explain?.fusion?.bm25Rank, undefined);
    assert.equal(results[0]?.explain?.fusion?.vectorRank, 1);
    assert.ok((results[0]?.explain?.fusion?.similarity ?? 0) > 0.3);
    assert.deepEqual(warnings, []);
  });

  it('fuses both lists by reciprocal rank: a result first in both scores 1', async () => {
    const [shipped] = await memory.memories.save('a', 'u', { content: 'deploy ship release deploy' });
    await memory.memories.save('a', 'u', { content: 'cat feline kitten' });
    const [top] = await memory.memories.search('a', 'u', 'deploy', 5, { explain: true });
    assert.equal(top?.entity.id, shipped.id);
    assert.equal(top?.explain?.fusion?.bm25Rank, 1);
    assert.equal(top?.explain?.fusion?.vectorRank, 1);
    assert.ok(Math.abs((top?.score ?? 0) - 1) < 1e-9);
  });

  it('answers from keywords with a warning when the embedder is unreachable', async () => {
    const [saved] = await memory.memories.save('a', 'u', { content: 'The car needs new tyres' });
    server.failing = true;
    const results = await memory.memories.search('a', 'u', 'car tyres', 5);
    assert.equal(results[0]?.entity.id, saved.id);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /keywords only/);
  });

  it('saves without vectors when the embedder fails, and backfill adds them later', async () => {
    server.failing = true;
    const [saved] = await memory.memories.save('a', 'u', { content: 'The automobile is parked' });
    assert.equal((await memory.memories.get(saved.id))?.content, 'The automobile is parked', 'nothing lost');
    assert.match(warnings[0]!, /without embeddings/);
    assert.equal(memory.embeddings?.pending(), 1);
    server.failing = false;
    const progress: number[] = [];
    const report = await memory.embeddings.backfill({ onProgress: ({ done }) => progress.push(done) });
    assert.equal(report.embedded, 1);
    assert.equal(report.remaining, 0);
    assert.deepEqual(progress, [0, 1]);
    assert.equal((await memory.memories.search('a', 'u', 'vehicle', 1))[0]?.entity.id, saved.id);
  });

  it('re-embeds an updated entity and never uses its old vector', async () => {
    const [saved] = await memory.memories.save('a', 'u', { content: 'The cat sleeps' });
    await memory.memories.update(saved.id, { content: 'The car is fast' });
    const [hit] = await memory.memories.search('a', 'u', 'automobile', 1, { explain: true });
    assert.equal(hit?.entity.id, saved.id);
    const felines = await memory.memories.search('a', 'u', 'feline', 5, { explain: true });
    assert.ok(
      !felines.some(
        (r) =>
          r.entity.id === saved.id && r.explain?.fusion?.vectorRank === 1 && (r.explain.fusion.similarity ?? 0) > 0.5,
      ),
    );
  });

  it('backfill can be cancelled and reports progress', async () => {
    server.failing = true;
    await memory.memories.saveMany(
      Array.from({ length: 40 }, (_, i) => ({ agentId: 'a', input: { content: `note ${i} about cars` } })),
    );
    server.failing = false;
    const controller = new AbortController();
    const report = await memory.embeddings!.backfill({
      batchSize: 10,
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done >= 10) controller.abort();
      },
    });
    assert.equal(report.cancelled, true);
    assert.equal(report.embedded, 10);
    assert.equal(report.remaining, 30);
    assert.equal(memory.embeddings?.pending(), 30);
  });

  it('a model change re-embeds everything and never mixes vectors of two models', async () => {
    await memory.memories.save('a', 'u', { content: 'The car needs new tyres' });
    const dir = memory.dir;
    await memory.close();
    const other = await (
      await import('../../src/core/memory')
    ).Memory.open({
      dir,
      embedder: new OpenAiCompatibleEmbedder({ url: server.url, model: 'other-model' }),
      onWarning: () => {},
    });
    try {
      assert.equal(other.embeddings?.pending(), 1, "the old model's vectors do not count");
      const report = await other.embeddings.backfill();
      assert.equal(report.pruned, 1);
      assert.equal(report.embedded, 1);
      assert.equal(other.embeddings?.pending(), 0);
    } finally {
      await other.close();
    }
  });

  it('refuses a malformed embedder configuration', async () => {
    assert.throws(() => new OpenAiCompatibleEmbedder({ url: 'not a url', model: 'x' }), /not a valid URL/);
    await rejectsWith(
      new OpenAiCompatibleEmbedder({ url: 'http://127.0.0.1:9/v1', model: 'x', timeoutMs: 2000 }).embed(['x']),
      'AI_UNAVAILABLE',
    );
  });
});
