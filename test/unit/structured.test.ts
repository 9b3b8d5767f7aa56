import * as assert from 'node:assert/strict';

import { z } from 'zod';

import { packItems, packText } from '../../src/core/ai/chunking';
import { askStructured, extractJson } from '../../src/core/ai/structured';
import { FakeAi } from './fake-ai';
import { rejectsWith } from './helpers';

const schema = z.object({ items: z.array(z.object({ name: z.string(), size: z.number() })) });

describe('structured answers', () => {
  it('finds the JSON in a bare reply, a fenced block or prose', () => {
    assert.deepEqual(extractJson('{"a":1}'), { ok: true, value: { a: 1 } });
    assert.deepEqual(extractJson('Here it is:\n```json\n{"a": [1, 2]}\n```\nAnything else?'), {
      ok: true,
      value: { a: [1, 2] },
    });
    assert.deepEqual(extractJson('Sure! {"a": "x } y"} Hope that helps {.'), { ok: true, value: { a: 'x } y' } });
    const broken = extractJson('Result: {"a": 1,, }');
    assert.equal(broken.ok, false);
    assert.match(!broken.ok ? broken.problem : '', /malformed/);
    const none = extractJson('I could not find anything.');
    assert.match(!none.ok ? none.problem : '', /no JSON/);
  });

  it('retries once with what was wrong, then succeeds', async () => {
    const ai = new FakeAi(['{"items": [{"name": "a", "size": "big"}]}', '{"items": [{"name": "a", "size": 3}]}']);
    const value = await askStructured({ ai, instructions: 'List items.', format: '{"items": []}', input: 'x', schema });
    assert.deepEqual(value, { items: [{ name: 'a', size: 3 }] });
    assert.equal(ai.requests.length, 2);
    const correction = ai.lastMessage(1);
    assert.match(correction, /items\[0\]\.size|items\.0\.size/);
    assert.match(correction, /number/);
    assert.equal(ai.requests[1]![2]!.role, 'assistant', 'the retry shows the rejected answer');
  });

  it('fails with AI_INVALID_OUTPUT after the last attempt, naming the problem', async () => {
    const ai = new FakeAi(['not json at all']);
    const error = await rejectsWith(
      askStructured({ ai, instructions: 'x', format: '{}', input: 'x', schema, attempts: 3 }),
      'AI_INVALID_OUTPUT',
    );
    assert.match(error.message, /3 attempts.*no JSON/);
    assert.equal(ai.requests.length, 3);
  });

  it('is cancelled by its signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await rejectsWith(
      askStructured({
        ai: new FakeAi(['{}']),
        instructions: 'x',
        format: '{}',
        input: 'x',
        schema,
        signal: controller.signal,
      }),
      'CANCELLED',
    );
  });

  it('packs text and items within a budget, cutting only what cannot fit', () => {
    const pieces = packText(['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)], 90);
    assert.deepEqual(
      pieces.map((piece) => piece.length),
      [82, 40],
    );
    const long = packText([`${'word '.repeat(50)}`], 60);
    assert.ok(long.every((piece) => piece.length <= 60));
    assert.equal(long.join('').length, 250, 'nothing is lost');
    const { batches, oversized } = packItems([5, 50, 5, 5, 5], (n) => n, 20, 2);
    assert.deepEqual(batches, [
      [5, 5],
      [5, 5],
    ]);
    assert.deepEqual(oversized, [50]);
  });
});
