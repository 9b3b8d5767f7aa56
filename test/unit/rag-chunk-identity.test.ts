import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Memory } from '../../src/core/memory';
import { planChunks, type StoredChunk } from '../../src/core/rag/chunk-matching';
import { canonicalJson, sha256 } from '../../src/core/store/hashing';
import type { Entity, KnowledgeEntity, KnowledgeInput } from '../../src/core/types';
import { openTemp, tempDir } from './helpers';
import { rehashCommits } from './legacy-stores';

/** A Markdown file of one chunk per section: sections never share a chunk. */
const sections = (names: string[]): string =>
  names.map((name) => `## ${name}\n\nThe ${name} section says something about ${name}.\n`).join('\n');

/**
 * Turns a store into what schema 4 wrote: each chunk's place inside its
 * current version (a new object, its commit re-hashed down the chain) and no
 * `refs.place` column.
 */
function makeVersion4(file: string): void {
  const db = new DatabaseSync(file);
  const placed = db
    .prepare(
      'SELECT r.id, r.place, r.object_seq, o.data FROM refs r JOIN objects o ON o.seq = r.object_seq WHERE r.place IS NOT NULL',
    )
    .all();
  for (const row of placed) {
    const data = canonicalJson({ ...JSON.parse(String(row.data)), ...JSON.parse(String(row.place)) });
    const seq = Number(
      db.prepare('INSERT INTO objects (hash, data) VALUES (?, ?)').run(sha256(data), data).lastInsertRowid,
    );
    db.prepare('UPDATE commits SET object_seq = ? WHERE entity_id = ? AND object_seq = ?').run(
      seq,
      row.id as string,
      row.object_seq as number,
    );
    db.prepare('UPDATE refs SET object_seq = ? WHERE id = ?').run(seq, row.id as string);
  }
  rehashCommits(db);
  db.exec('ALTER TABLE refs DROP COLUMN place; PRAGMA user_version = 4;');
  db.close();
}

/** A chunk read through an API that returns any entity. */
const asChunk = (entity: Entity | null | undefined): KnowledgeEntity | undefined =>
  entity?.type === 'knowledge' ? entity : undefined;

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

  it('a section inserted in the middle is added; the chunks after it keep their ids and versions, with the new places and lines', async () => {
    fs.writeFileSync(file(), sections(['alpha', 'beta', 'gamma', 'delta']));
    await memory.rag.sync(docs, 'a');
    const before = await byHeading();
    fs.writeFileSync(file(), sections(['alpha', 'beta', 'inserted', 'gamma', 'delta']));
    const report = await memory.rag.sync(docs, 'a');
    // Moved chunks keep their version: their place and lines are kept beside it (see store/place.ts).
    assert.deepEqual(report.chunks, { added: 1, updated: 0, removed: 0 });
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
      assert.equal(history.length, 1, `${name} has one version`);
      assert.equal(
        asChunk(history[0]!.entity)?.startLine,
        chunk.startLine,
        'history shows the current version where it is now',
      );
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
    assert.deepEqual(report.chunks, { added: 0, updated: 0, removed: 1 });
    const after = await chunks();
    assert.deepEqual(
      after.map((chunk) => [chunk.chunkIndex, chunk.id]),
      ['alpha', 'gamma', 'delta'].map((name, index) => [index, before.get(name)!.id]),
    );
    assert.equal(await memory.get(before.get('beta')!.id), null);
  });

  it('a line inserted at the top moves every chunk down a place and its lines, and gives none a new version', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `part${i}`);
    fs.writeFileSync(file(), sections(names));
    await memory.rag.sync(docs, 'a');
    const before = await byHeading();
    fs.writeFileSync(file(), `Draft: under review.\n\n${sections(names)}`);
    const report = await memory.rag.sync(docs, 'a');
    // The new line is a chunk of its own, before the first section.
    assert.deepEqual(report.chunks, { added: 1, updated: 0, removed: 0 });
    const lines = fs.readFileSync(file(), 'utf8').split('\n');
    const after = await byHeading();
    for (const name of names) {
      const chunk = after.get(name)!;
      assert.equal(chunk.id, before.get(name)!.id);
      assert.equal(chunk.chunkIndex, before.get(name)!.chunkIndex! + 1, `${name} moved a place down`);
      assert.equal(chunk.startLine, before.get(name)!.startLine! + 2, `${name} moved two lines down`);
      assert.equal(lines[chunk.startLine - 1], `## ${name}`, `${name}'s lines point at its heading`);
      assert.equal(await versions(chunk.id), 1, `${name} keeps its version`);
      // Everything that reads a chunk sees where it is now: get, search and export.
      assert.equal((await memory.knowledge.get(chunk.id))?.startLine, chunk.startLine);
    }
    const [hit] = await memory.knowledge.search('a', 'part7 section says');
    assert.equal(hit?.entity.startLine, after.get('part7')!.startLine);
    const exported = (await memory.export()).entities.knowledge.find((chunk) => chunk.id === after.get('part7')!.id);
    assert.equal(asChunk(exported)?.startLine, after.get('part7')!.startLine);
    assert.equal((await memory.verify()).valid, true);
  });

  it('chunks a version-4 store wrote, with their place inside, keep their version when they move after the upgrade', async () => {
    const names = ['alpha', 'beta', 'gamma'];
    fs.writeFileSync(file(), sections(names));
    await memory.rag.sync(docs, 'a');
    const before = await byHeading();
    const dir = memory.dir;
    await memory.close();
    makeVersion4(path.join(dir, 'memory.db'));
    memory = await Memory.open({ dir, author: 'test' });
    assert.equal((await memory.verify()).valid, true);
    assert.deepEqual(await byHeading(), before, 'the upgrade reads every chunk as it was');
    fs.writeFileSync(file(), `Read this first.\n\n${sections(names)}`);
    assert.deepEqual((await memory.rag.sync(docs, 'a')).chunks, { added: 1, updated: 0, removed: 0 });
    const after = await byHeading();
    for (const name of names) {
      assert.equal(await versions(after.get(name)!.id), 1, `${name} keeps its version`);
      assert.equal(after.get(name)!.startLine, before.get(name)!.startLine! + 2);
    }
    assert.equal((await memory.verify()).valid, true);
  });

  it('a chunk edited after moving gets a new version that records its place; restoring the old one keeps it where it is', async () => {
    fs.writeFileSync(file(), sections(['alpha', 'beta']));
    await memory.rag.sync(docs, 'a');
    fs.writeFileSync(file(), `Intro line.\n\n${sections(['alpha', 'beta'])}`);
    await memory.rag.sync(docs, 'a');
    fs.writeFileSync(file(), `Intro line.\n\n${sections(['alpha', 'beta'])}More on beta.\n`);
    assert.deepEqual((await memory.rag.sync(docs, 'a')).chunks, { added: 0, updated: 1, removed: 0 });
    const beta = (await byHeading()).get('beta')!;
    const lines = fs.readFileSync(file(), 'utf8').split('\n');
    assert.equal(lines[beta.startLine! - 1], '## beta');
    assert.equal(lines[beta.endLine! - 1], 'More on beta.');
    const [latest, first] = await memory.history(beta.id);
    assert.equal(asChunk(latest!.entity)?.endLine, beta.endLine);
    assert.equal(first!.entity?.content.includes('More on beta'), false);
    // What Restore This Version does in the History view.
    await memory.knowledge.update(beta.id, { content: first!.entity.content });
    const restored = (await memory.knowledge.get(beta.id))!;
    assert.equal(restored.content, first!.entity.content);
    assert.equal(restored.startLine, beta.startLine, 'the restored text stays at the place the chunk has');
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
