import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { appliesTo, globProblem } from '../../src/core/anchors/applies-to';
import type { WorkspaceFolder } from '../../src/core/anchors/workspace-paths';
import { runOperation } from '../../src/core/operations';
import { openTemp, rejectsWith, tempDir } from './helpers';

const ONE: WorkspaceFolder[] = [{ name: 'app', path: '/w/app' }];
const TWO: WorkspaceFolder[] = [
  { name: 'api', path: '/w/api' },
  { name: 'web', path: '/w/web' },
];

describe('appliesTo globs', () => {
  it('match workspace-relative paths the way Copilot reads applyTo: ** crosses folders, * does not', () => {
    assert.equal(appliesTo(['**/*.ts'], 'src/deep/a.ts', ONE), true);
    assert.equal(appliesTo(['**/*.ts'], 'a.ts', ONE), true, '**/ also matches the top folder');
    assert.equal(appliesTo(['*.md'], 'README.md', ONE), true);
    assert.equal(appliesTo(['*.md'], 'docs/guide.md', ONE), false, 'a * stays in its folder');
    assert.equal(appliesTo(['src/**'], 'src/.env.example', ONE), true, 'dot files are files too');
    assert.equal(appliesTo(['src/*.{js,ts}'], './src/x.js', ONE), true, 'paths are normalised first');
    assert.equal(appliesTo(['src/*.ts'], 'src/x.tsx', ONE), false);
    assert.equal(appliesTo(['SRC/**'], 'src/x.ts', ONE), false, 'case counts, as in git');
    assert.equal(appliesTo([], 'src/x.ts', ONE), false);
    assert.equal(appliesTo(undefined, 'src/x.ts', ONE), false);
  });

  it('in a multi-root workspace, match the path with or without its folder name', () => {
    assert.equal(appliesTo(['api/**'], 'api/src/x.ts', TWO), true, 'one folder named');
    assert.equal(appliesTo(['api/**'], 'web/src/x.ts', TWO), false);
    assert.equal(appliesTo(['**/*.sql'], 'api/schema.sql', TWO), true, 'any folder');
    assert.equal(appliesTo(['src/*.ts'], 'web/src/x.ts', TWO), true, 'inside its folder');
  });

  it('say why a glob cannot be used: empty, outside the workspace, or not a glob', () => {
    assert.match(globProblem('  ')!, /cannot be empty/);
    assert.match(globProblem('../secrets/**')!, /inside the workspace/);
    assert.match(globProblem('/etc/*')!, /inside the workspace/);
    assert.match(globProblem('C:\\code\\*')!, /inside the workspace/);
    assert.match(globProblem('src/[a-')!, /is not a glob/);
    assert.equal(globProblem('src/**/*.{ts,tsx}'), undefined);
    assert.equal(globProblem('docs/..notes/*.md'), undefined, 'two dots inside a name are not a parent folder');
  });
});

describe('appliesTo on memories and skills', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('wm-applies-');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'db.ts'), 'export const pool = open();\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses a glob that cannot compile or leaves the workspace, with the reason, and writes nothing', async () => {
    const { memory, cleanup } = await openTemp({ workspaceFolders: [{ name: 'app', path: root }] });
    try {
      const error = await rejectsWith(
        memory.memories.save('a', undefined, { content: 'x', appliesTo: ['src/**', 'src/[a-'] }),
        'INVALID_INPUT',
      );
      assert.match(error.message, /appliesTo\.1.*"src\/\[a-" is not a glob/s);
      await rejectsWith(memory.skills.save('a', undefined, { content: 'x', appliesTo: ['../*.ts'] }), 'INVALID_INPUT');
      const [saved] = await memory.memories.save('a', undefined, { content: 'y' });
      await rejectsWith(memory.memories.update(saved.id, { appliesTo: [''] }), 'INVALID_INPUT');
      assert.equal((await memory.stats()).commits, 1, 'only the valid save was written');
    } finally {
      await cleanup();
    }
  });

  it('memory_for_files finds what applies to a file by glob beside what cites it, and nothing for other files', async () => {
    const { memory, cleanup } = await openTemp({ workspaceFolders: [{ name: 'app', path: root }] });
    try {
      const context = { store: memory, scope: { agentId: 'a', userId: undefined } };
      await runOperation(context, 'memory_save', {
        content: 'Every query goes through the pool',
        appliesTo: ['src/**/*.ts'],
      });
      await runOperation(context, 'skill_save', {
        content: '1. Open the pool once',
        citations: [{ path: 'src/db.ts', startLine: 1, endLine: 1 }],
      });
      const about = await runOperation(context, 'memory_for_files', { paths: ['src/db.ts'] });
      assert.match(about.text, /^2 memories and skills are about `src\/db\.ts`:/);
      assert.match(about.text, /applies to `src\/\*\*\/\*\.ts`/);
      assert.match(about.text, /cites `src\/db\.ts:1` \(valid\)/);
      assert.equal(
        (await runOperation(context, 'memory_for_files', { paths: ['README.md'] })).text,
        'Nothing in memory is about `README.md`.',
      );
      // A glob-only memory has nothing for the citation check to look at.
      assert.deepEqual((await memory.checkCitations()).counts, { valid: 1, moved: 0, changed: 0, missing: 0 });
      assert.equal((await memory.checkCitations()).entities.length, 1);
      // Once its globs are taken away, it no longer applies to anything.
      const [globbed] = await memory.citingFiles('a', undefined, ['src/db.ts']);
      assert.deepEqual(globbed?.matchedGlobs, ['src/**/*.ts']);
      await memory.memories.update(globbed.entity.id, { appliesTo: [] });
      assert.equal((await memory.citingFiles('a', undefined, ['src/db.ts'])).length, 1);
    } finally {
      await cleanup();
    }
  });

  it('recall ranks what cites or applies to a file being worked on above an equal match that does not', async () => {
    const { memory, cleanup } = await openTemp({ workspaceFolders: [{ name: 'app', path: root }] });
    try {
      // "connection" twice: it matches better on its own than the other, which says it once.
      const [plain] = await memory.memories.save('a', undefined, {
        content: 'Connections come from the connection pool',
      });
      const [globbed] = await memory.memories.save('a', undefined, {
        content: 'Connections come from the pool helper',
        appliesTo: ['src/*.ts'],
      });
      const ids = async (files?: string[]) =>
        (await memory.recall('a', undefined, 'connections pool', files ? { files } : {})).items.map(
          (item) => item.entity.id,
        );
      assert.equal((await ids())[0], plain.id, 'the better match on its own');
      assert.equal((await ids(['src/db.ts']))[0], globbed.id, 'working on src/db.ts lifts the one about it');
      assert.equal((await ids(['docs/x.md']))[0], plain.id, 'another file lifts nothing');
    } finally {
      await cleanup();
    }
  });
});
