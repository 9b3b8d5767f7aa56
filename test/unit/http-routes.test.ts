import * as assert from 'node:assert/strict';

import { operationsFor } from '../../src/core/operations';
import { LIMITS } from '../../src/core/validation';
import { errorOf, post, request, SCOPE, type Served, serveTemp } from './http-fixture';

/**
 * Arguments each operation accepts, by name. The routes are generated from
 * the catalogue; this table only has to hold a valid call of each, and the
 * first test fails when an operation is added without one. `ID` stands for
 * the id of a memory saved just before.
 */
const ID = '<id>';
const SAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  memory_save: { content: 'The API is deployed with docker compose from deploy/.' },
  memory_search: { query: 'deploy', limit: 5 },
  memory_recall: { query: 'deploy', budget: 500 },
  memory_update: { id: ID, content: 'The API is deployed with helm.' },
  memory_forget: { id: ID },
  memory_history: { id: ID },
  skill_save: { content: 'To release: tag the commit, push the tag, wait for CI.' },
  skill_search: { query: 'release' },
  memory_for_files: { paths: ['src/app.ts', 'deploy/compose.yml'] },
  docs_search: { query: 'deploy' },
  rag_query: { query: 'deploy' },
  session_search: { query: 'deploy' },
  profile_get: {},
  profile_update: { content: 'Prefers short answers.' },
  stats: {},
  verify: {},
  export: {},
  review_list: {},
};

const OPERATIONS = operationsFor('mcp');

/** The sample with `ID` replaced by a fresh memory's id. */
async function argumentsFor(served: Served, name: string): Promise<Record<string, unknown>> {
  const sample = SAMPLES[name] ?? {};
  if (sample.id !== ID) return sample;
  const [entity] = await served.memory.memories.save(SCOPE.agentId, SCOPE.userId, { content: `Note for ${name}.` });
  return { ...sample, id: entity.id };
}

/** Arguments as a query string: a list as its key repeated. */
function queryOf(args: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

describe('http routes', function () {
  this.timeout(30_000);
  let served: Served;
  beforeEach(async () => {
    served = await serveTemp();
    await served.memory.memories.save(SCOPE.agentId, SCOPE.userId, { content: 'Deploys go out on Fridays.' });
  });
  afterEach(async () => served.close());

  it('has a sample call for every operation the server offers, and no other', () => {
    assert.deepEqual(Object.keys(SAMPLES).sort(), OPERATIONS.map((operation) => operation.name).sort());
  });

  for (const operation of OPERATIONS) {
    it(`POST /v1/${operation.name} runs it and answers its text and data`, async () => {
      const answer = await post(served, operation.name, await argumentsFor(served, operation.name));
      assert.equal(answer.status, 200, answer.text);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      const body = answer.json<{ text: unknown; data: unknown }>();
      assert.equal(typeof body.text, 'string');
      assert.ok((body.text as string).length > 0);
      assert.equal(typeof body.data, 'object');
      assert.ok(body.data !== null && !Array.isArray(body.data));
    });

    if (operation.effect === 'read') {
      it(`GET /v1/${operation.name} takes the same arguments from the query string`, async () => {
        const args = await argumentsFor(served, operation.name);
        const byGet = await request(served, `/v1/${operation.name}${queryOf(args)}`);
        assert.equal(byGet.status, 200, byGet.text);
        const byPost = await post(served, operation.name, args);
        // The same arguments give the same text, but for the time an export was made.
        const untimed = (answer: typeof byGet) => String(answer.json().text).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T');
        assert.equal(untimed(byGet), untimed(byPost));
      });
    } else {
      it(`GET /v1/${operation.name} is 405: it changes the store`, async () => {
        const answer = await request(served, `/v1/${operation.name}`);
        assert.equal(answer.status, 405);
        assert.equal(answer.headers.allow, 'POST');
        assert.equal(errorOf(answer).code, 'METHOD_NOT_ALLOWED');
      });
    }

    it(`PUT and DELETE /v1/${operation.name} are 405`, async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const answer = await request(served, `/v1/${operation.name}`, { method });
        assert.equal(answer.status, 405, method);
        assert.equal(answer.headers.allow, operation.effect === 'read' ? 'GET, POST' : 'POST');
      }
    });
  }

  it('saves through one route and finds it through another, recorded as the User-Agent that wrote it', async () => {
    const saved = await post(
      served,
      'memory_save',
      { content: 'The staging database is restored every Monday.' },
      {
        headers: { 'User-Agent': 'release-bot/2.1' },
      },
    );
    const id = (saved.json().data as { entity: { id: string } }).entity.id;
    const found = await request(served, '/v1/memory_search?query=staging+database');
    const results = (found.json().data as { results: { entity: { id: string } }[] }).results;
    assert.equal(results[0]?.entity.id, id);
    const [entry] = await served.memory.memories.history(id);
    assert.deepEqual(entry?.commit.by, { kind: 'mcp', name: 'release-bot/2.1', tool: 'memory_save' });
  });

  it('runs operations in the server’s scope, refusing an agent or user given as an argument', async () => {
    const answer = await post(served, 'memory_save', { content: 'x', agentId: 'other' });
    assert.equal(answer.status, 400);
    assert.equal(errorOf(answer).code, 'INVALID_INPUT');
    assert.match(errorOf(answer).message, /the agent and user are set by the host/);
  });

  it('maps the store’s error codes to statuses', async () => {
    const missing = await post(served, 'memory_history', { id: 'memory-nope' });
    assert.equal(missing.status, 404);
    assert.equal(errorOf(missing).code, 'NOT_FOUND');
    const invalid = await post(served, 'memory_search', { query: '' });
    assert.equal(invalid.status, 400);
    assert.equal(errorOf(invalid).code, 'INVALID_INPUT');
    assert.match(errorOf(invalid).message, /^memory_search: `query`/);
    const badId = await post(served, 'memory_forget', { id: 'a/../b' });
    assert.equal(badId.status, 400);
    // Under the body limit, over the content limit: the store's own refusal.
    const big = await post(served, 'memory_save', { content: 'x'.repeat(LIMITS.maxContentBytes + 1) });
    assert.equal(big.status, 413);
    assert.equal(errorOf(big).code, 'CONTENT_TOO_LARGE');
  });

  it('turns query values into the types the schema gives, and lets the catalogue name what does not convert', async () => {
    const limited = await request(served, '/v1/memory_search?query=deploy&limit=1');
    assert.equal(limited.status, 200);
    const notANumber = await request(served, '/v1/memory_search?query=deploy&limit=ten');
    assert.equal(notANumber.status, 400);
    assert.equal(errorOf(notANumber).message, 'memory_search: `limit` must be a number.');
    const unknown = await request(served, '/v1/memory_search?query=deploy&verbose=1');
    assert.match(errorOf(unknown).message, /unknown argument `verbose`/);
    const proto = await request(served, '/v1/memory_search?query=deploy&__proto__=x');
    assert.equal(proto.status, 400);
    assert.match(errorOf(proto).message, /__proto__/);
  });

  it('answers a route that does not exist with a JSON 404', async () => {
    for (const path of ['/v1/memory_delete_everything', '/v2/memory_search', '/', '/v1/']) {
      const answer = await request(served, path, { method: 'POST' });
      assert.equal(answer.status, 404, path);
      assert.equal(errorOf(answer).code, 'NOT_FOUND');
    }
  });

  it('answers /health without a token, and nothing else', async () => {
    const health = await request(served, '/health', { token: null });
    assert.equal(health.status, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    for (const path of ['/openapi.json', '/v1/stats', '/mcp', '/nowhere']) {
      assert.equal((await request(served, path, { token: null })).status, 401, path);
    }
  });
});
