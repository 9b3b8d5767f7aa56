import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isMemoryError } from '../../src/core/errors';
import { importFrom, type ImportFromOptions, type ImportFromReport } from '../../src/core/interop';
import type { Memory, MemoryOptions } from '../../src/core/memory';
import { withProvenance } from '../../src/core/provenance';
import { FAKE } from './fake-secrets';
import { openTemp, rejectsWith, tempDir } from './helpers';

/** Importing again, changes in the source and in the store, and what an import refuses. */

const RULES = [
  '# Conventions',
  '',
  '## Build',
  '- Use pnpm, not npm.',
  '',
  '## Tests',
  'Run `pnpm test` before every push.',
  '',
  '## Style',
  'Named exports only.',
  '',
].join('\n');

describe('interop: importing', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let root: string;

  async function open(options: Partial<MemoryOptions> = {}): Promise<void> {
    ({ memory, cleanup } = await openTemp(options));
    root = tempDir('wm-interop-');
  }
  afterEach(async () => {
    await cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const run = (options: Partial<ImportFromOptions> = {}): Promise<ImportFromReport> =>
    importFrom(memory, { format: 'claude', path: 'CLAUDE.md', workspaceRoot: root, agentId: 'agent', ...options });
  const counts = (report: ImportFromReport) => ({
    created: report.created,
    updated: report.updated,
    unchanged: report.unchanged,
    skipped: report.skipped,
    removed: report.removed,
  });
  const skills = async () => (await memory.skills.list('agent')).map((skill) => skill.content).sort();

  it('a second import of the same source creates nothing and finds every item unchanged', async () => {
    await open();
    write('CLAUDE.md', RULES);
    assert.deepEqual(counts(await run()), { created: 3, updated: 0, unchanged: 0, skipped: 0, removed: 0 });
    const before = await skills();
    assert.deepEqual(counts(await run()), { created: 0, updated: 0, unchanged: 3, skipped: 0, removed: 0 });
    assert.deepEqual(await skills(), before);
  });

  it('a changed section updates its memory in place; a section inserted above moves nothing', async () => {
    await open();
    write('CLAUDE.md', RULES);
    await run();
    const [buildBefore] = (await memory.skills.list('agent')).filter((skill) => skill.content.includes('pnpm, not'));
    write(
      'CLAUDE.md',
      RULES.replace('## Build', '## Intro\nHello.\n\n## Build').replace('Use pnpm, not npm.', 'Use pnpm 9, not npm.'),
    );
    const report = await run();
    assert.deepEqual(counts(report), { created: 1, updated: 1, unchanged: 2, skipped: 0, removed: 0 });
    const build = await memory.skills.get(buildBefore!.id);
    assert.match(build!.content, /pnpm 9/);
    const [head] = await memory.history(buildBefore!.id);
    assert.equal(head?.commit.by.kind, 'import');
    assert.equal(head?.commit.by.tool, 'import --from claude CLAUDE.md', 'the commit names the format and file');
  });

  it('a section removed from the source is removed from the store (history kept); one edited in the store since is kept', async () => {
    await open();
    write('CLAUDE.md', RULES);
    await run();
    const all = await memory.skills.list('agent');
    const style = all.find((skill) => skill.content.includes('Named exports'))!;
    const tests = all.find((skill) => skill.content.includes('pnpm test'))!;
    await memory.skills.update(tests.id, { content: `${tests.content}\nAlso lint.` });
    write('CLAUDE.md', '# Conventions\n\n## Build\n- Use pnpm, not npm.\n');
    const dry = await run({ dryRun: true });
    assert.equal(dry.removed, 1);
    assert.ok(await memory.skills.get(style.id), 'a dry run removes nothing');
    const report = await run();
    assert.deepEqual(counts(report), { created: 0, updated: 0, unchanged: 1, skipped: 1, removed: 1 });
    assert.equal(await memory.skills.get(style.id), null);
    assert.equal((await memory.history(style.id)).length, 2, 'the delete is a commit after the import');
    assert.ok(await memory.skills.get(tests.id), "a person's edit is not removed");
    assert.deepEqual(counts(await run({ prune: false })), {
      created: 0,
      updated: 0,
      unchanged: 1,
      skipped: 0,
      removed: 0,
    });
  });

  it("a person's edit in the store survives re-imports: kept while the source is the same, skipped when both changed", async () => {
    await open();
    write('CLAUDE.md', RULES);
    await run();
    const style = (await memory.skills.list('agent')).find((skill) => skill.content.includes('Named exports'))!;
    await memory.skills.update(style.id, { content: '## Style\nNamed exports only, except for pages.' });
    const same = await run();
    assert.equal(same.unchanged, 3);
    assert.match((await memory.skills.get(style.id))!.content, /except for pages/);
    write('CLAUDE.md', RULES.replace('Named exports only.', 'Default exports are fine.'));
    const both = await run();
    assert.equal(both.skipped, 1);
    assert.match(both.items.find((item) => item.id === style.id)?.reason ?? '', /changed both/);
    assert.match((await memory.skills.get(style.id))!.content, /except for pages/);
  });

  it('a repeated heading whose first section is deleted: the text still in the file is never removed', async () => {
    await open();
    write('svc/CLAUDE.md', '## Notes\nNote A.\n\n## Notes\nNote B.\n');
    const svc = (options: Partial<ImportFromOptions> = {}) => run({ path: 'svc/CLAUDE.md', ...options });
    assert.equal((await svc()).created, 2);
    const all = await memory.skills.list('agent');
    const a = all.find((skill) => skill.content.includes('Note A'))!;
    const b = all.find((skill) => skill.content.includes('Note B'))!;
    await memory.skills.update(a.id, { content: '## Notes\nNote A, edited.' });
    write('svc/CLAUDE.md', '## Notes\nNote B.\n');
    const report = await svc();
    assert.equal(report.removed, 0);
    assert.ok(await memory.skills.get(b.id), 'Note B is still in the file: its item stays');
    const kept = report.items.find((item) => item.id === b.id)!;
    assert.doesNotMatch(kept.reason ?? '', /no longer in/);
    assert.match(kept.reason ?? '', /still in svc\/CLAUDE.md:1/);
    assert.match((await memory.skills.get(a.id))!.content, /edited/);
  });

  it('a repeated heading whose first section is deleted, nothing edited: the text moves, with no duplicate', async () => {
    await open();
    write('CLAUDE.md', '## Notes\nNote A.\n\n## Notes\nNote B.\n');
    await run();
    write('CLAUDE.md', '## Notes\nNote B.\n');
    const report = await run();
    assert.deepEqual(counts(report), { created: 0, updated: 1, unchanged: 0, skipped: 0, removed: 1 });
    assert.match(report.items.find((item) => item.action === 'remove')?.reason ?? '', /moved to CLAUDE.md:1/);
    assert.deepEqual(await skills(), ['## Notes\nNote B.']);
  });

  it('a section an import removed comes back when the source has it again', async () => {
    await open();
    write('CLAUDE.md', RULES);
    await run();
    const style = (await memory.skills.list('agent')).find((skill) => skill.content.includes('Named exports'))!;
    write('CLAUDE.md', RULES.replace('## Style\nNamed exports only.\n', ''));
    assert.equal((await run()).removed, 1);
    write('CLAUDE.md', RULES);
    assert.deepEqual(counts(await run()), { created: 1, updated: 0, unchanged: 2, skipped: 0, removed: 0 });
    assert.ok(await memory.skills.get(style.id));
  });

  it("a file renamed or deleted: a folder import removes what it gave (unless edited), a file's import does not", async () => {
    await open();
    write('CLAUDE.md', RULES);
    write('pkg/CLAUDE.md', '## One\nFirst.\n\n## Two\nSecond.\n');
    assert.equal((await run({ path: '' })).created, 5);
    const two = (await memory.skills.list('agent')).find((skill) => skill.content.includes('Second'))!;
    await memory.skills.update(two.id, { content: '## Two\nSecond, edited.' });
    fs.renameSync(path.join(root, 'pkg'), path.join(root, 'lib'));
    assert.equal((await run()).removed, 0, 'importing one file looks at no other');
    const report = await run({ path: '' });
    assert.deepEqual(counts(report), { created: 2, updated: 0, unchanged: 3, skipped: 1, removed: 1 });
    assert.match(
      report.items.find((item) => item.action === 'remove')?.reason ?? '',
      /pkg\/CLAUDE.md no longer exists/,
    );
    assert.ok(await memory.skills.get(two.id), 'an edited item is kept');
    assert.equal((await run({ path: 'lib' })).removed, 0, 'a folder import looks only under its folder');
  });

  it('an item deleted in the store is not brought back by a re-import', async () => {
    await open();
    write('CLAUDE.md', RULES);
    await run();
    const style = (await memory.skills.list('agent')).find((skill) => skill.content.includes('Named exports'))!;
    await memory.skills.delete(style.id);
    const report = await run();
    assert.equal(report.skipped, 1);
    assert.equal(await memory.skills.get(style.id), null);
  });

  it('a CLAUDE.md that links to AGENTS.md is one source: either format finds the same items', async () => {
    await open();
    write('AGENTS.md', RULES);
    fs.symlinkSync('AGENTS.md', path.join(root, 'CLAUDE.md'));
    assert.equal((await run()).created, 3);
    const again = await run({ format: 'copilot', path: 'AGENTS.md' });
    assert.deepEqual(counts(again), { created: 0, updated: 0, unchanged: 3, skipped: 0, removed: 0 });
    const both = await run({ path: '' });
    assert.equal(both.unchanged, 3);
    assert.deepEqual(both.files, ['AGENTS.md']);
  });

  it('a dry run reports the plan and writes nothing', async () => {
    await open();
    write('CLAUDE.md', RULES);
    const report = await run({ dryRun: true });
    assert.equal(report.dryRun, true);
    assert.equal(report.created, 3);
    assert.deepEqual(await skills(), []);
  });

  it('two agents importing one file each get their own items', async () => {
    await open();
    write('CLAUDE.md', RULES);
    await run();
    const other = await run({ agentId: 'cursor' });
    assert.equal(other.created, 3);
    assert.equal((await memory.skills.list('cursor')).length, 3);
  });

  it('a path outside the workspace is refused, given as .., absolute, or through a symbolic link', async () => {
    await open();
    const outside = tempDir('wm-outside-');
    try {
      fs.writeFileSync(path.join(outside, 'CLAUDE.md'), RULES);
      fs.symlinkSync(path.join(outside, 'CLAUDE.md'), path.join(root, 'CLAUDE.md'));
      fs.symlinkSync(outside, path.join(root, 'linked'));
      for (const given of [
        'CLAUDE.md',
        'linked',
        path.join(outside, 'CLAUDE.md'),
        `../${path.basename(outside)}/CLAUDE.md`,
      ]) {
        const error = await rejectsWith(run({ path: given }), 'INVALID_INPUT');
        assert.match(error.message, /outside the workspace/);
      }
      assert.deepEqual(await skills(), []);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a memory folder a tool keeps outside the workspace is read there, named by its full path, and only there', async () => {
    await open();
    const home = tempDir('wm-claude-home-');
    try {
      // Claude Code's auto memory of two projects: the same file name in two folders.
      const first = path.join(home, 'projects', 'one', 'memory');
      const second = path.join(home, 'projects', 'two', 'memory');
      for (const [folder, text] of [
        [first, '# Notes\n\n## Build\n\nThe build uses esbuild.\n'],
        [second, '# Notes\n\n## Build\n\nThe build uses webpack.\n'],
      ] as const) {
        fs.mkdirSync(folder, { recursive: true });
        fs.writeFileSync(path.join(folder, 'MEMORY.md'), text);
      }
      const report = await run({ format: 'claude-memory', path: first });
      assert.equal(report.created, 1);
      assert.ok(
        report.items.every((item) => item.source.startsWith(fs.realpathSync(first))),
        JSON.stringify(report.items),
      );
      assert.equal((await run({ format: 'claude-memory', path: path.join(second, 'MEMORY.md') })).created, 1);
      const memories = (await memory.memories.list('agent')).map((entity) => entity.content).sort();
      assert.deepEqual(memories, [
        '# Notes\n\n## Build\n\nThe build uses esbuild.',
        '# Notes\n\n## Build\n\nThe build uses webpack.',
      ]);
      assert.deepEqual(counts(await run({ format: 'claude-memory', path: first })), {
        created: 0,
        updated: 0,
        unchanged: 1,
        skipped: 0,
        removed: 0,
      });
      // Any other format's path must still be inside the workspace.
      await rejectsWith(run({ format: 'claude', path: path.join(first, 'MEMORY.md') }), 'INVALID_INPUT');
      // The VS Code memory tool's folder: every note in it, and nothing a link in it leads to elsewhere.
      const notes = path.join(home, 'memory-tool');
      fs.mkdirSync(notes);
      fs.writeFileSync(path.join(notes, 'testing.md'), 'Tests run with mocha.\n');
      fs.writeFileSync(path.join(home, 'private.md'), 'Not for import.\n');
      fs.symlinkSync(path.join(home, 'private.md'), path.join(notes, 'linked.md'));
      const tool = await run({ format: 'copilot-memory', path: notes });
      assert.equal(tool.created, 1, JSON.stringify(tool));
      const contents = (await memory.memories.list('agent')).map((entity) => entity.content);
      assert.ok(contents.includes('Tests run with mocha.'));
      assert.ok(!contents.some((content) => content.includes('Not for import')));
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('an unknown format is refused with the list of formats', async () => {
    await open();
    write('CLAUDE.md', RULES);
    const error = await rejectsWith(run({ format: 'notion' }), 'INVALID_INPUT');
    assert.match(error.message, /"notion".*copilot, copilot-memory, claude.*aipack/);
  });

  it('a file of another format is refused with what the format reads, and nothing is written', async () => {
    await open();
    write('CLAUDE.md', RULES);
    write('memory.jsonl', '{"type":"entity","name":"A","entityType":"x","observations":["y"]}\n');
    const cursor = await rejectsWith(run({ format: 'cursor' }), 'IMPORT_INVALID');
    assert.match(cursor.message, /CLAUDE\.md is not a Cursor rules file.*\.mdc/);
    const graph = await rejectsWith(run({ format: 'mcp-memory' }), 'IMPORT_INVALID');
    assert.match(graph.message, /not an MCP memory graph.*Line 1 is not JSON/);
    const claude = await rejectsWith(run({ path: 'memory.jsonl' }), 'IMPORT_INVALID');
    assert.match(claude.message, /memory\.jsonl is not a Claude Code file/);
    const repo = await rejectsWith(run({ format: 'repomemory', path: 'memory.jsonl' }), 'IMPORT_INVALID');
    assert.match(repo.message, /memory\.jsonl is not a RepoMemory export/);
    assert.deepEqual(await skills(), []);
  });

  it("a folder without any of the format's files is NOT_FOUND; a missing path too", async () => {
    await open();
    write('README.md', '# Hello\n');
    await rejectsWith(run({ format: 'windsurf', path: '' }), 'NOT_FOUND');
    await rejectsWith(run({ path: 'nope/CLAUDE.md' }), 'NOT_FOUND');
  });

  it('a rule holding a secret is refused on its own under the block policy; the others import', async () => {
    await open({ secrets: 'block' });
    write('CLAUDE.md', `${RULES}\n## Deploy\nPush with the token ${FAKE.githubClassic} in CI.\n`);
    const report = await run();
    assert.equal(report.created, 3);
    assert.equal(report.errors.length, 1);
    const [error] = report.errors;
    assert.equal(error?.code, 'SECRET_DETECTED');
    assert.equal(error?.line, 12);
    assert.ok(!error?.message.includes(FAKE.githubClassic), 'a message never holds the secret');
    assert.equal((await skills()).length, 3);
  });

  it('under the redact policy the rule imports redacted, and a re-import finds it unchanged', async () => {
    await open();
    write('CLAUDE.md', `## Deploy\nPush with the token ${FAKE.githubClassic} in CI.\n`);
    const report = await run();
    assert.equal(report.created, 1);
    assert.match(report.items[0]?.reason ?? '', /secrets redacted: github-token in content on line 2/);
    assert.deepEqual(await skills(), ['## Deploy\nPush with the token [redacted: github-token] in CI.']);
    assert.equal((await run()).unchanged, 1);
  });

  it('bad front matter is reported on its line and the file is not imported; the other files are', async () => {
    await open();
    write('.cursor/rules/bad.mdc', '---\nglobs: "*.ts"\n  - not: [yaml\n---\nBody\n');
    write('.cursor/rules/good.mdc', '---\nglobs: "*.ts"\n---\nGood rule.\n');
    const report = await run({ format: 'cursor', path: '' });
    assert.equal(report.created, 1);
    assert.equal(report.errors.length, 1);
    assert.equal(report.errors[0]?.source, '.cursor/rules/bad.mdc');
    assert.match(report.errors[0]?.message ?? '', /front matter/);
  });

  it('keeps the provenance the shell gives, as an import naming the format and file', async () => {
    await open();
    write('CLAUDE.md', RULES);
    await withProvenance({ kind: 'cli', name: 'ana', tool: 'workspace-memory import' }, () => run());
    const [skill] = await memory.skills.list('agent');
    const [head] = await memory.history(skill!.id);
    assert.equal(head?.commit.by.kind, 'import');
    assert.equal(head?.commit.by.tool, 'import --from claude CLAUDE.md');
  });

  it('reports progress and stops when cancelled', async () => {
    await open();
    write('CLAUDE.md', RULES);
    const phases = new Set<string>();
    await run({ onProgress: (progress) => phases.add(progress.phase) });
    assert.deepEqual([...phases].sort(), ['planning', 'reading', 'writing']);
    const controller = new AbortController();
    controller.abort();
    write('CLAUDE.md', `${RULES}\n## More\nText.\n`);
    await assert.rejects(run({ path: '', signal: controller.signal }), (error) => isMemoryError(error, 'CANCELLED'));
    assert.equal((await skills()).length, 3);
  });
});
