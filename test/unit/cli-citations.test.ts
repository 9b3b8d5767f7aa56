import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

describe('cli: citations', function () {
  this.timeout(60_000);
  let workspace: string;
  const cli = (args: string[], cwd = workspace) => {
    const env = { ...process.env, WORKSPACE_MEMORY_DIR: '', WORKSPACE_MEMORY_WORKSPACE: '' };
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const source = (lines: string[]) =>
    fs.writeFileSync(path.join(workspace, 'src', 'retry.js'), `${lines.join('\n')}\n`);
  const CODE = ['export function retry(n) {', '  for (let i = 0; i < n; i++) attempt();', '}'];

  before(() => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
  });
  beforeEach(() => {
    workspace = tempDir('wm-cli-cite-');
    fs.mkdirSync(path.join(workspace, 'src'));
    source(['// header', ...CODE]);
    assert.equal(cli(['init']).code, 0);
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('save --cite anchors lines of a file in the current folder; check passes, re-anchors moved lines, and fails in CI once they change', () => {
    const saved = cli(['save', 'memory', '--content', 'retry() tries n times', '--cite', 'src/retry.js:2-4', '--json']);
    assert.equal(saved.code, 0, saved.stderr);
    const { entity } = JSON.parse(saved.stdout) as { entity: { id: string; citations: { text: string }[] } };
    assert.equal(entity.citations[0]!.text, CODE.join('\n'));
    const valid = cli(['citations', 'check']);
    assert.deepEqual(
      [valid.code, valid.stdout.trim()],
      [0, '1 citation in 1 memory or skill: 1 valid, 0 moved, 0 changed, 0 missing; none stale'],
    );

    source(['// header', '// moved down', ...CODE]);
    const moved = cli(['citations', 'check']);
    assert.equal(moved.code, 0);
    assert.match(
      moved.stdout,
      new RegExp(
        `^moved    memory “retry\\(\\) tries n times” \\(${entity.id}\\): src/retry.js:2-4 → 3-5 \\(re-anchored\\)$`,
        'm',
      ),
    );
    assert.match(
      cli(['history', entity.id]).stdout,
      /re-anchor citations to the lines they moved to\n\s+by code anchoring/,
    );

    source(['// header', '// moved down', ...CODE.map((line) => line.replace('attempt()', 'attempt(i)'))]);
    const stale = cli(['citations', 'check', '--json']);
    assert.equal(stale.code, 3, "a stale memory fails the check with its own code, not an error's 1");
    const report = JSON.parse(stale.stdout) as { counts: Record<string, number>; entities: { stale: boolean }[] };
    assert.deepEqual(report.counts, { valid: 0, moved: 0, changed: 1, missing: 0 });
    assert.equal(report.entities[0]!.stale, true);
    // What a model is handed says so, or leaves the memory out.
    assert.match(cli(['recall', 'retry']).stdout, /\*\*May be outdated\*\*: .*`src\/retry\.js:3-5` changed on/);
    assert.match(cli(['recall', 'retry', '--stale', 'exclude']).stdout, /^Nothing in memory is relevant/);
  });

  it('--no-reanchor reports moved lines without writing; --workspace names another folder', () => {
    const elsewhere = tempDir('wm-cli-cite-ws-');
    try {
      fs.writeFileSync(path.join(elsewhere, 'notes.md'), 'one\ntwo\n');
      const saved = cli([
        'save',
        'skill',
        '--content',
        'Notes say two',
        '--cite',
        'notes.md:2',
        '--workspace',
        elsewhere,
      ]);
      assert.equal(saved.code, 0, saved.stderr);
      fs.writeFileSync(path.join(elsewhere, 'notes.md'), 'zero\none\ntwo\n');
      const dry = cli(['citations', 'check', '--no-reanchor', '--workspace', elsewhere]);
      assert.match(dry.stdout, /notes\.md:2 → 3-3\n/);
      assert.doesNotMatch(dry.stdout, /re-anchored/);
      const again = cli(['citations', 'check', '--workspace', elsewhere]);
      assert.match(again.stdout, /notes\.md:2 → 3-3 \(re-anchored\)/, 'the dry run wrote nothing');
      // From the store's folder alone, the file is not there: the skill is stale.
      assert.equal(cli(['citations', 'check']).code, 3);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('save --applies-to names the kind of file a memory is about; memory_for_files finds it; a bad glob is refused', () => {
    const saved = cli(['save', 'memory', '--content', 'Retries back off', '--applies-to', 'src/**/*.js', '--json']);
    assert.equal(saved.code, 0, saved.stderr);
    assert.deepEqual((JSON.parse(saved.stdout) as { entity: { appliesTo: string[] } }).entity.appliesTo, [
      'src/**/*.js',
    ]);
    const about = cli(['call', 'memory_for_files', '{"paths":["src/retry.js"]}']);
    assert.equal(about.code, 0, about.stderr);
    assert.match(about.stdout, /applies to `src\/\*\*\/\*\.js`/);
    const bad = cli(['save', 'memory', '--content', 'x', '--applies-to', 'src/[a-']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /"src\/\[a-" is not a glob/);
    assert.match(cli(['stats']).stdout, /^commits\s+1$/m, 'only the first save was written');
  });

  it('citations check exits 3 on a stale memory and 1 when it cannot run, so CI can tell them apart', () => {
    assert.equal(cli(['save', 'memory', '--content', 'retry', '--cite', 'src/retry.js:2-2']).code, 0);
    source(['// header', 'export function retry(times) {']);
    assert.equal(cli(['citations', 'check']).code, 3);
    const broken = cli(['citations', 'check', '--agent', 'a/b']);
    assert.equal(broken.code, 1, broken.stderr);
    assert.match(broken.stderr, /\[INVALID_ID\]/);
  });

  it('check follows a file git renamed: the citation moves to the new path, and says so', () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: workspace });
    git('init', '-q');
    git('add', 'src/retry.js');
    git('commit', '-qm', 'retry');
    const saved = cli(['save', 'memory', '--content', 'retry() tries n times', '--cite', 'src/retry.js:2-4', '--json']);
    const { entity } = JSON.parse(saved.stdout) as { entity: { id: string; citations: { commit?: string }[] } };
    assert.match(entity.citations[0]!.commit ?? '', /^[0-9a-f]{40}$/, 'the commit the lines were cited at');
    fs.mkdirSync(path.join(workspace, 'lib'));
    git('mv', 'src/retry.js', 'lib/retry.js');
    git('commit', '-qm', 'move');
    const moved = cli(['citations', 'check']);
    assert.equal(moved.code, 0, moved.stdout);
    assert.match(moved.stdout, /: src\/retry\.js:2-4 → lib\/retry\.js:2-4 \(re-anchored\)$/m);
    assert.match(cli(['citations', 'check']).stdout, /1 valid, 0 moved, 0 changed, 0 missing; none stale/);
  });

  it('refuses bad citations with a clear reason and writes nothing', () => {
    for (const [cite, code, reason] of [
      ['src/retry.js:9-12', 1, /beyond the end of src\/retry.js \(4 lines\)/],
      ['../outside.js:1', 1, /inside the workspace/],
      ['src/retry.js', 2, /--cite takes path:line or path:start-end/],
      ['src/retry.js:0', 2, /lines from 1 \(got "src\/retry\.js:0"\)/],
      ['src/retry.js:4-2', 1, /endLine comes before startLine/],
    ] as const) {
      const result = cli(['save', 'memory', '--content', 'x', '--cite', cite]);
      assert.equal(result.code, code, cite);
      assert.match(result.stderr, reason);
    }
    assert.match(cli(['stats']).stdout, /^commits\s+0$/m, 'nothing was written');
  });
});
