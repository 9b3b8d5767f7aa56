import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { DetectedSource, ImportFromReport, ToolExportReport } from '../../src/core/interop';
import { importProgressText } from '../../src/server/cli/interop-commands';
import { tempDir } from './helpers';

/** `sources`, `import --from` and `export --to` (issue #15), run as a person runs them: the built CLI, in a workspace. */

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

const AGENTS = '# Rules\n\n## Build\nUse pnpm, not npm.\n\n## Tests\nRun `pnpm test` before every push.\n';
const CURSOR_RULE = '---\ndescription: TypeScript style\nglobs: src/**/*.ts\n---\n# Style\nNamed exports only.\n';

describe('cli: import from and export to other tools', function () {
  this.timeout(60_000);
  let workspace: string;

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => {
    workspace = tempDir('wm-cli-interop-');
    write('AGENTS.md', AGENTS);
    write('.cursor/rules/style.mdc', CURSOR_RULE);
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  function write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    fs.writeFileSync(path.join(workspace, file), text);
  }
  const read = (file: string) => fs.readFileSync(path.join(workspace, file), 'utf8');
  /** The CLI in the workspace folder, where the default store (.workspace-memory) is. */
  function cli(args: string[], cwd = workspace) {
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }
  function json<T>(args: string[]): T {
    const result = cli([...args, '--json']);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as T;
  }
  const init = () => assert.equal(cli(['init']).code, 0);
  const skills = () =>
    json<{ items: { content: string; tags: string[]; appliesTo?: string[] }[] }>(['list', 'skill']).items;

  it('sources lists each file with its format, items and problems, without a store', () => {
    write(
      'memory.jsonl',
      '{"type":"entity","name":"Ana","entityType":"person","observations":["likes tea"]}\nbroken\n',
    );
    const listed = cli(['sources']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^copilot +2 items {2}AGENTS\.md$/m);
    assert.match(listed.stdout, /^cursor +1 item {2}\.cursor\/rules\/style\.mdc$/m);
    assert.match(listed.stdout, /^mcp-memory +1 item {2}memory\.jsonl, 1 problem \(line 2: /m);
    assert.match(listed.stdout, /import one with: workspace-memory import --from copilot AGENTS\.md/);
    const { sources } = json<{ sources: DetectedSource[] }>(['sources']);
    assert.deepEqual(
      sources.map(({ format, path, items, problems }) => ({ format, path, items, problems })),
      [
        { format: 'copilot', path: 'AGENTS.md', items: 2, problems: 0 },
        { format: 'cursor', path: '.cursor/rules/style.mdc', items: 1, problems: 0 },
        { format: 'mcp-memory', path: 'memory.jsonl', items: 1, problems: 1 },
      ],
    );
    assert.equal(fs.existsSync(path.join(workspace, '.workspace-memory')), false, 'detection creates no store');
  });

  it('sources says which files it looks for when there are none', () => {
    fs.rmSync(path.join(workspace, 'AGENTS.md'));
    fs.rmSync(path.join(workspace, '.cursor'), { recursive: true });
    const listed = cli(['sources']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^nothing to import in /);
    assert.match(listed.stdout, /Claude Code: CLAUDE\.md/);
    assert.match(listed.stdout, /Cursor rules: \.cursor\/rules\/\*\.mdc/);
  });

  it('import --from imports, says what it did, and a second run changes nothing', () => {
    init();
    const dry = cli(['import', '--from', 'copilot', 'AGENTS.md', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^would create +AGENTS\.md:1 +Build$/m);
    assert.match(dry.stdout, /^dry run, nothing was written: 2 created, 0 updated, 0 unchanged/m);
    assert.deepEqual(skills(), [], 'a dry run writes nothing');

    const first = cli(['import', '--from', 'copilot', 'AGENTS.md']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^created +AGENTS\.md:6 +Tests$/m);
    assert.match(first.stdout, /^done: 2 created, 0 updated, 0 unchanged, 0 skipped, 0 removed, 0 errors$/m);
    // Without a path: that format's files wherever they are in the workspace.
    const cursor = json<ImportFromReport>(['import', '--from', 'cursor']);
    assert.equal(cursor.created, 1);
    const style = skills().find((skill) => skill.content.includes('Named exports only.'));
    assert.deepEqual(style?.appliesTo, ['src/**/*.ts']);
    assert.deepEqual(style?.tags, ['style']);

    const again = cli(['import', '--from', 'copilot', 'AGENTS.md']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'done: 0 created, 0 updated, 2 unchanged, 0 skipped, 0 removed, 0 errors\n');
    assert.equal(skills().length, 3, 'nothing duplicated');
  });

  it('import --from follows the source: a changed section is updated, a deleted one removed unless --no-prune', () => {
    init();
    cli(['import', '--from', 'copilot', 'AGENTS.md']);
    write('AGENTS.md', '# Rules\n\n## Build\nUse pnpm 9, not npm.\n');
    const kept = json<ImportFromReport>(['import', '--from', 'copilot', 'AGENTS.md', '--no-prune']);
    assert.deepEqual([kept.updated, kept.removed], [1, 0]);
    assert.equal(skills().length, 2);
    const pruned = cli(['import', '--from', 'copilot', 'AGENTS.md']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /^removed +AGENTS\.md +Tests: no longer in AGENTS\.md$/m);
    assert.deepEqual(
      skills().map((skill) => skill.content),
      ['# Rules\n\n## Build\nUse pnpm 9, not npm.'],
    );
  });

  it('import --from prints the note on an item edited in the store whose source is unchanged', () => {
    init();
    const [first] = json<ImportFromReport>(['import', '--from', 'copilot', 'AGENTS.md']).items;
    assert.equal(cli(['update', first!.id!, '--content', 'Use pnpm 9.']).code, 0);
    const again = cli(['import', '--from', 'copilot', 'AGENTS.md']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      /^unchanged +AGENTS\.md:1 +Build: edited in this store since the last import; the source has not changed$/m,
    );
  });

  it('import --from names the file and line of each error, imports the rest, and exits 1', () => {
    init();
    write(
      'memory.jsonl',
      '{"type":"entity","name":"Ana","entityType":"person","observations":["likes tea"]}\nbroken\n',
    );
    const result = cli(['import', '--from', 'mcp-memory', 'memory.jsonl']);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^created +memory\.jsonl:1 +Ana$/m);
    assert.match(result.stdout, /^error +memory\.jsonl:2 +Line 2 is not JSON/m);
    assert.match(result.stdout, /1 created, .* 1 error$/m);
    assert.equal(json<{ memories: number }>(['stats']).memories, 1);
  });

  it('import --from refuses bad usage (exit 2) and what it cannot import (exit 1, with the code)', () => {
    init();
    const unknown = cli(['import', '--from', 'notion', 'AGENTS.md']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Allowed choices are copilot, copilot-memory, claude/);
    const wrongFormat = cli(['import', '--from', 'claude', 'AGENTS.md']);
    assert.equal(wrongFormat.code, 1);
    assert.match(wrongFormat.stderr, /AGENTS\.md is not a Claude Code file.*\[IMPORT_INVALID\]$/m);
    const outside = cli(['import', '--from', 'copilot', path.join(ROOT, 'AGENTS.md')]);
    assert.equal(outside.code, 1);
    assert.match(outside.stderr, /\[(INVALID_INPUT|NOT_FOUND)\]$/m);
    const noStore = cli(['import', '--from', 'copilot', 'AGENTS.md', '--dir', path.join(workspace, 'none')]);
    assert.equal(noStore.code, 1);
    assert.match(noStore.stderr, /No store in .*\[NOT_FOUND\]$/m);
  });

  it('import and export say which options belong to which mode (exit 2), and the store’s own JSON still round trips', () => {
    init();
    const misfits: [string[], RegExp][] = [
      [['import', '--from', 'copilot', '--skip-existing'], /--skip-existing is for import without --from/],
      [['import', 'export.json', '--dry-run'], /--dry-run is for import --from/],
      [['import', 'export.json', '--no-prune'], /--no-prune is for import --from/],
      [['import'], /missing argument 'file'/],
      [['export', '--to', 'agents-md', '--out', 'x.json'], /--out is for export without --to/],
      [['export', '--category', 'fact'], /--category is for export --to/],
    ];
    for (const [args, message] of misfits) {
      const result = cli(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message);
    }
    write('AGENTS.md', '# Rules\n\n## Tests\n\nRun the tests with mocha.\n');
    cli(['import', '--from', 'copilot', 'AGENTS.md']);
    assert.equal(cli(['export', '--out', 'export.json']).code, 0);
    const restored = cli(['import', 'export.json', '--skip-existing']);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /^imported 0, overwrote 0, skipped 1$/m);
  });

  it('Ctrl-C stops an import before it writes, and exits 130', async function () {
    init();
    // Big enough that comparing it with the store outlasts the signal's delivery by far.
    const sections = Array.from({ length: 4000 }, (_, i) => `## Rule ${i}\nRule number ${i} holds.\n`);
    write('CLAUDE.md', `# Rules\n\n${sections.join('\n')}`);
    const child = spawn(process.execPath, [CLI, 'import', '--from', 'claude', 'CLAUDE.md'], { cwd: workspace });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The store's write-ahead log appears when the import opens the store, after Ctrl-C is handled.
    const wal = path.join(workspace, '.workspace-memory', 'memory.db-wal');
    while (!fs.existsSync(wal)) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGINT');
    assert.equal(await closed, 130, stderr);
    assert.match(stderr, /\[CANCELLED\]$/m);
    assert.deepEqual(skills(), [], 'stopped before writing');
  });

  it('reports import progress by phase', () => {
    assert.equal(
      importProgressText({ phase: 'planning', done: 300, total: 1000 }),
      'comparing with the store: 300 of 1000',
    );
  });

  it('export --to writes the block after the file as it was, then replaces only the block', () => {
    init();
    cli(['import', '--from', 'cursor']);
    assert.equal(cli(['save', 'memory', '--content', 'We deploy on Fridays.', '--category', 'decision']).code, 0);
    const dry = cli(['export', '--to', 'agents-md', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^<!-- workspace-memory:begin sha256=[0-9a-f]{64} -->$/m);
    assert.match(dry.stdout, /^- We deploy on Fridays\.$/m);
    assert.match(dry.stdout, /would create AGENTS\.md with 2 items in its Workspace Memory block$/m);
    assert.equal(read('AGENTS.md'), AGENTS, 'a dry run writes nothing');

    const written = cli(['export', '--to', 'agents-md']);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(written.stdout, 'created AGENTS.md: 2 items in its Workspace Memory block\n');
    const text = read('AGENTS.md');
    assert.ok(text.startsWith(`${AGENTS}\n<!-- workspace-memory:begin`), text);
    assert.match(text, /"appliesTo":\["src\/\*\*\/\*\.ts"\]/);
    assert.equal(
      cli(['export', '--to', 'agents-md']).stdout,
      'unchanged: AGENTS.md already holds 2 items in its Workspace Memory block\n',
    );

    // Only decisions, now: the block shrinks and the hand-written part stays as it is.
    const decisions = json<ToolExportReport>(['export', '--to', 'agents-md', '--category', 'decision']);
    assert.deepEqual([decisions.action, decisions.ids.length], ['updated', 1]);
    assert.ok(read('AGENTS.md').startsWith(AGENTS));
    assert.doesNotMatch(read('AGENTS.md'), /Named exports only/);
  });

  it('export --to selects by tag and type, and writes another file of the kind with --file', () => {
    init();
    cli(['import', '--from', 'cursor']);
    assert.equal(cli(['save', 'memory', '--content', 'Styles are linted.', '--tags', 'style']).code, 0);
    const byTag = json<ToolExportReport>(['export', '--to', 'claude-md', '--tag', 'style', '--type', 'memory']);
    assert.deepEqual([byTag.file, byTag.ids.length], ['CLAUDE.md', 1]);
    assert.match(read('CLAUDE.md'), /- Styles are linted\./);
    const nested = json<ToolExportReport>(['export', '--to', 'agents-md', '--file', 'packages/api/AGENTS.md']);
    assert.equal(nested.file, 'packages/api/AGENTS.md');
    assert.match(read('packages/api/AGENTS.md'), /Named exports only\./);
    const badType = cli(['export', '--to', 'agents-md', '--type', 'knowledge']);
    assert.equal(badType.code, 2);
  });

  it('export --to refuses a selection that matches nothing, and a file not of the kind, writing nothing (exit 1)', () => {
    init();
    cli(['import', '--from', 'cursor']);
    const none = cli(['export', '--to', 'agents-md', '--tag', 'nosuchtag']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No memories or skills of agent .* match tag nosuchtag.*\[NOT_FOUND\]$/m);
    assert.equal(read('AGENTS.md'), AGENTS);
    write('.git/config', '[core]\n');
    const git = cli(['export', '--to', 'agents-md', '--file', '.git/config']);
    assert.equal(git.code, 1);
    assert.match(git.stderr, /an export never writes there.*\[INVALID_INPUT\]$/m);
    assert.equal(read('.git/config'), '[core]\n');
  });

  it('export --to refuses a block edited by hand, says why, and leaves the file as it is', () => {
    init();
    cli(['import', '--from', 'cursor']);
    cli(['export', '--to', 'copilot-instructions']);
    const edited = read('.github/copilot-instructions.md').replace('Named exports only.', 'Default exports too.');
    write('.github/copilot-instructions.md', edited);
    const refused = cli(['export', '--to', 'copilot-instructions']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was edited by hand since it was written.*\[EXPORT_CONFLICT\]$/m);
    assert.equal(read('.github/copilot-instructions.md'), edited);
  });

  it("export --to mcp-memory keeps the graph's own lines and adds this store's entities", () => {
    init();
    cli(['import', '--from', 'cursor']);
    const theirs = '{"type":"entity","name":"Ana","entityType":"person","observations":["likes tea"]}\n';
    write('memory.jsonl', theirs);
    const result = cli(['export', '--to', 'mcp-memory']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'updated memory.jsonl: 1 item as entities (1 line of its own kept)\n');
    const lines = read('memory.jsonl').split('\n');
    assert.equal(`${lines[0]}\n`, theirs);
    assert.match(lines[1]!, /"entityType":"skill"/);
    // Imported back, this store's entities are what it has already.
    const back = json<ImportFromReport>(['import', '--from', 'mcp-memory']);
    assert.deepEqual([back.created, back.unchanged], [1, 1]);
  });
});
