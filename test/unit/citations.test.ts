import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { anchorCitation, checkCitation, MAX_CITED_LINES, type WorkspaceFolder } from '../../src/core/anchors/citations';
import { MemoryError } from '../../src/core/errors';
import { tempDir } from './helpers';

const CODE = [
  'export function retry(times: number) {',
  '  for (let i = 0; i < times; i++) {',
  '    attempt();',
  '  }',
  '}',
];

describe('citations: memories anchored to lines of code', () => {
  let root: string;
  let folders: WorkspaceFolder[];
  const write = (relative: string, lines: string[]) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), `${lines.join('\n')}\n`);
  };
  const refused = (fn: () => unknown, message: RegExp) =>
    assert.throws(
      fn,
      (error: unknown) => error instanceof MemoryError && error.code === 'INVALID_INPUT' && message.test(error.message),
    );

  beforeEach(() => {
    root = tempDir('wm-cite-');
    folders = [{ name: 'app', path: root }];
    write('src/retry.ts', ['// header', ...CODE]);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('keeps the cited lines and a hash of them', () => {
    const citation = anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6 });
    assert.equal(citation.text, CODE.join('\n'));
    assert.match(citation.hash, /^[0-9a-f]{64}$/);
    assert.deepEqual(checkCitation(folders, citation), { state: 'valid' });
  });

  it('keeps at most 40 lines of text but hashes the whole range', () => {
    write(
      'long.ts',
      Array.from({ length: 100 }, (_, i) => `line ${i}`),
    );
    const citation = anchorCitation(folders, { path: 'long.ts', startLine: 1, endLine: 100 });
    assert.equal(citation.text.split('\n').length, MAX_CITED_LINES);
    write('long.ts', [...Array.from({ length: 99 }, (_, i) => `line ${i}`), 'line 99 changed']);
    assert.equal(checkCitation(folders, citation).state, 'changed', 'a change past the kept text still counts');
  });

  it('refuses a path outside the workspace, a missing file and a range beyond the file, each saying which', () => {
    refused(() => anchorCitation(folders, { path: '../etc/passwd', startLine: 1, endLine: 1 }), /inside the workspace/);
    refused(() => anchorCitation(folders, { path: '/etc/passwd', startLine: 1, endLine: 1 }), /inside the workspace/);
    refused(() => anchorCitation(folders, { path: 'src/nope.ts', startLine: 1, endLine: 1 }), /not a text file/);
    refused(
      () => anchorCitation(folders, { path: 'src/retry.ts', startLine: 5, endLine: 9 }),
      /beyond the end of src\/retry.ts \(6 lines\)/,
    );
    refused(() => anchorCitation(folders, { path: 'src/retry.ts', startLine: 3, endLine: 2 }), /whole numbers from 1/);
    refused(() => anchorCitation(folders, { path: 'src/retry.ts', startLine: 0, endLine: 2 }), /whole numbers from 1/);
  });

  it('refuses a link that leads out of the workspace folder', () => {
    const outside = tempDir('wm-outside-');
    try {
      fs.writeFileSync(path.join(outside, 'secret.ts'), 'secret\n');
      fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'link.ts'));
      refused(() => anchorCitation(folders, { path: 'link.ts', startLine: 1, endLine: 1 }), /leads outside/);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('names the folder first in a multi-root workspace', () => {
    const other = tempDir('wm-cite-other-');
    try {
      fs.writeFileSync(path.join(other, 'notes.md'), 'one\ntwo\n');
      const two = [...folders, { name: 'docs', path: other }];
      assert.equal(anchorCitation(two, { path: 'docs/notes.md', startLine: 2, endLine: 2 }).text, 'two');
      refused(
        () => anchorCitation(two, { path: 'notes.md', startLine: 1, endLine: 1 }),
        /workspace folder's name \(app, docs\)/,
      );
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('finds lines that moved, nearest first, and ignores a change of indentation only', () => {
    const citation = anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6 });
    write('src/retry.ts', [
      '// header',
      'import { attempt } from "./attempt";',
      '',
      ...CODE.map((line) => `  ${line}`),
    ]);
    assert.deepEqual(checkCitation(folders, citation), {
      state: 'moved',
      moved: { ...citation, startLine: 4, endLine: 8 },
    });
  });

  it('says changed when the lines say something else, and missing when the file is gone', () => {
    const citation = anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6 });
    write('src/retry.ts', ['// header', ...CODE.map((line) => line.replace('attempt()', 'attempt(i)'))]);
    assert.deepEqual(checkCitation(folders, citation), { state: 'changed' });
    fs.rmSync(path.join(root, 'src/retry.ts'));
    assert.deepEqual(checkCitation(folders, citation), { state: 'missing' });
    write('src/retry.ts', ['// header']);
    assert.deepEqual(checkCitation(folders, citation), { state: 'changed' }, 'a file cut short has changed');
  });
});
