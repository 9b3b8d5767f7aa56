import * as assert from 'node:assert/strict';

import type { Memory } from '../../src/core/memory';
import { headingCoverage } from '../../src/core/search/headings';
import { tokenize } from '../../src/core/search/tokenizer';
import type { KnowledgeEntity } from '../../src/core/types';
import { openTemp } from './helpers';

/** A chunk of a synced document under its headings. */
const chunk = (source: string, headingPath: string[], content: string) => ({ content, source, headingPath });

describe('document search: the section a question names', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  // A match budget of 3 documents: the store's rare-word match narrows on a handful of chunks, as it does on thousands.
  beforeEach(async () => ({ memory, cleanup } = await openTemp({ scoring: { matchBudget: 3 } })));
  afterEach(async () => cleanup());

  const titles = async (query: string, limit = 3) =>
    (await memory.knowledge.search('docs', query, limit)).map((r) => r.entity.headingPath?.at(-1));

  it('is not shut out by a rarer word of the question that it does not use', async () => {
    await memory.knowledge.save(
      'docs',
      undefined,
      chunk(
        'commander/Readme.md',
        ['Options', 'Required option'],
        'You may make an option required with requiredOption(); the option must then have a value.',
      ),
    );
    // "define" is rarer than "required" and "option" together: the narrowed match alone would find only these.
    for (const name of ['es-define-property', 'define-data-property', 'define-properties']) {
      await memory.knowledge.save(
        'docs',
        undefined,
        chunk(`${name}/README.md`, ['Example'], 'Define a property with it.'),
      );
    }
    for (let i = 0; i < 4; i++) {
      await memory.knowledge.save(
        'docs',
        undefined,
        chunk(`pkg-${i}/README.md`, ['Usage'], `Pass an option ${i} when it is required.`),
      );
      await memory.knowledge.save('docs', undefined, chunk(`other-${i}/README.md`, ['Install'], `An option ${i}.`));
      await memory.knowledge.save('docs', undefined, chunk(`req-${i}/README.md`, ['API'], `It is required ${i}.`));
    }
    // The rest of a workspace's docs, which say none of the question's words.
    for (let i = 0; i < 40; i++) {
      await memory.knowledge.save('docs', undefined, chunk(`misc-${i}/README.md`, ['Notes'], `Release notes ${i}.`));
    }
    // One result: a pool as big as asked is not topped up, so only the second match can bring the section in.
    assert.deepEqual(await titles('how to define a required option', 1), ['Required option']);
  });

  it('ranks the chunk whose own heading the question says above one that says the same words in its body', async () => {
    await memory.knowledge.save(
      'docs',
      undefined,
      chunk(
        'a.md',
        ['Guide', 'Troubleshooting'],
        'Set the default value of an option: the default value of the option applies, the default value wins, and the value of the option is that default.',
      ),
    );
    await memory.knowledge.save(
      'docs',
      undefined,
      chunk('b.md', ['Guide', 'Default option value'], 'It is used when none is given for the option.'),
    );
    assert.deepEqual(await titles('default option value', 2), ['Default option value', 'Troubleshooting']);
  });

  it('measures a heading by the share of its words the question covers, and only a chunk’s own heading', () => {
    const terms = new Set(tokenize('how to define a required option'));
    const knowledge = (headingPath: string[]) => ({ type: 'knowledge', headingPath }) as unknown as KnowledgeEntity;
    assert.equal(headingCoverage(knowledge(['Options', 'Required option']), terms), 1);
    assert.equal(headingCoverage(knowledge(['Required option', 'Examples']), terms), 0, 'not an ancestor heading');
    assert.equal(headingCoverage(knowledge(['Option types and values']), terms), 1 / 3);
    assert.equal(headingCoverage(knowledge([]), terms), 0);
  });
});
