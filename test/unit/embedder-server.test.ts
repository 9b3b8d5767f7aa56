import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { OpenAiCompatibleEmbedder } from '../../src/core/ai/embedder';
import { Memory } from '../../src/core/memory';
import { openTemp, rejectsWith, tempDir } from './helpers';

/**
 * The offline setup of docs/semantic-search.md, end to end: the real
 * OpenAiCompatibleEmbedder against a local OpenAI-compatible server (as
 * Ollama or LM Studio would be), and what the store does when that server
 * misbehaves. The fake "model" is a bag of words in which every word has a
 * dimension of its own, except that the words of one concept share one: two
 * texts are close exactly when they share words or concepts, so a memory
 * about a concept is found by a synonym that no keyword search can match.
 */
const CONCEPTS: Record<string, number> = {
  flaky: 0,
  intermittent: 0,
  nondeterministic: 0,
  slow: 1,
  sluggish: 1,
  latency: 1,
};
const CONCEPT_DIMS = 2;
const DIMS = 256;
/** Each other word's dimension, given in the order words are first seen: no two words ever share one. */
const dimensions = new Map<string, number>();

function dimensionOf(word: string): number {
  const concept = CONCEPTS[word];
  if (concept !== undefined) return concept;
  let dimension = dimensions.get(word);
  if (dimension === undefined) {
    dimension = CONCEPT_DIMS + dimensions.size;
    // Words sharing a dimension would make texts close by accident.
    if (dimension >= DIMS) throw new Error('The fake model ran out of dimensions: raise DIMS.');
    dimensions.set(word, dimension);
  }
  return dimension;
}

function fakeVector(text: string, dims = DIMS): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) vector[dimensionOf(word)]! += 1;
  return vector;
}

/** How the fake server answers the next requests. */
type Behaviour =
  | 'ok'
  /** Holds the request open and never answers. */
  | 'hang'
  | 'http-500'
  /** 200 with a body that is not JSON. */
  | 'garbage'
  /** Vectors of another size than the ones already stored. */
  | 'wrong-dims'
  /** One vector fewer than the texts sent. */
  | 'wrong-count'
  /** An embedding that is not a list of numbers. */
  | 'malformed';

interface Request {
  path: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  model: string;
  input: string[];
}

interface FakeServer {
  url: string;
  behaviour: Behaviour;
  /** Answer `data` in reverse order (each item keeps its `index`), as a server may. */
  reversed: boolean;
  requests: Request[];
  close(): Promise<void>;
}

async function startServer(): Promise<FakeServer> {
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      fake.requests.push({
        path: request.url,
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        model,
        input,
      });
      const reply = (status: number, text: string) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(text);
      const vectors = (dims: number) =>
        input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, dims) }));
      switch (fake.behaviour) {
        case 'hang':
          held.add(response);
          return;
        case 'http-500':
          return reply(500, '{"error":{"message":"model failed to load"}}');
        case 'garbage':
          return reply(200, '{"data": [{"embedding": [0.1, 0.2');
        case 'wrong-count':
          return reply(200, JSON.stringify({ data: vectors(DIMS).slice(1) }));
        case 'malformed':
          return reply(200, JSON.stringify({ data: input.map((_, index) => ({ index, embedding: 'base64?' })) }));
        case 'wrong-dims':
          return reply(200, JSON.stringify({ data: vectors(DIMS * 2) }));
        case 'ok': {
          const data = vectors(DIMS);
          return reply(200, JSON.stringify({ object: 'list', model, data: fake.reversed ? data.reverse() : data }));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeServer = {
    url: `http://127.0.0.1:${port}/v1`,
    behaviour: 'ok',
    reversed: false,
    requests: [],
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** The ids a store without any embedder finds: plain keyword search over the same folder. */
async function keywordOnly(dir: string, query: string): Promise<string[]> {
  const plain = await Memory.open({ dir, author: 'test', synchronous: 'normal' });
  try {
    return (await plain.memories.search('a', 'u', query, 5)).map((result) => result.entity.id);
  } finally {
    await plain.close();
  }
}

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/**
 * Runs the built CLI with `env` on top of an environment cleared of the
 * store's variables. Asynchronous: the fake server answers from this process.
 */
async function cli(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('WORKSPACE_MEMORY_')),
  );
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...clean, ...env } });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('a local OpenAI-compatible embedder (offline semantic search)', () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await server.close();
  });

  describe('the embedder', () => {
    it('posts the model and the texts to <url>/embeddings, with the key as a bearer token', async () => {
      const embedder = new OpenAiCompatibleEmbedder({
        url: `${server.url}/`,
        model: 'nomic-embed-text',
        apiKey: 'k-1',
      });
      const [vector] = await embedder.embed(['an intermittent failure']);
      assert.deepEqual(Array.from(vector!), fakeVector('an intermittent failure'));
      assert.equal(server.requests.length, 1);
      const [request] = server.requests;
      assert.equal(request?.path, '/v1/embeddings');
      assert.equal(request?.model, 'nomic-embed-text');
      assert.deepEqual(request?.input, ['an intermittent failure']);
      assert.equal(request?.authorization, 'Bearer k-1');
      assert.match(request?.contentType ?? '', /^application\/json/);
    });

    it('sends no Authorization header without a key (Ollama and LM Studio need none)', async () => {
      await new OpenAiCompatibleEmbedder({ url: server.url, model: 'm' }).embed(['x']);
      assert.equal(server.requests[0]?.authorization, undefined);
    });

    it('splits the texts into batches and returns the vectors in the order of the texts', async () => {
      server.reversed = true;
      const texts = ['one slow', 'two flaky', 'three', 'four latency', 'five'];
      const vectors = await new OpenAiCompatibleEmbedder({ url: server.url, model: 'm', batchSize: 2 }).embed(texts);
      assert.deepEqual(
        server.requests.map((request) => request.input),
        [['one slow', 'two flaky'], ['three', 'four latency'], ['five']],
      );
      assert.deepEqual(
        vectors.map((vector) => Array.from(vector)),
        texts.map((text) => fakeVector(text)),
        'sorted back by index, not by the order the server answered in',
      );
    });

    it('gives up on a server that never answers after timeoutMs, as AI_UNAVAILABLE', async () => {
      server.behaviour = 'hang';
      const started = Date.now();
      const error = await rejectsWith(
        new OpenAiCompatibleEmbedder({ url: server.url, model: 'm', timeoutMs: 200 }).embed(['x']),
        'AI_UNAVAILABLE',
      );
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.match(error.message, /Cannot reach the embeddings endpoint .*timeout/i);
    });

    it('refuses an answer with the wrong number of vectors rather than pairing texts with the wrong vectors', async () => {
      server.behaviour = 'wrong-count';
      const error = await rejectsWith(
        new OpenAiCompatibleEmbedder({ url: server.url, model: 'm' }).embed(['a', 'b', 'c']),
        'AI_UNAVAILABLE',
      );
      assert.match(error.message, /unexpected response/);
    });
  });

  describe('hybrid search through it', () => {
    let memory: Memory;
    let dir: string;
    let cleanup: () => Promise<void>;
    let warnings: string[];
    let flaky: string;
    let backups: string;

    beforeEach(async () => {
      warnings = [];
      ({ memory, dir, cleanup } = await openTemp({
        // Short, so the test of a server that never answers takes a fraction of a second per request.
        embedder: new OpenAiCompatibleEmbedder({ url: server.url, model: 'fake-bow', timeoutMs: 300 }),
        onWarning: (message) => warnings.push(message),
      }));
      flaky = (
        await memory.memories.save('a', 'u', { content: 'The nightly build is intermittent on the Windows runner' })
      )[0].id;
      backups = (await memory.memories.save('a', 'u', { content: 'Database backups run at midnight' }))[0].id;
      await memory.memories.save('a', 'u', { content: 'Release notes are written in the changelog' });
      assert.equal(memory.embeddings?.pending(), 0, 'every memory was embedded as it was written');
      assert.deepEqual(warnings, []);
    });
    afterEach(async () => {
      await cleanup();
    });

    it('finds by meaning a memory that keyword search alone misses', async () => {
      assert.deepEqual(await keywordOnly(dir, 'flaky tests'), [], 'no word in common: keywords find nothing');
      const results = await memory.memories.search('a', 'u', 'flaky tests', 5, { explain: true });
      assert.equal(results[0]?.entity.id, flaky);
      assert.equal(results[0]?.explain?.fusion?.bm25Rank, undefined, 'found by the vector list alone');
      assert.equal(results[0]?.explain?.fusion?.vectorRank, 1);
      assert.deepEqual(warnings, []);
    });

    it('still ranks a keyword match first when the vectors agree', async () => {
      const [top] = await memory.memories.search('a', 'u', 'database backups', 5, { explain: true });
      assert.equal(top?.entity.id, backups);
      assert.equal(top?.explain?.fusion?.bm25Rank, 1);
      assert.equal(top?.explain?.fusion?.vectorRank, 1);
    });

    /** What the store says when the embedder fails each way: the note of a keyword-only search and of a save. */
    const failures: [Behaviour, RegExp][] = [
      ['hang', /Cannot reach the embeddings endpoint .*timeout/i],
      ['http-500', /answered 500: .*model failed to load/],
      ['garbage', /did not answer JSON/],
      ['wrong-count', /unexpected response/],
      ['malformed', /malformed vector/],
    ];
    for (const [behaviour, reason] of failures) {
      it(`a server that fails (${behaviour}) leaves plain keyword search with a note, and loses nothing`, async () => {
        server.behaviour = behaviour;
        const expected = await keywordOnly(dir, 'nightly build');
        assert.deepEqual(expected, [flaky]);
        const results = await memory.memories.search('a', 'u', 'nightly build', 5);
        assert.deepEqual(
          results.map((result) => result.entity.id),
          expected,
        );
        assert.equal(warnings.length, 1);
        assert.match(warnings[0]!, /^Searched by keywords only: /);
        assert.match(warnings[0]!, reason);

        // A write goes ahead without a vector, and says so.
        const [saved] = await memory.memories.save('a', 'u', { content: 'The e2e job is nondeterministic on Fridays' });
        assert.equal((await memory.memories.get(saved.id))?.content, 'The e2e job is nondeterministic on Fridays');
        assert.match(warnings[1]!, /^Saved without embeddings \(run a backfill later\): /);
        assert.match(warnings[1]!, reason);
        assert.equal(memory.embeddings?.pending(), 1);
        assert.deepEqual(
          (await memory.memories.search('a', 'u', 'e2e Fridays', 5)).map((result) => result.entity.id),
          [saved.id],
          'found by its keywords meanwhile',
        );

        // A backfill cannot pretend it worked: it fails as a whole, and what it had to do is still to do.
        await rejectsWith(memory.embeddings.backfill(), 'AI_UNAVAILABLE');
        assert.equal(memory.embeddings?.pending(), 1);

        // Once the server is back, the backfill catches up and meaning finds the memory saved meanwhile.
        server.behaviour = 'ok';
        const report = await memory.embeddings.backfill();
        assert.equal(report.embedded, 1);
        assert.equal(report.remaining, 0);
        const found = (await memory.memories.search('a', 'u', 'flaky', 5)).map((result) => result.entity.id);
        assert.deepEqual(new Set(found.slice(0, 2)), new Set([flaky, saved.id]));
      });
    }

    it('a server that is down (nothing listens) leaves keyword search at once, with a note', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const down = await Memory.open({
        dir,
        author: 'test',
        synchronous: 'normal',
        embedder: new OpenAiCompatibleEmbedder({ url: `http://127.0.0.1:${port}/v1`, model: 'fake-bow' }),
        onWarning: (message) => warnings.push(message),
      });
      try {
        const started = Date.now();
        const results = await down.memories.search('a', 'u', 'nightly build', 5);
        assert.deepEqual(
          results.map((result) => result.entity.id),
          [flaky],
        );
        assert.ok(Date.now() - started < 5000, 'no waiting for a timeout');
        assert.match(warnings[0]!, /^Searched by keywords only: Cannot reach the embeddings endpoint .*ECONNREFUSED/);
      } finally {
        await down.close();
      }
    });

    it('vectors of another size than the stored ones leave the keyword order, and lose no memory', async () => {
      // As when the server's model behind the same name was swapped for one of another size.
      server.behaviour = 'wrong-dims';
      const expected = await keywordOnly(dir, 'nightly build');
      const results = await memory.memories.search('a', 'u', 'nightly build', 5, { explain: true });
      assert.deepEqual(
        results.map((result) => result.entity.id),
        expected,
      );
      assert.equal(results[0]?.explain?.fusion?.vectorRank, undefined, 'no stored vector was compared with it');
      assert.match(warnings[0]!, /^Searched by keywords only: .*vectors of 512 dimensions; those stored .* have 256/);
      // The keyword scores themselves, not a fusion's with an empty vector list (which caps them at 0.5).
      const keywordScore = results[0]?.explain?.score ?? 0;
      assert.ok(keywordScore > 0.5 && Math.abs(results[0]!.score - keywordScore) < 1e-12, `${results[0]?.score}`);
      const pending = memory.embeddings?.pending() ?? 0;
      const [saved] = await memory.memories.save('a', 'u', { content: 'The e2e job is nondeterministic on Fridays' });
      assert.match(warnings.at(-1)!, /^Saved without embeddings \(run a backfill later\): .*512 dimensions/);
      assert.equal(memory.embeddings?.pending(), pending + 1, 'the new memory waits for a vector of the right size');
      assert.equal((await memory.memories.get(saved.id))?.content, 'The e2e job is nondeterministic on Fridays');
      assert.deepEqual(
        (await memory.memories.search('a', 'u', 'e2e Fridays', 5)).map((result) => result.entity.id),
        [saved.id],
      );
      await assert.rejects(memory.embeddings.backfill(), /512 dimensions/);
      server.behaviour = 'ok';
      const report = await memory.embeddings.backfill();
      assert.equal(report.remaining, 0, 'embedded once the server answers with the stored size again');
      assert.equal((await memory.memories.search('a', 'u', 'e2e Fridays', 1))[0]?.entity.id, saved.id);
    });
  });

  describe('from the CLI, configured by the environment as the docs say', function () {
    this.timeout(60_000);
    let dir: string;
    let env: Record<string, string>;
    before(() => {
      if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
    });
    beforeEach(async () => {
      dir = tempDir('wm-embed-cli-');
      env = {
        WORKSPACE_MEMORY_EMBED_URL: server.url,
        WORKSPACE_MEMORY_EMBED_MODEL: 'nomic-embed-text',
      };
      assert.equal((await cli(['init', '--dir', dir], {})).code, 0);
    });
    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('embeds what it saves, searches by meaning, and falls back to keywords with a warning', async () => {
      const content = 'The nightly build is intermittent on the Windows runner';
      const saved = await cli(['save', 'memory', '--dir', dir, '--content', content, '--json'], env);
      assert.equal(saved.code, 0, saved.stderr);
      // The embedded text is the title, content and tags (none here, hence a blank line at the end).
      assert.deepEqual(
        server.requests.at(-1)?.input.map((text) => text.trim()),
        [content],
        'embedded as it was written',
      );
      assert.equal(server.requests.at(-1)?.model, 'nomic-embed-text');

      const found = await cli(['search', 'flaky tests', '--dir', dir, '--json'], env);
      assert.equal(found.code, 0, found.stderr);
      assert.equal(found.stderr, '');
      const [hit] = JSON.parse(found.stdout) as { entity: { content: string } }[];
      assert.equal(hit?.entity.content, content);

      server.behaviour = 'http-500';
      const degraded = await cli(['search', 'nightly build', '--dir', dir, '--json'], env);
      assert.equal(degraded.code, 0, degraded.stderr);
      assert.equal((JSON.parse(degraded.stdout) as unknown[]).length, 1);
      assert.match(degraded.stderr, /^workspace-memory: warning: Searched by keywords only: .*answered 500/m);
    });

    it('refuses a half-configured embedder instead of silently searching without it', async () => {
      const result = await cli(['search', 'x', '--dir', dir], { WORKSPACE_MEMORY_EMBED_URL: server.url });
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /Set both WORKSPACE_MEMORY_EMBED_URL and WORKSPACE_MEMORY_EMBED_MODEL/);
    });
  });
});
