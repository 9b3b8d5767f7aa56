import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { anchorAll, anchorCitation, checkCitation } from '../../src/core/anchors/citations';
import type { WorkspaceFolder } from '../../src/core/anchors/workspace-paths';
import { MemoryError } from '../../src/core/errors';
import { runOperation } from '../../src/core/operations';
import { openTemp, rejectsWith, tempDir } from './helpers';

/** What an outside tester found wrong with citations, each kept fixed. */
describe('citations: what an outside attack found', () => {
  let root: string;
  let folders: WorkspaceFolder[];
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  };
  const refused = (fn: () => unknown, message: RegExp) =>
    assert.throws(
      fn,
      (error: unknown) => error instanceof MemoryError && error.code === 'INVALID_INPUT' && message.test(error.message),
    );

  beforeEach(() => {
    root = tempDir('wm-cite-attack-');
    folders = [{ name: 'app', path: root }];
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a block edited where it stands is changed, though the same lines stand elsewhere in the file', () => {
    const auth = ['def check_auth(user):', '    if user.admin:', '        return True', '        return False'];
    const billing = ['def check_billing(user):', '    if user.paid:', '        return True', '        return False'];
    write('h.py', `${[...auth, '', ...billing].join('\n')}\n`);
    const citation = anchorCitation(folders, { path: 'h.py', startLine: 3, endLine: 4 });
    write('h.py', `${[...auth.slice(0, 2), '        return user.mfa_ok()', auth[3], '', ...billing].join('\n')}\n`);
    assert.deepEqual(checkCitation(folders, citation), { state: 'changed' });
    // Moved for real (lines inserted above), the same block is found again, the nearest copy first.
    write('h.py', `${['# moved', '# down', ...auth, '', ...billing].join('\n')}\n`);
    assert.equal(checkCitation(folders, citation).moved?.startLine, 5);
  });

  it('a citation handed in whole is held to the same places: no link out, no credentials, not git’s or the store’s folder', () => {
    write('notes.txt', 'x\n');
    fs.symlinkSync('/etc/passwd', path.join(root, 'pw'));
    const whole = (where: string) => ({ path: where, startLine: 1, endLine: 1, text: 'x', hash: 'f'.repeat(64) });
    refused(() => anchorAll(folders, [whole('pw')]), /leads outside its workspace folder/);
    refused(() => anchorAll(folders, [whole('.env')]), /cannot be cited: it is a/);
    refused(() => anchorAll(folders, [whole('.git/config')]), /inside git's or the store's own folder/);
    refused(
      () => anchorAll(folders, [whole('.workspace-memory/memory.db-wal')]),
      /inside git's or the store's own folder/,
    );
    // Its file may have changed or gone since (an import, a re-anchoring): kept as given.
    assert.deepEqual(anchorAll(folders, [whole('./gone.ts')]), [whole('gone.ts')]);
    assert.deepEqual(anchorAll(folders, [whole('notes.txt')]), [whole('notes.txt')]);
  });

  it('refuses to cite git’s and the store’s files, an empty file’s line, and a file over 4 MB, saying why', () => {
    write('.git/config', '[remote "origin"]\n');
    write('empty.txt', '');
    write('big.log', `${'x'.repeat(1024)}\n`.repeat(4 * 1024 + 1));
    refused(() => anchorCitation(folders, { path: '.git/config', startLine: 1, endLine: 1 }), /git's or the store's/);
    refused(
      () => anchorCitation(folders, { path: 'empty.txt', startLine: 1, endLine: 1 }),
      /beyond the end of empty\.txt \(0 lines\)/,
    );
    refused(() => anchorCitation(folders, { path: 'big.log', startLine: 1, endLine: 1 }), /over 4 MB.*appliesTo/);
  });

  it('the same lines cited twice are kept once', () => {
    write('a.ts', 'one\ntwo\n');
    const twice = anchorAll(folders, [
      { path: 'a.ts', startLine: 1, endLine: 2 },
      { path: './a.ts', startLine: 1, endLine: 2 },
      { path: 'a.ts', startLine: 2, endLine: 2 },
    ]);
    assert.deepEqual(
      twice.map(({ path: where, startLine, endLine }) => `${where}:${startLine}-${endLine}`),
      ['a.ts:1-2', 'a.ts:2-2'],
    );
  });

  it('memory_for_files takes an absolute path inside the workspace, as MCP clients give it, and refuses one outside', async () => {
    write('src/a.ts', 'export const a = 1;\n');
    const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
    try {
      const context = { store: memory, scope: { agentId: 'a', userId: undefined } };
      await runOperation(context, 'memory_save', {
        content: 'a is one',
        citations: [{ path: 'src/a.ts', startLine: 1, endLine: 1 }],
      });
      const absolute = await runOperation(context, 'memory_for_files', { paths: [path.join(root, 'src', 'a.ts')] });
      assert.match(absolute.text, /^1 memory or skill is about/);
      const outside = await rejectsWith(
        runOperation(context, 'memory_for_files', { paths: ['/etc/passwd'] }),
        'INVALID_INPUT',
      );
      assert.match(outside.message, /\/etc\/passwd is not inside the workspace/);
      await rejectsWith(runOperation(context, 'memory_for_files', { paths: ['../x.ts'] }), 'INVALID_INPUT');
    } finally {
      await cleanup();
    }
  });

  it('memory_search and skill_search mark a memory whose cited code changed, or leave it out, as recall does', async () => {
    write('pool.ts', 'export const size = 10;\n');
    for (const staleness of ['mark', 'exclude', 'ignore'] as const) {
      const { memory, cleanup } = await openTemp({ workspaceFolders: folders, staleness });
      try {
        const context = { store: memory, scope: { agentId: 'a', userId: undefined } };
        await runOperation(context, 'memory_save', {
          content: 'The pool holds ten connections',
          citations: [{ path: 'pool.ts', startLine: 1, endLine: 1 }],
        });
        await runOperation(context, 'skill_save', {
          content: '1. Size the pool to ten connections',
          citations: [{ path: 'pool.ts', startLine: 1, endLine: 1 }],
        });
        write('pool.ts', 'export const size = 20;\n');
        for (const tool of ['memory_search', 'skill_search']) {
          const { text } = await runOperation(context, tool, { query: 'pool connections' });
          if (staleness === 'mark') assert.match(text, /\*\*May be outdated\*\*.*pool\.ts:1/s, tool);
          if (staleness === 'exclude') assert.match(text, /^No (memories|skills) match/, tool);
          if (staleness === 'ignore') assert.doesNotMatch(text, /May be outdated/, tool);
        }
        write('pool.ts', 'export const size = 10;\n');
      } finally {
        await cleanup();
      }
    }
  });

  it('the full check says which entities it re-anchored', async () => {
    write('a.ts', 'one line here\ntwo lines here\n');
    const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
    try {
      await memory.memories.save('a', undefined, {
        content: 'x',
        citations: [{ path: 'a.ts', startLine: 1, endLine: 2 }],
      });
      await memory.memories.save('a', undefined, {
        content: 'y',
        citations: [{ path: 'a.ts', startLine: 2, endLine: 2 }],
      });
      write('a.ts', 'new first line\none line here\ntwo lines here\n');
      const report = await memory.checkCitations();
      assert.deepEqual(
        report.entities.map(({ reanchored }) => reanchored),
        [true, true],
      );
      assert.deepEqual(
        (await memory.checkCitations()).entities.map(({ reanchored }) => reanchored ?? false),
        [false, false],
      );
    } finally {
      await cleanup();
    }
  });
});
