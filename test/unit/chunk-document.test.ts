import * as assert from 'node:assert/strict';

import type { KnowledgeEntity } from '../../src/core/types';
import { parseEntityDocument, renderEntity } from '../../src/extension/documents/format';

/** A chunk as document sync stores it: the file's title, no tags, its place in the file. */
const chunk: KnowledgeEntity = {
  id: 'knowledge-mx59y0zbd5f52b091bb8',
  type: 'knowledge',
  agentId: 'default',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  content: '## Configuration\n\nEverything comes from the environment.',
  tags: [],
  title: 'Architecture',
  source: 'workspace/docs/architecture.md',
  headingPath: ['Architecture', 'Configuration'],
  startLine: 39,
  endLine: 42,
  chunkIndex: 4,
  sourceHash: 'd5ba83',
};

describe('a synced chunk as a document', () => {
  it('opens with its file, lines and headings, not its id', () => {
    const [, first, second] = renderEntity(chunk).split('\n');
    assert.equal(first, '# from workspace/docs/architecture.md:39-42, under Architecture › Configuration');
    assert.equal(second, '# knowledge knowledge-mx59y0zbd5f52b091bb8 · agent default');
  });

  it("shows no raw fields: not the file's title as its own, nor empty lists", () => {
    const text = renderEntity(chunk);
    assert.doesNotMatch(text, /^title:/m);
    assert.doesNotMatch(text, /^tags:/m);
    assert.match(renderEntity({ ...chunk, tags: ['ops'] }), /^tags: \[ops\]$/m);
  });

  it('keeps knowledge a person saved with a source as it was: id first, every field', () => {
    const saved = { ...chunk, sourceHash: undefined, userId: 'ana' };
    const lines = renderEntity(saved).split('\n');
    assert.equal(lines[1], '# knowledge knowledge-mx59y0zbd5f52b091bb8 · agent default · user ana');
    assert.equal(lines[2], '# from workspace/docs/architecture.md:39-42, under Architecture › Configuration');
    assert.ok(lines.includes('title: Architecture'));
    assert.equal(parseEntityDocument(renderEntity(saved), saved), null);
  });
});
