import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Memory } from '../../src/core/memory';
import type { RecallResult } from '../../src/core/recall/recall';
import type { SearchResult } from '../../src/core/search/searcher';
import type { CommitInfo, Entity } from '../../src/core/types';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

// The scope options default to these variables: keep the caller's out of the way.
const ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.startsWith('WORKSPACE_MEMORY_')),
);

function cli(args: string[], input = '') {
  const result = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', env: ENV });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T>(args: string[], input?: string): T {
  const result = cli([...args, '--json'], input);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

type Saved = { entity: Entity; commit: CommitInfo; deduplicated?: boolean };

describe('cli search, recall, reindex and save --dedup', function () {
  this.timeout(60_000);
  let dir: string;
  /** Entity ids by name, seeded in-process before each test (faster than one process per save). */
  let seeded: Record<string, string>;

  before(() => {
    // Build the bundle when it is missing or older than the sources it is made from.
    const built = fs.existsSync(CLI) ? fs.statSync(CLI).mtimeMs : 0;
    const sources = fs
      .readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'));
    if (sources.some((entry) => fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs > built)) {
      execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
    }
  });

  beforeEach(async () => {
    dir = tempDir('wm-cli-search-');
    assert.equal(cli(['init', '--dir', dir]).code, 0);
    const memory = await Memory.open({ dir });
    try {
      const id = async (promise: Promise<readonly [Entity, ...unknown[]]>) => (await promise)[0].id;
      seeded = {
        deploy: await id(
          memory.memories.save('a', 'u', { content: 'We deploy to staging with GitHub Actions', tags: ['ci'] }),
        ),
        deployOld: await id(memory.memories.save('a', 'u', { content: 'Deploys used to run from Jenkins' })),
        otherUser: await id(memory.memories.save('a', 'v', { content: 'deploy notes for v' })),
        otherAgent: await id(memory.memories.save('b', 'u', { content: 'deploy notes for agent b' })),
        skill: await id(memory.skills.save('a', undefined, { content: 'deploy rollback procedure with helm' })),
        sharedSkill: await id(memory.skills.saveShared({ content: 'shared deploy checklist' })),
        knowledge: await id(
          memory.knowledge.save('a', undefined, { content: 'deploy pipeline reference', source: 'docs/ci.md' }),
        ),
        sharedKnowledge: await id(memory.knowledge.saveShared({ content: 'company deploy policy' })),
        profile: await id(memory.profiles.save('a', 'u', { content: 'Name: Ada\nPrefers small PRs' })),
      };
    } finally {
      await memory.close();
    }
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const scope = () => ['--dir', dir, '--agent', 'a', '--user', 'u'];

  describe('search', () => {
    it('searches memories by default, in the agent and user scope, best first', () => {
      const results = json<SearchResult[]>(['search', 'deploy', ...scope()]);
      assert.deepEqual(results.map((result) => result.entity.id).sort(), [seeded.deploy, seeded.deployOld].sort());
      for (const result of results) {
        assert.equal(result.entity.type, 'memory');
        assert.ok(result.score > 0 && result.score <= 1);
        assert.equal(result.explain, undefined);
      }
      assert.ok(results[0]!.score >= results[1]!.score);
      const asV = json<SearchResult[]>(['search', 'deploy', '--dir', dir, '--agent', 'a', '--user', 'v']);
      assert.deepEqual(
        asV.map((result) => result.entity.id),
        [seeded.otherUser],
      );
      assert.deepEqual(json<SearchResult[]>(['search', 'kubernetes', ...scope()]), []);
    });

    it('searches skills and knowledge with --type, the shared scope only with --shared', () => {
      const idsOf = (args: string[]) =>
        json<SearchResult[]>(['search', 'deploy', ...scope(), ...args])
          .map((result) => result.entity.id)
          .sort();
      assert.deepEqual(idsOf(['--type', 'skill']), [seeded.skill]);
      assert.deepEqual(idsOf(['--type', 'skill', '--shared']), [seeded.skill, seeded.sharedSkill].sort());
      assert.deepEqual(idsOf(['--type', 'knowledge']), [seeded.knowledge]);
      assert.deepEqual(idsOf(['--type', 'knowledge', '--shared']), [seeded.knowledge, seeded.sharedKnowledge].sort());
      assert.deepEqual(idsOf(['--type', 'memory']), [seeded.deploy, seeded.deployOld].sort());
    });

    it('limits the results with --limit', () => {
      const all = json<SearchResult[]>(['search', 'deploy', ...scope()]);
      const one = json<SearchResult[]>(['search', 'deploy', ...scope(), '--limit', '1']);
      assert.equal(one.length, 1);
      assert.equal(one[0]?.entity.id, all[0]?.entity.id);
    });

    it('explains the scores with --explain, in JSON and in text', () => {
      const [result] = json<Required<SearchResult>[]>(['search', 'staging', ...scope(), '--explain']);
      assert.ok(result);
      assert.equal(result.entity.id, seeded.deploy);
      const e = result.explain;
      for (const key of ['bm25', 'relevance', 'tagOverlap', 'recency', 'access', 'score'] as const) {
        assert.equal(typeof e[key], 'number', key);
      }
      assert.equal(e.score, result.score);

      const text = cli(['search', 'staging', ...scope(), '--explain']);
      assert.equal(text.code, 0, text.stderr);
      const lines = text.stdout.trim().split('\n');
      assert.equal(lines.length, 2);
      assert.match(
        lines[0]!,
        new RegExp(`^\\d\\.\\d{3}  ${seeded.deploy}  memory/fact \\[ci\\]  We deploy to staging`),
      );
      assert.match(
        lines[1]!,
        /relevance \d\.\d{3} \(bm25 \d+\.\d{2}\)\s+tags \d\.\d{3}\s+recency ×\d\.\d{3}\s+access ×\d\.\d{3}/,
      );
    });

    it('prints one line per result in text, and "no results" when there are none', () => {
      const text = cli(['search', 'deploy', ...scope()]);
      assert.equal(text.code, 0, text.stderr);
      const lines = text.stdout.trim().split('\n');
      assert.equal(lines.length, 2);
      for (const line of lines) assert.match(line, /^\d\.\d{3} {2}memory-\S+ {2}memory\/fact/);
      assert.ok(!text.stdout.includes('relevance'), 'no explanation unless asked');
      const none = cli(['search', 'kubernetes', ...scope()]);
      assert.equal(none.code, 0);
      assert.equal(none.stdout.trim(), 'no results');
    });

    it('refuses options that do not fit the type searched as bad usage, rather than ignoring them', () => {
      for (const [args, message] of [
        [['search', 'deploy', ...scope(), '--conversation', 'c1'], '--conversation is for --type session'],
        [
          ['search', 'deploy', ...scope(), '--type', 'session', '--explain'],
          '--explain is for memory, skill and knowledge',
        ],
      ] as const) {
        const result = cli([...args]);
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, new RegExp(`^error: ${message}`));
      }
    });

    it('fails with a one-line reason on bad input', () => {
      const cases: [string[], RegExp][] = [
        [['search', 'deploy', ...scope(), '--type', 'profile'], /INVALID_INPUT/],
        [['search', 'deploy', ...scope(), '--type', 'session', '--from', 'last week'], /from must be an ISO 8601 date/],
        [['search', 'deploy', ...scope(), '--type', 'note'], /UNKNOWN_TYPE/],
        [['search', 'deploy', ...scope(), '--limit', '500'], /LIMIT_TOO_LARGE/],
        [['search', 'deploy', ...scope(), '--limit', '0'], /INVALID_INPUT/],
        [['search', 'x'.repeat(10_001), ...scope()], /INVALID_INPUT/],
        [['search', 'deploy', '--dir', dir, '--agent', 'a/b'], /INVALID_ID/],
        [['search', 'deploy', '--dir', path.join(dir, 'missing')], /init/],
      ];
      for (const [args, pattern] of cases) {
        const result = cli(args);
        assert.equal(result.code, 1, `${args.slice(0, 2).join(' ')} ${args.slice(-2).join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, pattern);
        assert.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
        assert.equal(result.stdout, '');
      }
    });
  });

  describe('recall', () => {
    it('--json gives items, profile, formatted, chars and tokens', () => {
      const result = json<RecallResult>(['recall', 'deploy', ...scope()]);
      assert.deepEqual(
        result.items.map((item) => item.entity.id).sort(),
        [
          seeded.deploy,
          seeded.deployOld,
          seeded.skill,
          seeded.sharedSkill,
          seeded.knowledge,
          seeded.sharedKnowledge,
        ].sort(),
      );
      assert.equal(result.profile?.id, seeded.profile);
      assert.match(
        result.formatted,
        /^Stored notes from Workspace Memory.*\n\n## Profile\n\nprofile `[^`]+` · of user `u` · written [^\n]+\n```text\nName: Ada\nPrefers small PRs\n```\n\n## Memories\n\n/,
      );
      assert.equal(result.chars, result.formatted.length);
      assert.equal(result.tokens, Math.ceil(result.chars / 4));
      for (const item of result.items) {
        assert.ok(['memories', 'skills', 'knowledge'].includes(item.collection));
        assert.ok(result.formatted.includes(`${item.entity.type} \`${item.entity.id}\``));
      }
    });

    it('prints the Markdown in text, with a summary on stderr', () => {
      const text = cli(['recall', 'deploy', ...scope()]);
      assert.equal(text.code, 0, text.stderr);
      const expected = json<RecallResult>(['recall', 'deploy', ...scope(), '--no-profile']);
      assert.match(
        text.stdout,
        /^Stored notes from Workspace Memory.*\n\n## Profile\n\nprofile `[^`]+`.*\n```text\nName: Ada\n/,
      );
      for (const heading of ['## Memories', '## Skills', '## Knowledge']) assert.ok(text.stdout.includes(heading));
      for (const item of expected.items) assert.ok(text.stdout.includes(`${item.entity.type} \`${item.entity.id}\``));
      assert.match(text.stderr, /^6 items, \d+ characters, ~\d+ tokens\n$/);
      const none = cli(['recall', 'kubernetes', '--dir', dir, '--agent', 'a']);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout.trim(), 'Nothing in memory is relevant to "kubernetes".');
      assert.match(none.stderr, /^0 items, 0 characters, ~0 tokens/);
    });

    it('takes the budget and scope options', () => {
      const twoItems = json<RecallResult>(['recall', 'deploy', ...scope(), '--max-items', '2']);
      assert.equal(twoItems.items.length, 2);
      // Budgets with room for the notice (about 220 characters) and a few items.
      const chars = json<RecallResult>(['recall', 'deploy', ...scope(), '--max-chars', '700']);
      assert.ok(chars.chars <= 700);
      assert.ok(chars.items.length > 0);
      const tokens = json<RecallResult>(['recall', 'deploy', ...scope(), '--max-tokens', '160']);
      assert.ok(tokens.tokens <= 160);
      assert.ok(tokens.items.length > 0 && tokens.items.length < 6);
      const noProfile = json<RecallResult>(['recall', 'deploy', ...scope(), '--no-profile']);
      assert.equal(noProfile.profile, null);
      assert.ok(!noProfile.formatted.includes('## Profile'));
      const noShared = json<RecallResult>(['recall', 'deploy', ...scope(), '--no-shared']);
      assert.deepEqual(
        noShared.items.map((item) => item.entity.id).sort(),
        [seeded.deploy, seeded.deployOld, seeded.skill, seeded.knowledge].sort(),
      );
    });

    it('counts an access for the recalled items', async () => {
      json<RecallResult>(['recall', 'staging', ...scope()]);
      const memory = await Memory.open({ dir });
      try {
        assert.equal(await memory.memories.accessCount(seeded.deploy!), 1);
        assert.equal(await memory.memories.accessCount(seeded.deployOld!), 0);
      } finally {
        await memory.close();
      }
    });

    it('treats a value that is not a number as bad usage (exit status 2)', () => {
      for (const args of [
        ['recall', 'deploy', ...scope(), '--max-items', 'many'],
        ['search', 'deploy', ...scope(), '--limit', 'ten'],
      ]) {
        const result = cli(args);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, /must be a whole number/);
        assert.equal(result.stdout, '');
      }
    });

    it('fails with a one-line reason on bad options', () => {
      for (const args of [
        ['--max-items', '500'],
        ['--max-items', '-1'],
        ['--max-chars', '-5'],
        ['--max-tokens', '-1'],
      ]) {
        const result = cli(['recall', 'deploy', ...scope(), ...args]);
        assert.equal(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, /INVALID_INPUT/);
        assert.equal(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
      }
    });
  });

  describe('save --dedup', () => {
    const content = 'The nightly backup of the orders database runs at two';
    const near = 'The nightly backup of the orders database runs at three';

    it('reports deduplicated false, then true for a near-duplicate, on the same entity', () => {
      const first = json<Saved>(['save', 'memory', ...scope(), '--dedup', '--content', content, '--tags', 'ops']);
      assert.equal(first.deduplicated, false);
      assert.equal(first.commit.op, 'create');
      const second = json<Saved>(['save', 'memory', ...scope(), '--dedup', '--content', near, '--tags', 'backup']);
      assert.equal(second.deduplicated, true);
      assert.equal(second.entity.id, first.entity.id);
      assert.equal(second.entity.content, near);
      assert.deepEqual((second.entity as { tags: string[] }).tags, ['ops', 'backup']);
      assert.equal(second.commit.op, 'update');
      assert.equal(second.commit.parent, first.commit.hash);
      const other = json<Saved>(['save', 'memory', ...scope(), '--dedup', '--content', 'Completely different topic']);
      assert.equal(other.deduplicated, false);
      assert.notEqual(other.entity.id, first.entity.id);
    });

    it('works for skills and knowledge, and says so in text', () => {
      const skill = json<Saved>(['save', 'skill', '--dir', dir, '--agent', 'a', '--dedup', '--content', content]);
      assert.equal(skill.deduplicated, false);
      const again = cli(['save', 'skill', '--dir', dir, '--agent', 'a', '--dedup', '--content', near]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`^updated near-duplicate ${skill.entity.id} \\(commit [0-9a-f]{12}\\)`));
      const knowledge = json<Saved>([
        'save',
        'knowledge',
        '--dir',
        dir,
        '--agent',
        'a',
        '--dedup',
        '--content',
        content,
        '--source',
        'a.md',
      ]);
      const otherSource = json<Saved>([
        'save',
        'knowledge',
        '--dir',
        dir,
        '--agent',
        'a',
        '--dedup',
        '--content',
        near,
        '--source',
        'b.md',
      ]);
      assert.equal(otherSource.deduplicated, false, 'knowledge merges only with the same source');
      assert.notEqual(otherSource.entity.id, knowledge.entity.id);
      const fresh = cli(['save', 'memory', ...scope(), '--dedup', '--content', 'Brand new fact']);
      assert.match(fresh.stdout, /^saved memory-\S+ \(commit [0-9a-f]{12}\)/);
    });

    it('without --dedup always saves a new entity and has no deduplicated field', () => {
      const first = json<Saved>(['save', 'memory', ...scope(), '--content', content]);
      const second = json<Saved>(['save', 'memory', ...scope(), '--content', content]);
      assert.notEqual(second.entity.id, first.entity.id);
      assert.equal('deduplicated' in second, false);
    });

    it('refuses --dedup for sessions and profiles', () => {
      for (const type of ['session', 'profile']) {
        const result = cli(['save', type, ...scope(), '--dedup', '--content', content]);
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, /INVALID_INPUT/);
        assert.equal(result.stderr.trim().split('\n').length, 1);
      }
    });
  });

  describe('reindex', () => {
    it('--json reports how many entities were indexed, and search still works', () => {
      const before = json<SearchResult[]>(['search', 'deploy', ...scope()]);
      const report = json<{ indexed: number }>(['reindex', '--dir', dir]);
      // Eight searchable entities; the profile is not indexed.
      assert.deepEqual(report, { indexed: 8 });
      const after = json<SearchResult[]>(['search', 'deploy', ...scope()]);
      assert.deepEqual(
        after.map((result) => result.entity.id),
        before.map((result) => result.entity.id),
      );
      const text = cli(['reindex', '--dir', dir]);
      assert.equal(text.code, 0, text.stderr);
      assert.equal(text.stdout.trim(), `indexed ${report.indexed} entities`);
    });

    it('repairs an index emptied behind the store’s back', () => {
      const db = new DatabaseSync(path.join(dir, 'memory.db'));
      db.exec(
        "INSERT INTO fts_memory (fts_memory) VALUES ('delete-all'); DELETE FROM search_docs; DELETE FROM search_pending; DELETE FROM search_stats;",
      );
      db.close();
      assert.deepEqual(json<SearchResult[]>(['search', 'deploy', ...scope()]), []);
      json<{ indexed: number }>(['reindex', '--dir', dir]);
      assert.equal(json<SearchResult[]>(['search', 'deploy', ...scope()]).length, 2);
    });
  });
});
