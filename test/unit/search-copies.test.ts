import * as assert from 'node:assert/strict';

import { searchEverything } from '../../src/core/collections/search-all';
import type { Memory } from '../../src/core/memory';
import { openTemp } from './helpers';

/** A chunk of a synced document, as document sync saves it. */
const chunk = (source: string, content: string, startLine = 1) => ({ content, source, startLine });

describe('identical text in several places', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  const readme = '## Required option\n\nCall `requiredOption()` to make an option mandatory.';

  it('is one result, with the other places listed, and the rest of the results still fill the limit', async () => {
    for (const folder of ['a', 'b', 'c', 'd', 'e']) {
      await memory.knowledge.save('agent', undefined, chunk(`vendor/${folder}/README.md`, readme, 12));
    }
    for (let i = 0; i < 4; i++) {
      await memory.knowledge.save('agent', undefined, chunk(`docs/options-${i}.md`, `An option ${i} may be required.`));
    }
    const results = await memory.knowledge.search('agent', 'required option', 3);
    assert.equal(results.length, 3);
    const texts = results.map((result) => result.entity.content);
    assert.equal(texts.filter((text) => text === readme).length, 1, 'the README once');
    const [first] = results.filter((result) => result.entity.content === readme);
    assert.deepEqual(
      [...(first!.copies ?? []), `${first!.entity.source}:12`].sort(),
      ['a', 'b', 'c', 'd', 'e'].map((folder) => `vendor/${folder}/README.md:12`),
    );
    assert.ok(results.filter((result) => result.entity.content !== readme).every((result) => !result.copies));
  });

  it('is said once in recall, with its copies on its source line', async () => {
    for (const folder of ['a', 'b']) {
      await memory.knowledge.save('agent', undefined, chunk(`vendor/${folder}/README.md`, readme, 12));
    }
    const result = await memory.recall('agent', undefined, 'required option');
    assert.equal(result.items.length, 1);
    assert.equal(result.formatted.split('requiredOption()').length, 2);
    assert.match(result.formatted, /from `vendor\/[ab]\/README\.md:12` · also in `vendor\/[ab]\/README\.md:12`/);
  });

  it('is not merged when only similar: memories and chunks that differ by a word stay apart', async () => {
    await memory.knowledge.save('agent', undefined, chunk('a.md', 'Deploy with docker compose up.'));
    await memory.knowledge.save('agent', undefined, chunk('b.md', 'Deploy with docker compose down.'));
    const results = await memory.knowledge.search('agent', 'docker compose deploy', 10);
    assert.equal(results.length, 2);
    assert.ok(results.every((result) => !result.copies));
  });
});

describe('searching everything at once', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  it('ranks memories, skills, chunks and turns of past conversations together, turns weighed below', async () => {
    await memory.memories.save('agent', 'u', { content: 'The invoice workers read the invoices queue.' });
    await memory.skills.save('agent', undefined, { content: 'Drain the invoices queue before a deploy.' });
    await memory.knowledge.save('agent', undefined, chunk('docs/queues.md', 'The invoices queue is on RabbitMQ.'));
    await memory.sessions.save('agent', 'u', {
      messages: [{ role: 'user', name: 'Ana', content: 'Which queue do the invoice workers read?' }],
    });
    const found = await searchEverything(memory, 'agent', 'u', 'invoices queue', 10);
    assert.deepEqual(found.map((item) => ('turn' in item ? 'turn' : item.entity.type)).sort(), [
      'knowledge',
      'memory',
      'skill',
      'turn',
    ]);
    for (let i = 1; i < found.length; i++) assert.ok(found[i - 1]!.score >= found[i]!.score, 'best first');
    const [turn] = await memory.sessions.search('agent', 'u', 'invoices queue', 1);
    const listed = found.find((item) => 'turn' in item)!;
    assert.ok(Math.abs(listed.score - turn!.score * 0.7) < 1e-9);
    const without = await searchEverything(memory, 'agent', 'u', 'invoices queue', 10, { conversations: false });
    assert.equal(without.length, 3);
  });
});
