import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { mineSession, planMining } from '../../src/core/ai/mining';
import type { WorkspaceFolder } from '../../src/core/anchors/workspace-paths';
import type { Memory } from '../../src/core/memory';
import type { CitationRequest } from '../../src/core/types';
import { FakeAi, json } from './fake-ai';
import { openTemp, tempDir } from './helpers';

/** The cited file: ten numbered lines. */
const LINES = Array.from({ length: 10 }, (_, i) => `export const STEP_${i + 1} = ${i + 1};`);

const answer = (memories: { content: string; citations?: CitationRequest[] }[], skills: typeof memories = []) =>
  json({
    memories: memories.map((item) => ({ category: 'fact', tags: ['steps'], ...item })),
    skills: skills.map((item) => ({ category: 'procedure', tags: ['steps'], ...item })),
  });

describe('mining: citations', () => {
  let root: string;
  let folders: WorkspaceFolder[];
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    root = tempDir('wm-mine-cite-');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'steps.ts'), `${LINES.join('\n')}\n`);
    folders = [{ name: 'app', path: root }];
    ({ memory, cleanup } = await openTemp({ review: 'immediate', workspaceFolders: folders }));
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const session = async (messages = 2) => {
    const [entity] = await memory.sessions.save('a', 'u', {
      messages: Array.from({ length: messages }, (_, i) => ({
        role: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `Message ${i}: src/steps.ts lines 3-4 define the third and fourth steps of the harbour release.`,
      })),
    });
    return entity.id;
  };

  it('asks the model to cite only files and lines that appeared in the conversation', async () => {
    const ai = new FakeAi([answer([])]);
    await mineSession(memory, ai, await session(), { workspaceFolders: folders });
    assert.match(ai.requests[0]![0]!.content, /Cite only files and lines that appear in the conversation/);
    assert.match(ai.requests[0]![0]!.content, /"citations": \[\{ "path"/, 'the format shows where citations go');
  });

  it('keeps a citation that anchors, with its lines, and drops a missing file and a range beyond the end, saving the memory', async () => {
    const ai = new FakeAi([
      answer([
        {
          content: 'The third and fourth release steps are defined together in src/steps.ts.',
          citations: [
            { path: 'src/steps.ts', startLine: 3, endLine: 4 },
            { path: 'src/missing.ts', startLine: 1, endLine: 2 },
            { path: 'src/steps.ts', startLine: 9, endLine: 12 },
          ],
        },
      ]),
    ]);
    const report = await mineSession(memory, ai, await session(), { workspaceFolders: folders });

    assert.equal(report.created.length, 1, JSON.stringify(report.skipped));
    assert.equal(report.droppedCitations, 2);
    const saved = await memory.memories.get(report.created[0]!.id);
    assert.equal(saved?.citations?.length, 1);
    const [cited] = saved?.citations ?? [];
    assert.deepEqual([cited?.path, cited?.startLine, cited?.endLine], ['src/steps.ts', 3, 4]);
    assert.equal(cited?.text, LINES.slice(2, 4).join('\n'), 'anchored: the lines as they are now');
    assert.match(cited?.hash ?? '', /^[0-9a-f]{64}$/);
    assert.equal(report.markedMined, true, 'a dropped citation is no failed write');
  });

  it('without folders to check against, writes the citations the store anchors, for memories and skills', async () => {
    const citations = [{ path: 'src/steps.ts', startLine: 3, endLine: 4 }];
    const ai = new FakeAi([
      answer(
        [{ content: 'The third and fourth release steps are defined together in src/steps.ts.', citations }],
        [{ content: 'To add a release step: append a STEP_ constant to src/steps.ts.', citations }],
      ),
    ]);
    const report = await mineSession(memory, ai, await session());

    assert.equal(report.droppedCitations, 0);
    const [mined] = await memory.memories.list('a', 'u');
    const [skill] = await memory.skills.list('a');
    assert.equal(mined?.citations?.[0]?.text, LINES.slice(2, 4).join('\n'));
    assert.equal(skill?.citations?.[0]?.text, LINES.slice(2, 4).join('\n'));
  });

  it('without folders to check against, a citation the store refuses drops those of its item, never the item', async () => {
    const ai = new FakeAi([
      answer([
        {
          content: 'The third and fourth release steps are defined together in src/steps.ts.',
          citations: [
            { path: 'src/steps.ts', startLine: 3, endLine: 4 },
            { path: 'src/steps.ts', startLine: 9, endLine: 12 },
          ],
        },
      ]),
    ]);
    const report = await mineSession(memory, ai, await session());

    assert.equal(report.created.length, 1, JSON.stringify(report.skipped));
    assert.equal(report.droppedCitations, 2);
    const saved = await memory.memories.get(report.created[0]!.id);
    assert.equal(saved?.content, 'The third and fourth release steps are defined together in src/steps.ts.');
    assert.equal(saved?.citations, undefined);
  });

  it('leaves the citations of an updated near-duplicate alone when the mined item cites nothing', async () => {
    const [stored] = await memory.memories.save('a', 'u', {
      content: 'The third and fourth release steps are defined together in src/steps.ts.',
      citations: [{ path: 'src/steps.ts', startLine: 3, endLine: 4 }],
    });
    const ai = new FakeAi([
      answer([{ content: 'Release steps three and four are defined together in src/steps.ts.' }]),
    ]);
    const report = await mineSession(memory, ai, await session(), { workspaceFolders: folders });

    assert.deepEqual(
      report.updated.map((item) => item.id),
      [stored.id],
    );
    const updated = await memory.memories.get(stored.id);
    assert.equal(updated?.content, 'Release steps three and four are defined together in src/steps.ts.');
    assert.deepEqual(updated?.citations, stored.citations);
  });

  it('folds the citations of a repeated item into the item kept, each place once', async () => {
    const content = 'The third and fourth release steps are defined together in src/steps.ts.';
    const first = { path: 'src/steps.ts', startLine: 3, endLine: 4 };
    const second = { path: './src/steps.ts', startLine: 5, endLine: 6 };
    const ai = new FakeAi([
      answer([{ content, citations: [first] }]),
      answer([{ content, citations: [{ ...first, path: './src/steps.ts' }, second] }]),
    ]);
    const plan = await planMining(memory, ai, await session(40), { maxRequestChars: 4_500 });

    assert.ok(ai.requests.length > 1, `${ai.requests.length} requests`);
    assert.equal(plan.memories.length, 1);
    assert.deepEqual(plan.memories[0]?.citations, [first, second]);
  });
});
