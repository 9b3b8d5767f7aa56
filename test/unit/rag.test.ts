import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { AiProvider, ChatMessage } from '../../src/core/ai/provider';
import type { Memory } from '../../src/core/memory';
import { openTemp, rejectsWith, tempDir } from './helpers';

function write(root: string, relative: string, text: string): void {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const SETUP = `---
title: Setup guide
---
# Setup

Install with npm ci.

## Deploy

Run make deploy to ship to kubernetes.

\`\`\`sh
make deploy
\`\`\`
`;

describe('rag', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let docs: string;
  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    docs = tempDir('wm-docs-');
    write(docs, 'setup.md', SETUP);
    write(docs, 'notes/backups.txt', 'Database backups run nightly.\n\nThey are kept for thirty days.');
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  const commits = async () => (await memory.stats()).commits;

  it('ingests documents as knowledge chunks with source, heading path, lines and file hash', async () => {
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.added, ['notes/backups.txt', 'setup.md']);
    const chunks = await memory.knowledge.list('a');
    const deploy = chunks.find((chunk) => chunk.content.includes('make deploy'));
    assert.ok(deploy);
    assert.equal(deploy.source, 'setup.md');
    assert.equal(deploy.title, 'Setup guide');
    assert.deepEqual(deploy.headingPath, ['Setup', 'Deploy']);
    assert.equal(deploy.startLine, 8, 'line numbers count the front matter');
    assert.match(deploy.sourceHash ?? '', /^[0-9a-f]{64}$/);
    const status = memory.rag.status('a');
    assert.equal(status.files, 2);
    assert.equal(status.chunks, chunks.length);
  });

  it('a second sync with nothing changed changes nothing, even after a touch', async () => {
    await memory.rag.sync(docs, 'a');
    const before = await commits();
    const again = await memory.rag.sync(docs, 'a');
    assert.equal(again.unchanged, 2);
    assert.deepEqual([again.added, again.updated, again.removed, again.renamed], [[], [], [], []]);
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(docs, 'setup.md'), future, future);
    const touched = await memory.rag.sync(docs, 'a');
    assert.equal(touched.unchanged, 2);
    assert.equal(await commits(), before, 'no new commits');
  });

  it('replaces a modified file in place, keeping each chunk history', async () => {
    await memory.rag.sync(docs, 'a');
    const [chunk] = await memory.knowledge
      .list('a')
      .then((list) => list.filter((c) => c.source === 'notes/backups.txt'));
    write(docs, 'notes/backups.txt', 'Database backups run hourly now.\n\nThey are kept for thirty days.');
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.updated, ['notes/backups.txt']);
    const history = await memory.knowledge.history(chunk!.id);
    assert.equal(history.length, 2);
    assert.match(history[0]!.entity!.content, /hourly/);
    assert.equal(
      (await memory.knowledge.search('a', 'nightly backups', 5)).some((r) => r.entity.content.includes('nightly')),
      false,
    );
  });

  it('reports progress over the whole job: reading every file, then writing every document that changed', async () => {
    const steps: string[] = [];
    const onProgress = ({
      phase,
      done,
      total,
      path: file,
    }: {
      phase: string;
      done: number;
      total: number;
      path?: string;
    }) => steps.push(`${phase} ${done}/${total} ${file}`);
    await memory.rag.sync(docs, 'a', { onProgress });
    assert.deepEqual(steps, ['reading 1/2 notes/backups.txt', 'reading 2/3 setup.md', 'writing 4/4 setup.md']);

    steps.length = 0;
    write(docs, 'notes/backups.txt', 'Database backups run hourly now.');
    fs.rmSync(path.join(docs, 'setup.md'));
    write(docs, 'new.md', '# New\n\nA new page.');
    await memory.rag.sync(docs, 'a', { onProgress });
    assert.deepEqual(steps, [
      'reading 1/2 new.md',
      'reading 2/3 notes/backups.txt',
      // The read is done; the total now counts the removal of setup.md too.
      'writing 3/5 notes/backups.txt',
      'writing 4/5 new.md',
      'writing 5/5 setup.md',
    ]);
  });

  it('counts as updated only the chunks that got a new version', async () => {
    await memory.rag.sync(docs, 'a');
    const made = await commits();
    // Chunked again with the same options: the same chunks, no versions, nothing updated.
    const report = await memory.rag.sync(docs, 'a', { rechunk: true });
    assert.deepEqual(report.chunks, { added: 0, updated: 0, removed: 0 });
    assert.equal(await commits(), made);
  });

  it('deletes the chunks of a deleted file with tombstones, and follows a rename without duplicates', async () => {
    await memory.rag.sync(docs, 'a');
    const before = await memory.knowledge.list('a');
    fs.renameSync(path.join(docs, 'notes/backups.txt'), path.join(docs, 'backups.txt'));
    const renamed = await memory.rag.sync(docs, 'a');
    assert.deepEqual(renamed.renamed, [{ from: 'notes/backups.txt', to: 'backups.txt' }]);
    const after = await memory.knowledge.list('a');
    assert.equal(after.length, before.length, 'no duplicates');
    assert.ok(after.some((chunk) => chunk.source === 'backups.txt'));
    fs.rmSync(path.join(docs, 'setup.md'));
    const removed = await memory.rag.sync(docs, 'a');
    assert.deepEqual(removed.removed, ['setup.md']);
    const gone = before.find((chunk) => chunk.source === 'setup.md')!;
    assert.equal(await memory.knowledge.get(gone.id), null);
    assert.equal((await memory.knowledge.history(gone.id))[0]?.commit.op, 'delete');
    assert.equal(memory.rag.status('a').files, 1);
    assert.equal((await memory.verify()).valid, true);
  });

  it('removes every deleted file even when several had the same content', async () => {
    write(docs, 'a.md', '# Zebra\n\nStripes.');
    write(docs, 'b.md', '# Zebra\n\nStripes.');
    await memory.rag.sync(docs, 'a');
    fs.rmSync(path.join(docs, 'a.md'));
    fs.rmSync(path.join(docs, 'b.md'));
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.removed, ['a.md', 'b.md']);
    assert.deepEqual(await memory.knowledge.search('a', 'zebra stripes', 5), []);
  });

  it('re-adds a file whose chunks were deleted behind its back (cleanup, a hand-made delete)', async () => {
    await memory.rag.sync(docs, 'a');
    const chunks = (await memory.knowledge.list('a')).filter((chunk) => chunk.source === 'notes/backups.txt');
    await memory.knowledge.deleteMany(chunks.map((chunk) => chunk.id));
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.added, ['notes/backups.txt']);
    assert.equal((await memory.knowledge.search('a', 'nightly backups', 5)).length > 0, true);
  });

  it('ingest adds and refreshes but never removes', async () => {
    await memory.rag.ingest(docs, 'a');
    fs.rmSync(path.join(docs, 'setup.md'));
    const report = await memory.rag.ingest(docs, 'a');
    assert.deepEqual(report.removed, []);
    assert.equal(memory.rag.status('a').files, 2);
  });

  it('keeps manual knowledge with the same source alone', async () => {
    const [manual] = await memory.knowledge.save('a', undefined, { content: 'hand-written note', source: 'setup.md' });
    await memory.rag.sync(docs, 'a');
    fs.rmSync(path.join(docs, 'setup.md'));
    await memory.rag.sync(docs, 'a');
    assert.ok(await memory.knowledge.get(manual.id));
  });

  it('manual knowledge with the same source does not keep a document whose chunks were deleted from coming back', async () => {
    await memory.rag.sync(docs, 'a');
    await memory.knowledge.save('a', undefined, { content: 'hand-written note', source: 'setup.md' });
    const synced = (await memory.knowledge.list('a')).filter((chunk) => chunk.sourceHash);
    await memory.knowledge.deleteMany(synced.filter((chunk) => chunk.source === 'setup.md').map((chunk) => chunk.id));
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.added, ['setup.md']);
    assert.equal((await memory.knowledge.search('a', 'kubernetes', 5)).length, 1);
  });

  it('a document without chunks (empty) is added once, then unchanged', async () => {
    write(docs, 'empty.md', '\n\n');
    assert.ok((await memory.rag.sync(docs, 'a')).added.includes('empty.md'));
    const again = await memory.rag.sync(docs, 'a');
    assert.deepEqual(again.added, []);
    assert.equal(again.unchanged, 3);
  });

  it('a chunk saved again at its place in its document updates it: two syncs racing leave one set of chunks', async () => {
    await memory.rag.sync(docs, 'a');
    const before = await memory.knowledge.list('a');
    const made = await commits();
    // What a second process syncing the same folder at the same time writes: the same chunks, as new.
    const copies = before.filter((chunk) => chunk.sourceHash);
    await memory.knowledge.saveMany(
      copies.map(({ id: _id, type: _type, agentId, userId: _user, createdAt: _c, updatedAt: _u, ...input }) => ({
        agentId,
        input,
      })),
    );
    assert.equal((await memory.knowledge.list('a')).length, before.length);
    assert.equal(await commits(), made, 'identical chunks make no commit');
    assert.equal((await memory.knowledge.search('a', 'kubernetes', 5)).length, 1);
    // Knowledge a user saves is theirs, whatever fields it copies from a chunk.
    const [chunk] = copies;
    const [own] = await memory.knowledge.save('a', 'alice', {
      content: 'Alice private note',
      source: chunk!.source,
      chunkIndex: chunk!.chunkIndex,
      sourceHash: chunk!.sourceHash,
    });
    assert.notEqual(own.id, chunk!.id);
    assert.equal((await memory.knowledge.get(chunk!.id))?.content, chunk!.content);
    // ...and sync leaves it alone when the document changes or goes.
    const file = path.join(docs, ...chunk!.source!.split('/'));
    fs.appendFileSync(file, '\nOne more line.\n');
    await memory.rag.sync(docs, 'a');
    assert.equal((await memory.knowledge.get(own.id))?.content, 'Alice private note');
    fs.rmSync(file);
    await memory.rag.sync(docs, 'a');
    assert.equal((await memory.knowledge.get(own.id))?.content, 'Alice private note');
  });

  it('refuses to sync a lone file (it would mirror its folder), and removes nothing', async () => {
    await memory.rag.sync(docs, 'a');
    const error = await rejectsWith(memory.rag.sync(path.join(docs, 'notes', 'backups.txt'), 'a'), 'INVALID_INPUT');
    assert.match(error.message, /sync mirrors a folder.*syncFiles/);
    assert.deepEqual(
      memory.rag.status('a').documents.map((document) => document.path),
      ['notes/backups.txt', 'setup.md'],
    );
  });

  it('refuses bad chunk options before anything, and re-chunks unchanged files when asked', async () => {
    await memory.rag.sync(docs, 'a');
    await rejectsWith(memory.rag.sync(docs, 'a', { maxChars: 0 }), 'INVALID_INPUT');
    await rejectsWith(memory.rag.sync(docs, 'a', { maxChars: -5 }), 'INVALID_INPUT');
    const unchanged = await memory.rag.sync(docs, 'a', { strategy: 'fixed', maxChars: 40 });
    assert.equal(unchanged.unchanged, 2, 'new options alone do not touch unchanged files');
    const before = memory.rag.status('a').chunks;
    const rechunked = await memory.rag.sync(docs, 'a', { strategy: 'fixed', maxChars: 40, rechunk: true });
    assert.deepEqual(rechunked.updated, ['notes/backups.txt', 'setup.md']);
    assert.ok(memory.rag.status('a').chunks > before, 'smaller windows, more chunks');
    assert.deepEqual((await memory.rag.sync(docs, 'a', { strategy: 'fixed', maxChars: 40 })).updated, []);
  });

  it('keeps one chunk per place when another process wrote the same document meanwhile', async () => {
    await memory.rag.sync(docs, 'a');
    const chunks = await memory.knowledge.list('a');
    const setup = chunks.filter((chunk) => chunk.source === 'setup.md');
    const other = chunks.find((chunk) => chunk.source === 'notes/backups.txt')!;
    // What a racing sync leaves: a second chunk at a place of setup.md (a rename it followed, say).
    await memory.knowledge.update(other.id, {
      source: 'setup.md',
      chunkIndex: 0,
      sourceHash: setup[0]!.sourceHash,
      content: setup[0]!.content,
    });
    write(docs, 'setup.md', `${SETUP}\nOne more line.\n`);
    await memory.rag.sync(docs, 'a');
    const places = (await memory.knowledge.list('a'))
      .filter((chunk) => chunk.source === 'setup.md' && chunk.sourceHash)
      .map((chunk) => chunk.chunkIndex);
    assert.equal(new Set(places).size, places.length, `one chunk per place: ${places.join(', ')}`);
  });

  it('reports bad files per file and goes on with the rest', async () => {
    write(docs, 'binary.md', 'abc\u0000def');
    const report = await memory.rag.sync(docs, 'a');
    assert.deepEqual(report.added, ['notes/backups.txt', 'setup.md']);
    assert.ok(report.skipped.some((file) => file.path.endsWith('binary.md') && /binary/i.test(file.reason)));
    await rejectsWith(memory.rag.sync(path.join(docs, 'missing'), 'a'), 'NOT_FOUND');
    await rejectsWith(memory.rag.sync(docs, 'bad/agent'), 'INVALID_ID');
  });

  it('can be cancelled, and the next sync finishes the job', async () => {
    for (let i = 0; i < 30; i++) write(docs, `many/file-${i}.md`, `# File ${i}\n\nText number ${i}.`);
    const controller = new AbortController();
    const report = await memory.rag.sync(docs, 'a', {
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done === 5) controller.abort();
      },
    });
    assert.equal(report.cancelled, true);
    assert.equal(report.removed.length, 0);
    const rest = await memory.rag.sync(docs, 'a');
    assert.equal(memory.rag.status('a').files, 32);
    assert.ok(rest.added.length >= 27);
  });

  it('answers queries with ranked chunks, citations and, given a model, a grounded answer', async () => {
    await memory.rag.sync(docs, 'a');
    const plain = await memory.rag.query('a', 'how do I deploy to kubernetes?');
    assert.equal(plain.chunks[0]?.citation, 'setup.md:8');
    // For a model: the notice, then each chunk quoted under its number and place.
    assert.match(
      plain.context,
      /^Stored notes from Workspace Memory.*\n\n\[1\] knowledge `[^`]+` · from `setup\.md:8` under `Setup › Deploy`/,
    );
    assert.equal(plain.answer, undefined);
    const seen: ChatMessage[][] = [];
    const ai: AiProvider = {
      chat: (messages) => {
        seen.push([...messages]);
        return Promise.resolve('Run make deploy [1] setup.md:8.');
      },
    };
    const answered = await memory.rag.query('a', 'how do I deploy to kubernetes?', { ai });
    assert.equal(answered.answer, 'Run make deploy [1] setup.md:8.');
    assert.match(seen[0]![1]!.content, /setup\.md:8/);
    assert.match(seen[0]![0]!.content, /only the numbered sources/);
    const nothing = await memory.rag.query('a', 'quantum chromodynamics', { ai });
    assert.equal(nothing.chunks.length, 0);
    assert.equal(seen.length, 1, 'no model call without sources');
  });
});
