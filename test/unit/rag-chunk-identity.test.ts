import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Memory } from '../../src/core/memory';
import { planChunks, type StoredChunk } from '../../src/core/rag/chunk-matching';
import type { KnowledgeEntity, KnowledgeInput } from '../../src/core/types';
import { openTemp, tempDir } from './helpers';

/** A Markdown file of one chunk per section: sections never share a chunk. */
const sections = (names: string[]): string =>
  names.map((name) => `## ${name}\n\nThe ${name} section says something about ${name}.\n`).join('\n');

describe('rag: chunks keep their identity across edits', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let docs: string;
  const file = () => path.join(docs, 'guide.md');
  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    docs = tempDir('wm-docs-');
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  const chunks = async (): Promise<KnowledgeEntity[]> =>
    (await memory.knowledge.list('a')).sort((a, b) => (a.chunkIndex ?? 0) - (b.chunkIndex ?? 0));
  const byHeading = async () => new Map((await chunks()).map((chunk) => [chunk.headingPath?.[0] ?? '', chunk]));
  const versions = async (id: string) => (await memory.history(id)).length;

  it('an edit at the end makes a version of the edited chunk only; the others keep theirs', async () => {
    fs.writeFileSync(file(), sections(['alpha', 'beta', 'gamma', 'delta']));
    await memory.rag.sync(docs, 'a');
    const before = await byHeading();
    fs.appendFileSync(file(), 'One more line of delta.\n');
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.chunks, { added: 0, updated: 1, removed: 0 });
    const after = await byHeading();
    for (const name of ['alpha', 'beta', 'gamma']) {
      assert.equal(await versions(after.get(name)!.id), 1, name);
      assert.deepEqual(after.get(name), before.get(name), `${name} is untouched`);
    }
    assert.equal(after.get('delta')!.id, before.get('delta')!.id);
    assert.equal(await versions(after.get('delta')!.id), 2);
    assert.notEqual(
      after.get('delta')!.sourceHash,
      before.get('delta')!.sourceHash,
      'the new version records the new file',
    );
  });

  it('a section inserted in the middle is added; the chunks after it keep their ids, with the new places and lines', async () => {
    fs.writeFileSync(file(), sections(['alpha', 'beta', 'gamma', 'delta']));
    await memory.rag.sync(docs, 'a');
    const before = await byHeading();
    fs.writeFileSync(file(), sections(['alpha', 'beta', 'inserted', 'gamma', 'delta']));
    const report = await memory.rag.sync(docs, 'a');
    // Moved chunks get a version (their place and lines are part of what they say), but none is rewritten with another's text.
    assert.deepEqual(report.chunks, { added: 1, updated: 2, removed: 0 });
    const after = await chunks();
    assert.deepEqual(
      after.map((chunk) => [chunk.chunkIndex, chunk.headingPath?.[0]]),
      [
        [0, 'alpha'],
        [1, 'beta'],
        [2, 'inserted'],
        [3, 'gamma'],
        [4, 'delta'],
      ],
    );
    for (const name of ['alpha', 'beta', 'gamma', 'delta']) {
      const chunk = after.find((entity) => entity.headingPath?.[0] === name)!;
      assert.equal(chunk.id, before.get(name)!.id, `${name} keeps its id`);
      const history = await memory.history(chunk.id);
      assert.ok(history.length <= 2, name);
      // Every version of the chunk held the same section.
      for (const entry of history) assert.match(entry.entity?.content ?? '', new RegExp(`## ${name}`));
    }
    const gamma = after.find((entity) => entity.headingPath?.[0] === 'gamma')!;
    assert.equal(
      fs.readFileSync(file(), 'utf8').split('\n')[gamma.startLine! - 1],
      '## gamma',
      'lines follow the move',
    );
  });

  it('a section removed from the middle deletes its chunk; the others keep their ids and one chunk per place', async () => {
    fs.writeFileSync(file(), sections(['alpha', 'beta', 'gamma', 'delta']));
    await memory.rag.sync(docs, 'a');
    const before = await byHeading();
    fs.writeFileSync(file(), sections(['alpha', 'gamma', 'delta']));
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.chunks, { added: 0, updated: 2, removed: 1 });
    const after = await chunks();
    assert.deepEqual(
      after.map((chunk) => [chunk.chunkIndex, chunk.id]),
      ['alpha', 'gamma', 'delta'].map((name, index) => [index, before.get(name)!.id]),
    );
    assert.equal(await memory.get(before.get('beta')!.id), null);
  });
});

describe('planChunks', () => {
  const input = (index: number, content: string): KnowledgeInput => ({
    content,
    source: 'doc.md',
    chunkIndex: index,
    startLine: index * 10 + 1,
    endLine: index * 10 + 5,
    sourceHash: 'new',
  });
  const stored = (id: string, index: number, content: string, sourceHash = 'old'): StoredChunk => ({
    id,
    fields: { ...input(index, content), sourceHash },
  });

  it('keeps a chunk that says the same at the same place, whatever the file hash', () => {
    const plan = planChunks([stored('k-a', 0, 'a'), stored('k-b', 1, 'b')], [input(0, 'a'), input(1, 'B')]);
    assert.equal(plan.unchanged, 1);
    assert.deepEqual(plan.updates, [{ id: 'k-b', input: input(1, 'B') }]);
    assert.deepEqual([plan.added, plan.removed], [[], []]);
  });

  it('matches repeated texts in order, and pairs the rest in document order', () => {
    const plan = planChunks(
      [stored('k-0', 0, 'same'), stored('k-1', 1, 'old'), stored('k-2', 2, 'same'), stored('k-3', 3, 'gone')],
      [input(0, 'same'), input(1, 'edited'), input(2, 'same')],
    );
    assert.equal(plan.unchanged, 2);
    assert.deepEqual(plan.updates, [{ id: 'k-1', input: input(1, 'edited') }]);
    assert.deepEqual(plan.removed, ['k-3']);
    assert.deepEqual(plan.added, []);
  });

  it('orders moves so that no place is taken before it is freed: down the document from the end, up from the top', () => {
    const down = planChunks(
      [stored('k-a', 0, 'a'), stored('k-b', 1, 'b'), stored('k-c', 2, 'c')],
      [input(0, 'new'), input(1, 'a'), input(2, 'b'), input(3, 'c')],
    );
    assert.deepEqual(
      down.updates.map((update) => update.id),
      ['k-c', 'k-b', 'k-a'],
    );
    assert.deepEqual(down.added, [input(0, 'new')]);
    const up = planChunks(
      [stored('k-a', 0, 'a'), stored('k-b', 1, 'b'), stored('k-c', 2, 'c')],
      [input(0, 'b'), input(1, 'c')],
    );
    assert.deepEqual(
      up.updates.map((update) => update.id),
      ['k-b', 'k-c'],
    );
    assert.deepEqual(up.removed, ['k-a']);
  });
});
