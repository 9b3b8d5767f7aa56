import * as assert from 'node:assert/strict';

import { MemoryError } from '../../src/core/errors';
import type { KnowledgeEntity, MemoryEntity, SessionEntity, SkillEntity } from '../../src/core/types';
import {
  isSyncedChunk,
  lineOfProblem,
  parseEntityDocument,
  renderEntity,
  restorableFields,
} from '../../src/extension/documents/format';

const memory: MemoryEntity = {
  id: 'memory-1',
  type: 'memory',
  agentId: 'default',
  userId: 'ana',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  content: 'We deploy on Fridays.\nNever on Mondays.',
  tags: ['deploy', 'ops'],
  category: 'decision',
};

function rejects(fn: () => unknown, pattern: RegExp): void {
  assert.throws(
    fn,
    (error: unknown) => error instanceof MemoryError && error.code === 'INVALID_INPUT' && pattern.test(error.message),
  );
}

const chunk: KnowledgeEntity = {
  id: 'knowledge-1',
  type: 'knowledge',
  agentId: 'default',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  content: '# Setup\nRun npm ci.',
  tags: [],
  source: 'docs/setup.md',
  startLine: 3,
  endLine: 4,
  chunkIndex: 0,
  sourceHash: 'abc',
};

describe('entity documents', () => {
  it('says how each document can be changed: the current version by saving, an old one or a synced chunk not at all', () => {
    assert.match(renderEntity(memory), /saving makes a new version/);
    const old = renderEntity(memory, true);
    assert.doesNotMatch(old, /saving makes a new version/);
    assert.match(old, /An old version, read-only: Restore This Version/);
    const synced = renderEntity(chunk);
    assert.match(synced, /# from docs\/setup\.md:3-4/);
    assert.match(synced, /Read-only: doc sync keeps this chunk in step with its file/);
  });

  it('tells synced chunks from knowledge a person saved with a source', () => {
    assert.equal(isSyncedChunk(chunk), true);
    assert.equal(isSyncedChunk({ ...chunk, userId: 'ana' }), false);
    assert.equal(isSyncedChunk({ ...chunk, sourceHash: undefined }), false);
    assert.equal(isSyncedChunk(memory), false);
  });

  it('round-trips: an unchanged document asks for no update', () => {
    const text = renderEntity(memory);
    assert.match(text, /^---\n# memory memory-1 · agent default · user ana/);
    assert.match(text, /category: decision/);
    assert.equal(parseEntityDocument(text, memory), null);
  });

  it('turns edits of the content and the fields into an update of only what changed', () => {
    const text = renderEntity(memory)
      .replace('category: decision', 'category: fact')
      .replace('Never on Mondays.', 'Never on Mondays or holidays.');
    assert.deepEqual(parseEntityDocument(text, memory), {
      category: 'fact',
      content: 'We deploy on Fridays.\nNever on Mondays or holidays.',
    });
    const retagged = renderEntity(memory).replace(/tags:[\s\S]*?\n---/, 'tags: [deploy]\n---');
    assert.deepEqual(parseEntityDocument(retagged, memory), { tags: ['deploy'] });
  });

  it('clears a list or map whose line was deleted, and keeps a category whose line was deleted', () => {
    const untagged = renderEntity(memory).replace(/tags:.*\n/, '');
    assert.deepEqual(parseEntityDocument(untagged, memory), { tags: [] });
    const uncategorized = renderEntity(memory).replace(/category:.*\n/, '');
    assert.equal(parseEntityDocument(uncategorized, memory), null);
  });

  it('refuses fields that cannot be edited, broken YAML, a missing front matter and sessions', () => {
    rejects(
      () => parseEntityDocument(renderEntity(memory).replace('category:', 'agentId: x\ncategory:'), memory),
      /"agentId" cannot be edited/,
    );
    rejects(
      () => parseEntityDocument(renderEntity(memory).replace('category: decision', 'category: [a'), memory),
      /not valid YAML/,
    );
    rejects(() => parseEntityDocument('just text', memory), /front matter/);
    const session: SessionEntity = {
      ...memory,
      type: 'session',
      mined: false,
      messages: [{ role: 'user', content: 'hi' }],
    } as unknown as SessionEntity;
    assert.match(renderEntity(session), /\*\*user\*\*\n\nhi/);
    rejects(() => parseEntityDocument(renderEntity(session), session), /cannot be edited/);
  });

  it('restores every editable field of an old version, and what it cited; what it did not have is cleared', () => {
    const skill: SkillEntity = { ...memory, type: 'skill', category: 'procedure', status: 'draft' };
    assert.deepEqual(restorableFields(skill), {
      content: skill.content,
      category: 'procedure',
      status: 'draft',
      tags: ['deploy', 'ops'],
      appliesTo: [],
      citations: [],
    });
    const citation = { path: 'deploy.sh', startLine: 2, endLine: 3, text: 'a\nb', hash: 'f'.repeat(64) };
    const cited: MemoryEntity = { ...memory, citations: [citation], appliesTo: ['deploy/**'] };
    assert.deepEqual(restorableFields(cited), {
      content: memory.content,
      category: memory.category,
      tags: memory.tags,
      appliesTo: ['deploy/**'],
      citations: [citation],
    });
  });

  it('shows what a memory cites as read-only header lines and its appliesTo globs as an editable field', () => {
    const citation = {
      path: 'src/app.ts',
      startLine: 10,
      endLine: 24,
      text: 'x',
      hash: 'f'.repeat(64),
      symbol: 'App.run',
    };
    const cited: MemoryEntity = {
      ...memory,
      citations: [citation, { ...citation, startLine: 3, endLine: 3, symbol: undefined }],
    };
    const text = renderEntity({ ...cited, appliesTo: ['src/**/*.ts'] });
    assert.match(text, /^# cites src\/app\.ts:10-24 \(App\.run\)$/m);
    assert.match(text, /^# cites src\/app\.ts:3$/m);
    assert.match(text, /^appliesTo: \[src\/\*\*\/\*\.ts\]$/m);
    // The globs are edited like tags: changed, added, or cleared by deleting the line.
    assert.deepEqual(
      parseEntityDocument(text.replace('[src/**/*.ts]', '["src/**/*.tsx"]'), { ...cited, appliesTo: ['src/**/*.ts'] }),
      {
        appliesTo: ['src/**/*.tsx'],
      },
    );
    assert.deepEqual(parseEntityDocument(renderEntity(cited).replace('---\n', '---\nappliesTo: ["*.md"]\n'), cited), {
      appliesTo: ['*.md'],
    });
    assert.deepEqual(
      parseEntityDocument(text.replace(/^appliesTo:.*\n/m, ''), { ...cited, appliesTo: ['src/**/*.ts'] }),
      { appliesTo: [] },
    );
  });

  it('finds the line a refused save is about, for the mark in the editor', () => {
    const text = renderEntity(memory);
    const lines = text.split('\n');
    const category = lines.findIndex((l) => l.startsWith('category:'));
    const tags = lines.findIndex((l) => l.startsWith('tags:'));
    assert.ok(category > 0 && tags > 0);
    assert.equal(lineOfProblem(text, 'memory', 'Invalid memory: category: Invalid option'), category);
    assert.equal(lineOfProblem(text, 'memory', 'A tag is longer than 100 characters.'), tags);
    assert.equal(lineOfProblem(text, 'memory', 'The content is empty.'), lines.indexOf('---', 1) + 1);
    assert.equal(lineOfProblem(text, 'memory', 'The store is busy.'), 0);
  });

  it('names the file line of broken YAML, without the parser’s dangling colon, and marks that line', () => {
    const text = renderEntity(memory).replace('tags: [deploy, ops]', 'tags: [deploy, ops]\ncategory: fact');
    const lines = text.split('\n');
    const duplicate = lines.lastIndexOf('category: fact');
    try {
      parseEntityDocument(text, memory);
      assert.fail('refused');
    } catch (error) {
      assert.ok(error instanceof MemoryError);
      assert.match(error.message, new RegExp(`at line ${duplicate + 1}, column 1\\.$`));
      assert.equal(lineOfProblem(text, 'memory', error.message), duplicate);
    }
  });
});
