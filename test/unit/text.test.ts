import * as assert from 'node:assert/strict';

import { entityTitle, plainMarkdown } from '../../src/core/text';
import type { Entity } from '../../src/core/types';

const entity = (content: string, more: Partial<Entity> = {}): Entity =>
  ({
    id: 'memory-1',
    type: 'memory',
    agentId: 'a',
    content,
    createdAt: '',
    updatedAt: '',
    ...more,
  }) as Entity;

// Issue #17: previews showed "## Releasing Releases are cut…" and "> This guide was last…".
describe('one-line previews of Markdown', () => {
  it('drop heading #s, blockquote >s, emphasis, inline code backticks and link targets', () => {
    assert.equal(plainMarkdown('## Releasing'), 'Releasing');
    assert.equal(plainMarkdown('> > This guide was last **updated** in `May`'), 'This guide was last updated in May');
    assert.equal(
      plainMarkdown('Use *only* __this__ _one_: [the guide](docs/guide.md)'),
      'Use only this one: the guide',
    );
    assert.equal(plainMarkdown('Run ``a `b` c`` now'), 'Run a `b` c now');
  });

  it('keep what only looks like markup: snake_case, a lone asterisk, 2 * 3 * 4', () => {
    assert.equal(plainMarkdown('set max_page_size and MIN_AGE'), 'set max_page_size and MIN_AGE');
    assert.equal(plainMarkdown('a * b'), 'a * b');
    assert.equal(plainMarkdown('2 * 3 * 4'), '2 * 3 * 4');
  });

  it('title an entity by its first plain words and give the rest without markup', () => {
    const { title, rest } = entityTitle(
      entity('> This guide was last updated\n\n## Releasing\nReleases are *cut* weekly.'),
      80,
    );
    assert.equal(title, 'This guide was last updated');
    assert.equal(rest, 'Releasing Releases are cut weekly.');
    const chunk = entity('## Releasing\nReleases are cut on `main`.', {
      type: 'knowledge',
      source: 'docs/release.md',
      headingPath: ['Guide', '`npm` releases'],
    });
    assert.deepEqual(entityTitle(chunk, 80), {
      title: 'docs/release.md › npm releases',
      rest: 'Releasing Releases are cut on main.',
    });
  });
});
