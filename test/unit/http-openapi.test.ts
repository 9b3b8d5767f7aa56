import * as assert from 'node:assert/strict';

import { jsonSchemaOf, operationsFor } from '../../src/core/operations';
import { request, type Served, serveTemp } from './http-fixture';

type Json = Record<string, unknown>;

/** Every `$ref` anywhere in `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === '$ref' && typeof item === 'string' ? [item] : refsIn(item),
  );
}

/** What a local `$ref` (#/a/b) points at, or undefined. */
function resolve(document: Json, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'delete', 'patch', 'head', 'options']);

describe('http openapi', function () {
  this.timeout(30_000);
  let served: Served;
  let document: Json;
  before(async () => {
    served = await serveTemp();
    const answer = await request(served, '/openapi.json');
    assert.equal(answer.status, 200);
    document = answer.json();
  });
  after(async () => served.close());

  it('is an OpenAPI 3.1 document with bearer security', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.equal((document.info as Json).version, '0.0.0-test');
    assert.equal(typeof (document.info as Json).title, 'string');
    assert.deepEqual(document.security, [{ bearer: [] }]);
    const schemes = (document.components as { securitySchemes: Json }).securitySchemes;
    assert.deepEqual(
      { ...(schemes.bearer as Json), description: undefined },
      {
        type: 'http',
        scheme: 'bearer',
        description: undefined,
      },
    );
    // /health is the one route without the token.
    const paths = document.paths as Record<string, Record<string, Json>>;
    assert.deepEqual(paths['/health']?.get?.security, []);
  });

  it('covers every operation the server offers: POST, and GET for the read-only ones', () => {
    const paths = document.paths as Record<string, Record<string, Json>>;
    const operations = operationsFor('mcp');
    assert.deepEqual(
      Object.keys(paths)
        .filter((path) => path.startsWith('/v1/'))
        .sort(),
      operations.map((operation) => `/v1/${operation.name}`).sort(),
    );
    for (const operation of operations) {
      const item = paths[`/v1/${operation.name}`] ?? {};
      assert.deepEqual(
        Object.keys(item).sort(),
        operation.effect === 'read' ? ['get', 'post'] : ['post'],
        operation.name,
      );
      assert.equal(item.post?.summary, operation.title);
      assert.equal(item.post?.description, operation.description);
    }
  });

  it('describes each operation’s arguments as the MCP tools do', () => {
    const paths = document.paths as Record<string, Record<string, Json>>;
    for (const operation of operationsFor('mcp')) {
      const item = paths[`/v1/${operation.name}`] ?? {};
      const body = item.post?.requestBody as { required: boolean; content: { 'application/json': { schema: Json } } };
      const schema = body.content['application/json'].schema;
      const tool = jsonSchemaOf(operation);
      assert.equal(schema.type, 'object', operation.name);
      assert.equal(schema.$schema, undefined);
      assert.deepEqual(Object.keys(schema.properties as Json), Object.keys(tool.properties as Json), operation.name);
      assert.deepEqual(schema.required, tool.required, operation.name);
      assert.equal(schema.additionalProperties, false, operation.name);
      assert.equal(body.required, Array.isArray(tool.required) && tool.required.length > 0, operation.name);
      if (item.get) {
        const parameters = item.get.parameters as { name: string; in: string; required: boolean }[];
        assert.deepEqual(
          parameters.map((parameter) => parameter.name),
          Object.keys(tool.properties as Json),
        );
        const required = new Set((tool.required ?? []) as string[]);
        for (const parameter of parameters) {
          assert.equal(parameter.in, 'query');
          assert.equal(parameter.required, required.has(parameter.name), `${operation.name} ${parameter.name}`);
        }
      }
    }
  });

  it('has unique operation ids, answers for every operation and only references what it defines', () => {
    const ids: string[] = [];
    for (const item of Object.values(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        assert.ok(HTTP_METHODS.has(method), method);
        ids.push(String(operation.operationId));
        assert.ok(Object.keys(operation.responses as Json).length > 0);
      }
    }
    assert.equal(new Set(ids).size, ids.length);
    const refs = refsIn(document);
    assert.ok(refs.length > 0);
    for (const ref of refs) assert.notEqual(resolve(document, ref), undefined, ref);
  });

  it('lists only routes the server answers', async () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const method of Object.keys(item)) {
        if (path === '/mcp') continue;
        const answer = await request(served, path, { method: method.toUpperCase() });
        assert.notEqual(answer.status, 404, `${method} ${path}`);
        assert.notEqual(answer.status, 405, `${method} ${path}`);
      }
    }
  });
});
