import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { MAX_UNUSED_DAYS } from '../../src/core/trust/unused';
import { openTemp, rejectsWith, tempDir } from './helpers';

const DAY = 86_400_000;

describe('memories and skills not used lately', () => {
  /** A store whose clock the test moves: `clock.at` is now. */
  async function open() {
    const clock = { at: Date.parse('2026-01-01T00:00:00.000Z') };
    const opened = await openTemp({ now: () => new Date(clock.at) });
    return { ...opened, clock };
  }

  it('lists what nothing recalled, read or changed for N days, longest unused first, and deletes nothing', async () => {
    const { memory, cleanup, clock } = await open();
    try {
      const [old] = await memory.memories.save('a', undefined, { content: 'The staging database is called blue' });
      const [recalled] = await memory.memories.save('a', undefined, { content: 'Deploys run on Fridays' });
      const [skill] = await memory.skills.save('a', undefined, { content: '1. Rotate the keys' });
      clock.at += 10 * DAY;
      const [changed] = await memory.memories.save('a', undefined, { content: 'Logs go to Loki' });
      clock.at += 30 * DAY;
      // Recall hands "Deploys run on Fridays" to a model: it was used today.
      assert.ok(
        (await memory.recall('a', undefined, 'deploys fridays')).items.some((i) => i.entity.id === recalled.id),
      );

      const report = await memory.unused('a', undefined, 30);
      assert.deepEqual(
        report.items.map(({ entity }) => entity.id),
        [old.id, skill.id],
        'written 40 days ago and never used; the one written 30 days ago is not yet past 30 days',
      );
      assert.equal(report.total, 2);
      assert.equal(report.items[0]!.lastUsed, undefined, 'never used');
      assert.equal((await memory.unused('a', undefined, 29)).total, 3, 'at 29 days the later one is unused too');
      assert.ok(!(await memory.unused('a', undefined, 29)).items.some(({ entity }) => entity.id === recalled.id));
      assert.ok((await memory.unused('a', undefined, 29)).items.some(({ entity }) => entity.id === changed.id));

      // Used by a tool's read (the Keep action counts one too): it leaves the list, with when it was used.
      await memory.skills.incrementAccess([skill.id]);
      assert.deepEqual(
        (await memory.unused('a', undefined, 30)).items.map(({ entity }) => entity.id),
        [old.id],
      );
      clock.at += 31 * DAY;
      const later = await memory.unused('a', undefined, 30);
      assert.equal(
        later.items.find(({ entity }) => entity.id === skill.id)?.lastUsed,
        new Date(clock.at - 31 * DAY).toISOString(),
      );
      assert.equal(later.total, 4);
      assert.equal((await memory.stats()).memories, 3, 'nothing was deleted');
    } finally {
      await cleanup();
    }
  });

  it('pages, keeps to the agent and user, and leaves out deleted ones and other types', async () => {
    const { memory, cleanup, clock } = await open();
    try {
      const mine = await memory.memories.saveMany(
        Array.from({ length: 5 }, (_, i) => ({ content: `note ${i}` })).map((input) => ({
          agentId: 'a',
          userId: 'me',
          input,
        })),
      );
      await memory.memories.save('a', 'someone-else', { content: 'theirs' });
      await memory.memories.save('b', undefined, { content: 'another agent' });
      await memory.knowledge.save('a', undefined, { content: 'a document chunk' });
      const [gone] = await memory.memories.save('a', undefined, { content: 'deleted later' });
      await memory.memories.delete(gone.id);
      const [shared] = await memory.skills.saveShared({ content: '1. A shared procedure' });
      clock.at += 100 * DAY;
      const all = await memory.unused('a', 'me', 90);
      assert.equal(
        all.total,
        6,
        "five of mine and the shared skill: not someone else's, another agent's, knowledge or the deleted",
      );
      assert.ok(all.items.some(({ entity }) => entity.id === shared.id));
      const first = await memory.unused('a', 'me', 90, { limit: 4 });
      const rest = await memory.unused('a', 'me', 90, { limit: 4, offset: 4 });
      assert.deepEqual([first.items.length, rest.items.length, rest.total], [4, 2, 6]);
      assert.deepEqual(
        [...first.items, ...rest.items].map(({ entity }) => entity.id).sort(),
        [...mine.map((saved) => saved![0].id), shared.id].sort(),
      );
    } finally {
      await cleanup();
    }
  });

  it('a re-anchoring of its citations is not a use: a memory whose code only moved still goes unused', async () => {
    const root = tempDir('wm-unused-cite-');
    fs.writeFileSync(path.join(root, 'a.ts'), 'export const limit = 5;\nexport const wait = 2;\n');
    const clock = { at: Date.parse('2026-01-01T00:00:00.000Z') };
    const { memory, cleanup } = await openTemp({
      now: () => new Date(clock.at),
      workspaceFolders: [{ name: 'app', path: root }],
    });
    try {
      const [cited] = await memory.memories.save('a', undefined, {
        content: 'Five tries, two seconds apart',
        citations: [{ path: 'a.ts', startLine: 1, endLine: 2 }],
      });
      clock.at += 50 * DAY;
      fs.writeFileSync(path.join(root, 'a.ts'), '// moved\nexport const limit = 5;\nexport const wait = 2;\n');
      assert.equal((await memory.checkCitations()).reanchored, 1);
      clock.at += 50 * DAY;
      const [item] = (await memory.unused('a', undefined, 90)).items;
      assert.equal(item?.entity.id, cited.id, 'unused for 100 days, though re-anchored 50 days ago');
      assert.equal(item.lastWritten, '2026-01-01T00:00:00.000Z', 'written when it was saved');
      // Paged with the rest, in order of last use.
      const [plain] = await memory.memories.save('a', undefined, { content: 'plain' });
      clock.at += 91 * DAY;
      const both = await memory.unused('a', undefined, 90, { limit: 1 });
      assert.deepEqual([both.total, both.items[0]?.entity.id], [2, cited.id]);
      assert.equal((await memory.unused('a', undefined, 90, { limit: 1, offset: 1 })).items[0]?.entity.id, plain.id);
    } finally {
      await cleanup();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses a number of days or a page it cannot use, with the range', async () => {
    const { memory, cleanup } = await open();
    try {
      for (const days of [0, -1, 1.5, MAX_UNUSED_DAYS + 1, Number.NaN]) {
        const error = await rejectsWith(memory.unused('a', undefined, days), 'INVALID_INPUT');
        assert.match(error.message, /from 1 to 3650/);
      }
      assert.equal((await memory.unused('a', undefined, MAX_UNUSED_DAYS)).total, 0);
      await rejectsWith(memory.unused('a', undefined, 30, { limit: 0 }), 'INVALID_INPUT');
      await rejectsWith(memory.unused('a', undefined, 30, { offset: -1 }), 'INVALID_INPUT');
      await rejectsWith(memory.unused('a/b', undefined, 30), 'INVALID_ID');
    } finally {
      await cleanup();
    }
  });

  it('the CLI lists them for review and says when nothing went unused', () => {
    const dir = tempDir('wm-cli-unused-');
    const CLI = path.join(__dirname, '..', '..', 'dist', 'cli.js');
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--dir', dir], { encoding: 'utf8' });
    try {
      assert.equal(cli('init').status, 0);
      assert.equal(cli('save', 'memory', '--content', 'Fresh fact').status, 0);
      const none = cli('unused', '--days', '1');
      assert.deepEqual([none.status, none.stdout.trim()], [0, 'nothing went unused for 1 day']);
      const json = cli('unused', '--days', '1', '--json');
      assert.deepEqual(JSON.parse(json.stdout), { total: 0, items: [] });
      const bad = cli('unused', '--days', '0');
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /from 1 to 3650\. \[INVALID_INPUT\]/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
