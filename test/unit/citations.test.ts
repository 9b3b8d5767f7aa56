import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { anchorCitation, checkCitation, CitedFiles, MAX_CITED_LINES } from '../../src/core/anchors/citations';
import type { WorkspaceFolder } from '../../src/core/anchors/workspace-paths';
import { MemoryError } from '../../src/core/errors';
import type { Memory } from '../../src/core/memory';
import { runOperation } from '../../src/core/operations';
import { sha256 } from '../../src/core/store/hashing';
import type { MemoryEntity } from '../../src/core/types';
import { FAKE } from './fake-secrets';
import { openTemp, rejectsWith, tempDir } from './helpers';

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

  it('keeps the cited lines and a hash of them, and the symbol an editor named', () => {
    assert.equal(
      anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6, symbol: 'retry' }).symbol,
      'retry',
    );
    const citation = anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6 });
    assert.equal(citation.symbol, undefined);
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
    refused(
      () => anchorCitation(folders, { path: 'src/nope.ts', startLine: 1, endLine: 1 }),
      /src\/nope\.ts does not exist/,
    );
    write('blob.bin', ['\u0000\u0001binary']);
    refused(() => anchorCitation(folders, { path: 'blob.bin', startLine: 1, endLine: 1 }), /not a text file/);
    refused(
      () => anchorCitation(folders, { path: 'src/retry.ts', startLine: 5, endLine: 9 }),
      /beyond the end of src\/retry.ts \(6 lines\)/,
    );
    refused(() => anchorCitation(folders, { path: 'src/retry.ts', startLine: 3, endLine: 2 }), /whole numbers from 1/);
    refused(() => anchorCitation(folders, { path: 'src/retry.ts', startLine: 0, endLine: 2 }), /whole numbers from 1/);
  });

  it('refuses to cite files that hold credentials by purpose, and redacts a secret in cited lines', async () => {
    write('.env.local', ['API_KEY=abc']);
    write('deploy/id_ed25519', ['-----BEGIN OPENSSH PRIVATE KEY-----']);
    refused(
      () => anchorCitation(folders, { path: '.env.local', startLine: 1, endLine: 1 }),
      /cannot be cited: it is a secret file: environment variables/,
    );
    refused(() => anchorCitation(folders, { path: 'deploy/id_ed25519', startLine: 1, endLine: 1 }), /SSH key/);
    write('config.ts', ['export const config = {', `  githubToken: '${FAKE.githubClassic}',`, '};']);
    const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
    try {
      const [saved] = await memory.memories.save('a', undefined, {
        content: 'The config holds the GitHub token',
        citations: [{ path: 'config.ts', startLine: 1, endLine: 3 }],
      });
      assert.ok(!saved.citations![0]!.text.includes(FAKE.githubClassic));
      assert.match(saved.citations![0]!.text, /\[redacted: /);
      // The hash is of the lines themselves, so the citation is still current.
      assert.equal((await memory.checkCitations()).counts.valid, 1);
    } finally {
      await cleanup();
    }
  });

  it('keeps at most 16 KiB of text from one very long line, and such a memory exports and imports', async () => {
    write('min.js', [`const x = "${'ab '.repeat(100_000)}";`, 'next();']);
    const citation = anchorCitation(folders, { path: 'min.js', startLine: 1, endLine: 1 });
    assert.ok(citation.text.length <= 16 * 1024 && citation.text.endsWith('…'));
    const { memory, cleanup } = await openTemp({ workspaceFolders: folders });
    try {
      await memory.memories.save('a', undefined, {
        content: 'minified',
        citations: [{ path: 'min.js', startLine: 1, endLine: 1 }],
      });
      const { memory: other, cleanup: closeOther } = await openTemp();
      try {
        assert.equal((await other.import(await memory.export())).imported, 1);
      } finally {
        await closeOther();
      }
      write('min.js', ['// moved', `const x = "${'ab '.repeat(100_000)}";`, 'next();']);
      assert.equal((await memory.checkCitations()).reanchored, 1, 'found where it moved despite the cut text');
    } finally {
      await cleanup();
    }
  });

  it('hashes cited lines with their secrets redacted, so the hash gives no secret back; such lines are still found when they move', () => {
    const line = `const token = '${FAKE.githubClassic}';`;
    write('token.ts', [line, 'use(token);']);
    const citation = anchorCitation(folders, { path: 'token.ts', startLine: 1, endLine: 2 });
    assert.ok(!citation.text.includes(FAKE.githubClassic));
    assert.notEqual(citation.hash, sha256(`${line}\nuse(token);`));
    write('token.ts', ['// moved', line, 'use(token);']);
    assert.deepEqual(checkCitation(folders, citation).moved?.startLine, 2);
  });

  it('refuses a link that leads to a secret file, and a cached file swapped for a link out of the workspace is not read', () => {
    write('.env', ['API_KEY=abc']);
    fs.symlinkSync(path.join(root, '.env'), path.join(root, 'notes.txt'));
    refused(() => anchorCitation(folders, { path: 'notes.txt', startLine: 1, endLine: 1 }), /cannot be cited/);
    refused(() => anchorCitation(folders, { path: 'cfg\\.env', startLine: 1, endLine: 1 }), /cannot be cited/);
    const citation = anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 3 });
    const files = new CitedFiles();
    assert.equal(checkCitation(folders, citation, files).state, 'valid');
    const outside = tempDir('wm-outside-');
    try {
      fs.writeFileSync(path.join(outside, 'same.ts'), fs.readFileSync(path.join(root, 'src/retry.ts')));
      fs.rmSync(path.join(root, 'src/retry.ts'));
      fs.symlinkSync(path.join(outside, 'same.ts'), path.join(root, 'src/retry.ts'));
      assert.equal(checkCitation(folders, citation, files).state, 'missing', 'the link out is not followed');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
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

  it('finds lines that moved, nearest first; trailing spaces do not count, indentation and inner spaces do', () => {
    const citation = anchorCitation(folders, { path: 'src/retry.ts', startLine: 2, endLine: 6 });
    write('src/retry.ts', [
      '// header',
      'import { attempt } from "./attempt";',
      '',
      ...CODE.map((line) => `${line}  `),
    ]);
    assert.deepEqual(checkCitation(folders, citation), {
      state: 'moved',
      moved: { ...citation, startLine: 4, endLine: 8 },
    });
    // Indented under another block (in Python, now inside an `if`): the code says something else.
    write('src/retry.ts', ['// header', ...CODE.map((line) => `  ${line}`)]);
    assert.deepEqual(checkCitation(folders, citation), { state: 'changed' });
    write('src/retry.ts', ['// header', ...CODE.map((line) => line.replace('times; i++', 'times;  i++'))]);
    assert.deepEqual(checkCitation(folders, citation), { state: 'changed' });
  });

  it('stores a path as / separated, without ./ or doubled slashes, so every way of writing it finds the file', () => {
    for (const written of ['./src/retry.ts', 'src//retry.ts', 'src/./retry.ts', 'src\\retry.ts']) {
      assert.equal(anchorCitation(folders, { path: written, startLine: 2, endLine: 3 }).path, 'src/retry.ts', written);
    }
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

describe('citations on memories and skills', () => {
  let root: string;
  let memory: Memory;
  let cleanup: () => Promise<void>;
  const file = () => path.join(root, 'src/retry.ts');
  beforeEach(async () => {
    root = tempDir('wm-cite-ws-');
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(file(), `// header\n${CODE.join('\n')}\n`);
    ({ memory, cleanup } = await openTemp({ workspaceFolders: [{ name: 'app', path: root }] }));
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const cite = { path: 'src/retry.ts', startLine: 2, endLine: 6 };

  it('anchors a citation given as path and lines on save, and keeps one given whole', async () => {
    const [saved] = await memory.memories.save('a', undefined, {
      content: 'retry() tries `times` times',
      citations: [cite],
    });
    assert.deepEqual(saved.citations?.[0], anchorCitation([{ name: 'app', path: root }], cite));
    const [skill] = await memory.skills.save('a', undefined, {
      content: 'How retry works',
      citations: saved.citations,
    });
    assert.deepEqual(skill.citations, saved.citations);
    const [updated] = await memory.memories.update(saved.id, { citations: [{ ...cite, endLine: 3 }] });
    assert.equal(updated.citations?.[0]?.text, CODE.slice(0, 2).join('\n'));
  });

  it('refuses a citation it cannot anchor, writing nothing', async () => {
    for (const citations of [
      [{ ...cite, path: '../outside.ts' }],
      [{ ...cite, endLine: 60 }],
      [{ ...cite, startLine: 4, endLine: 3 }],
      [{ ...cite, text: 'only text' }],
    ]) {
      await rejectsWith(memory.memories.save('a', undefined, { content: 'x', citations }), 'INVALID_INPUT');
    }
    assert.equal((await memory.stats()).commits, 0);
    const { memory: bare, cleanup: closeBare } = await openTemp();
    try {
      const error = await rejectsWith(
        bare.memories.save('a', undefined, { content: 'x', citations: [cite] }),
        'INVALID_INPUT',
      );
      assert.match(error.message, /workspace folder/);
    } finally {
      await closeBare();
    }
  });

  it('a check finds moved lines and re-anchors them in a commit of its own, content unchanged', async () => {
    const [saved] = await memory.memories.save('a', undefined, { content: 'retry() loops', citations: [cite] });
    assert.deepEqual((await memory.checkCitations()).counts, { valid: 1, moved: 0, changed: 0, missing: 0 });
    fs.writeFileSync(file(), `// header\n// a new line\n\n${CODE.join('\n')}\n`);
    const dry = await memory.checkCitations({ reanchor: false });
    assert.deepEqual(dry.entities[0]!.citations[0]!.movedTo, { startLine: 4, endLine: 8 });
    assert.equal(dry.reanchored, 0);
    assert.equal((await memory.history(saved.id)).length, 1, 'a dry check writes nothing');
    const report = await memory.checkCitations();
    assert.equal(report.reanchored, 1);
    assert.equal(report.entities[0]!.stale, false);
    const [anchoring] = await memory.history(saved.id);
    assert.equal(anchoring!.commit.by.kind, 'anchoring');
    // Models are still told who wrote the content, not the step that moved its citation.
    const [recalled] = (await memory.recall('a', undefined, 'retry loops')).items;
    assert.equal(recalled?.provenance?.kind, 'user');
    assert.equal(anchoring!.commit.message, 're-anchor citations to the lines they moved to');
    const now = (await memory.memories.get(saved.id))!;
    assert.equal(now.content, 'retry() loops');
    assert.deepEqual([now.citations![0]!.startLine, now.citations![0]!.endLine], [4, 8]);
    assert.deepEqual((await memory.checkCitations()).counts, { valid: 1, moved: 0, changed: 0, missing: 0 });
    // Its citations taken away, it cites nothing and is not counted.
    await memory.memories.update(saved.id, { citations: [] });
    assert.deepEqual((await memory.checkCitations()).entities, []);
  });

  it('marks a memory stale when its cited lines change or its file goes, saying when the file changed', async () => {
    await memory.memories.save('a', undefined, { content: 'retry() loops', citations: [cite] });
    await memory.skills.save('b', undefined, { content: 'other agent', citations: [cite] });
    fs.writeFileSync(file(), `// header\n${CODE.join('\n').replace('attempt()', 'attempt(i)')}\n`);
    const changed = await memory.checkCitations({ agentId: 'a' });
    assert.equal(changed.entities.length, 1, 'only agent a');
    assert.equal(changed.entities[0]!.stale, true);
    assert.equal(changed.entities[0]!.citations[0]!.state, 'changed');
    assert.equal(changed.entities[0]!.citations[0]!.changedAt, fs.statSync(file()).mtime.toISOString());
    fs.rmSync(file());
    const missing = await memory.checkCitations();
    assert.deepEqual(missing.counts, { valid: 0, moved: 0, changed: 0, missing: 2 });
    assert.ok(missing.entities.every((entry) => entry.stale));
    await rejectsWith(memory.checkCitations({ agentId: '../x' }), 'INVALID_ID');
  });
});

describe('recall and stale memories', () => {
  let root: string;
  let memory: Memory;
  let cleanup: () => Promise<void>;
  const file = () => path.join(root, 'retry.ts');
  beforeEach(async () => {
    root = tempDir('wm-cite-recall-');
    fs.writeFileSync(file(), `${CODE.join('\n')}\n`);
    ({ memory, cleanup } = await openTemp({ workspaceFolders: [{ name: 'app', path: root }] }));
    await memory.memories.save('a', undefined, {
      content: 'retry() calls attempt once per try',
      citations: [{ path: 'retry.ts', startLine: 1, endLine: 5 }],
    });
    await memory.memories.save('a', undefined, { content: 'retry() is exported from the utils package' });
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const recalled = (staleness?: 'mark' | 'exclude' | 'ignore') =>
    memory.recall('a', undefined, 'retry', staleness ? { staleness } : {});

  it('says nothing of a memory whose cited code is unchanged', async () => {
    const result = await recalled();
    assert.equal(result.items.length, 2);
    assert.ok(result.items.every((item) => item.stale === undefined));
    assert.doesNotMatch(result.formatted, /May be outdated/);
  });

  it('marks a memory whose cited code changed, saying which lines and since when; exclude leaves it out, ignore says nothing', async () => {
    fs.writeFileSync(file(), `${CODE.join('\n').replace('attempt()', 'attempt(i)')}\n`);
    const day = fs.statSync(file()).mtime.toISOString().slice(0, 10);
    const marked = await recalled();
    const stale = marked.items.find((item) => item.stale);
    assert.match(stale!.entity.content, /once per try/);
    assert.match(
      marked.formatted,
      new RegExp(
        `\\*\\*May be outdated\\*\\*: the code it cites no longer says what it did \\(\`retry\\.ts:1-5\` changed on ${day}\\)\\.\\n\`\`\`text\\nretry\\(\\) calls attempt once per try`,
      ),
    );
    assert.deepEqual(
      (await recalled('exclude')).items.map((item) => item.entity.content),
      ['retry() is exported from the utils package'],
    );
    const ignored = await recalled('ignore');
    assert.equal(ignored.items.length, 2);
    assert.doesNotMatch(ignored.formatted, /May be outdated/);
    fs.rmSync(file());
    assert.match((await recalled()).formatted, /`retry\.ts:1-5` is gone/);
    await rejectsWith(memory.recall('a', undefined, 'retry', { staleness: 'hide' as never }), 'INVALID_INPUT');
  });

  it('a store opened with staleness "exclude" leaves stale items out of every recall that does not say otherwise', async () => {
    const { memory: strict, cleanup: closeStrict } = await openTemp({
      workspaceFolders: [{ name: 'app', path: root }],
      staleness: 'exclude',
    });
    try {
      await strict.memories.save('a', undefined, {
        content: 'retry() calls attempt once per try',
        citations: [{ path: 'retry.ts', startLine: 1, endLine: 5 }],
      });
      assert.equal((await strict.recall('a', undefined, 'retry')).items.length, 1, 'current: recalled');
      fs.writeFileSync(file(), `${CODE.join('\n').replace('attempt()', 'attempt(i)')}\n`);
      assert.equal((await strict.recall('a', undefined, 'retry')).items.length, 0, 'stale: left out');
      assert.equal((await strict.recall('a', undefined, 'retry', { staleness: 'mark' })).items.length, 1);
    } finally {
      await closeStrict();
    }
    await assert.rejects(openTemp({ staleness: 'hide' as never }), /staleness must be mark, exclude, ignore/);
  });

  it('ranks a memory citing a file being worked on higher, its score kept within 1', async () => {
    await memory.memories.save('a', undefined, { content: 'retry is the word: retry() retries jobs' });
    const order = async (files?: string[]) =>
      (await memory.recall('a', undefined, 'retry', files ? { files } : {})).items.map((item) => [
        item.entity.content,
        item.score,
      ]);
    const plain = await order();
    const citing = plain.findIndex(([content]) => /once per try/.test(String(content)));
    assert.ok(citing > 0, `the citing memory is not first on its own: ${JSON.stringify(plain)}`);
    const working = await order(['retry.ts']);
    assert.match(String(working[0]![0]), /once per try/, JSON.stringify(working));
    assert.ok(working.every(([, score]) => Number(score) <= 1));
    // Recall counts reads (a small boost of its own), so the order is compared, not the scores.
    const contents = (rows: (string | number)[][]) => rows.map(([content]) => content);
    assert.deepEqual(contents(await order(['other.ts'])), contents(plain));
  });

  it('reads a cited file again only when its size or time changed', () => {
    const files = new CitedFiles();
    const first = files.lines(file());
    assert.equal(files.lines(file()), first, 'the same lines, not read again');
    fs.writeFileSync(file(), 'changed\n');
    fs.utimesSync(file(), new Date(), new Date(Date.now() + 5_000));
    assert.deepEqual(files.lines(file()), ['changed']);
    fs.rmSync(file());
    assert.equal(files.lines(file()), undefined);
  });

  it('with the cache, a check answers from a file that did not change, and follows one that went and came back', () => {
    const folders = [{ name: 'app', path: root }];
    const citation = anchorCitation(folders, { path: 'retry.ts', startLine: 1, endLine: 5 });
    const files = new CitedFiles();
    assert.equal(checkCitation(folders, citation, files).state, 'valid');
    assert.equal(
      checkCitation(folders, citation, files),
      checkCitation(folders, citation, files),
      'the same answer, remembered',
    );
    fs.rmSync(file());
    assert.equal(checkCitation(folders, citation, files).state, 'missing');
    fs.writeFileSync(file(), `// moved down\n${CODE.join('\n')}\n`);
    assert.deepEqual(checkCitation(folders, citation, files).moved?.startLine, 2);
  });
});

describe('citations through the tools (memory_save, skill_save)', () => {
  it('anchors the lines an agent cites, and refuses lines beyond the file with a reason the agent can act on', async () => {
    const root = tempDir('wm-cite-tools-');
    fs.writeFileSync(path.join(root, 'deploy.sh'), 'set -e\ndocker compose up -d\n');
    const { memory, cleanup } = await openTemp({ workspaceFolders: [{ name: 'app', path: root }] });
    try {
      const context = { store: memory, scope: { agentId: 'a', userId: undefined } };
      const saved = await runOperation(context, 'memory_save', {
        content: 'Deploys run docker compose up -d',
        citations: [{ path: 'deploy.sh', startLine: 2, endLine: 2 }],
      });
      const entity = (saved.data as { entity: MemoryEntity }).entity;
      assert.equal(entity.citations?.[0]?.text, 'docker compose up -d');
      await runOperation(context, 'skill_save', {
        content: '1. Run deploy.sh',
        citations: [{ path: 'deploy.sh', startLine: 1, endLine: 2 }],
      });
      const error = await rejectsWith(
        runOperation(context, 'memory_save', {
          content: 'x',
          citations: [{ path: 'deploy.sh', startLine: 3, endLine: 9 }],
        }),
        'INVALID_INPUT',
      );
      assert.match(error.message, /beyond the end of deploy\.sh \(2 lines\)/);
      await rejectsWith(
        runOperation(context, 'memory_save', {
          content: 'x',
          citations: [{ path: 'deploy.sh', startLine: 0, endLine: 1 }],
        }),
        'INVALID_INPUT',
      );
      assert.equal((await memory.checkCitations()).counts.valid, 2);
      const about = await runOperation(context, 'memory_for_files', { paths: ['./deploy.sh'] });
      assert.match(about.text, /^2 memories and skills are about `\.\/deploy\.sh`:/);
      assert.match(about.text, /cites `deploy\.sh:2` \(valid\)/);
      fs.writeFileSync(path.join(root, 'deploy.sh'), 'set -e\ndocker compose up --wait\n');
      const changed = await runOperation(context, 'memory_for_files', { paths: ['deploy.sh'] });
      assert.match(changed.text, /\*\*May be outdated\*\*/);
      assert.match(changed.text, /cites `deploy\.sh:2` \(changed\)/);
      assert.equal(
        (await runOperation(context, 'memory_for_files', { paths: ['other.sh'] })).text,
        'Nothing in memory is about `other.sh`.',
      );
      await rejectsWith(runOperation(context, 'memory_for_files', { paths: [] }), 'INVALID_INPUT');
      // Another user's memories stay theirs.
      await memory.memories.save('a', 'someone', {
        content: 'mine',
        citations: [{ path: 'deploy.sh', startLine: 1, endLine: 1 }],
      });
      assert.equal((await memory.citingFiles('a', undefined, ['deploy.sh'])).length, 2);
      assert.equal((await memory.citingFiles('a', 'someone', ['deploy.sh'])).length, 3);
    } finally {
      await cleanup();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
