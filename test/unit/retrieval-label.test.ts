import * as assert from 'node:assert/strict';

import { documentFor } from '../../src/core/search/documents';
import { openTemp } from './helpers';

const memoryDoc = (content: string) => documentFor({ type: 'memory', agentId: 'a', content })!;

describe('retrieval: a leading label is indexed as metadata', () => {
  it('moves a label of one to three capitalised words and a colon from the content to the metadata', () => {
    const turn = memoryDoc('Caroline: I went to the support group');
    assert.deepEqual(turn.meta, ['carolin']);
    assert.deepEqual(turn.content, ['went', 'support', 'group']);
    const longer = memoryDoc('  Team Lead Anna: ship it on Friday');
    assert.deepEqual(longer.meta, ['team', 'lead', 'anna']);
    assert.deepEqual(longer.content, ['ship', 'fridai']);
  });

  it('leaves a text that does not open with such a label as it is', () => {
    for (const content of [
      'note: lowercase is not a label',
      'One Two Three Four: too many words',
      'Caroline:no space after the colon',
      'https://example.com is down',
      '10:30 standup',
      'The build failed. Cause: a missing file',
    ]) {
      assert.deepEqual(memoryDoc(content).meta, [], content);
    }
    assert.ok(memoryDoc('Caroline:no space after the colon').content.includes('carolin'));
    assert.ok(memoryDoc('The build failed. Cause: a missing file').content.includes('caus'));
  });

  it("ranks a speaker's own message above another's that only names the speaker", async () => {
    const { memory, cleanup } = await openTemp();
    try {
      // The same number of terms each: only where "Melanie" stands differs.
      const [own] = await memory.memories.save('a', undefined, {
        content: 'Melanie: the pottery class starts on Monday morning',
      });
      const [named] = await memory.memories.save('a', undefined, {
        content: 'Caroline: Melanie, the pottery class starts on Monday',
      });
      const results = await memory.memories.search('a', undefined, 'Melanie pottery class', 10, { explain: true });
      assert.deepEqual(
        results.map((result) => result.entity.id),
        [own.id, named.id],
      );
      assert.ok(results[0]!.explain!.bm25 > results[1]!.explain!.bm25);
    } finally {
      await cleanup();
    }
  });
});
