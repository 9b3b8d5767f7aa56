import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { importFrom, type ImportFromOptions, type ImportFromReport } from '../../src/core/interop';
import type { Memory } from '../../src/core/memory';
import type { MemoryEntity, SkillEntity } from '../../src/core/types';
import { openTemp, tempDir } from './helpers';

/** Each format read from files such as the tools write them, into a fresh store. */

type Item = MemoryEntity | SkillEntity;

function workspace(files: Record<string, string>): string {
  const root = tempDir('wm-interop-');
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('interop: each format', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let root: string;

  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
  });
  afterEach(async () => {
    await cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const run = (options: Partial<ImportFromOptions> & { format: string; path: string }): Promise<ImportFromReport> =>
    importFrom(memory, { workspaceRoot: root, agentId: 'agent', ...options });

  /** The imported items, by their first line. */
  async function items(): Promise<Map<string, Item>> {
    const all: Item[] = [...(await memory.memories.list('agent')), ...(await memory.skills.list('agent'))];
    return new Map(all.map((item) => [item.content.split('\n')[0]!, item]));
  }

  it('Copilot: repository instructions, per-file instructions with applyTo, and AGENTS.md at any depth', async () => {
    root = workspace({
      '.github/copilot-instructions.md': '# Project\n\nA TypeScript monorepo.\n\n## Build\n\n- Use pnpm, not npm.\n',
      '.github/instructions/react.instructions.md':
        '---\napplyTo: "src/**/*.tsx, src/**/*.{ts,jsx}"\ndescription: React components\n---\n# Components\nUse function components.\n',
      'AGENTS.md': 'Run `pnpm test` before every commit.\n',
      'packages/api/AGENTS.md': '## Errors\nReturn problem+json.\n',
    });
    const report = await run({ format: 'copilot', path: '' });
    assert.equal(report.created, 5, JSON.stringify(report.items));
    assert.deepEqual(report.errors, []);
    const found = await items();
    assert.equal(found.get('# Project')?.type, 'skill');
    assert.equal(found.get('# Project')?.category, 'procedure');
    assert.equal(found.get('# Project')?.appliesTo, undefined);
    assert.equal(found.get('## Build')?.content, '## Build\n\n- Use pnpm, not npm.');
    const react = found.get('React components')!;
    assert.deepEqual(react.appliesTo, ['src/**/*.tsx', 'src/**/*.{ts,jsx}']);
    assert.deepEqual(react.tags, ['react']);
    assert.match(react.content, /# Components\nUse function components\.$/);
    assert.equal(found.get('Run `pnpm test` before every commit.')?.appliesTo, undefined);
    assert.deepEqual(found.get('## Errors')?.appliesTo, ['packages/api/**']);
  });

  it('Markdown: empty sections are skipped, a file without headings is one item, a code block is never cut', async () => {
    root = workspace({
      'AGENTS.md': '# Guide\n\n## Empty\n\n## Setup\n\n```sh\n# not a heading\npnpm i\n```\n\n## Trailing\n',
      'sub/AGENTS.md': 'Just one paragraph,\nno headings.\n',
    });
    const report = await run({ format: 'copilot', path: '' });
    assert.deepEqual(
      report.items.map((item) => [item.title, item.source]),
      [
        ['Setup', 'AGENTS.md:1'],
        ['Just one paragraph,', 'sub/AGENTS.md:1'],
      ],
    );
    const found = await items();
    assert.equal(
      found.get('# Guide')?.content,
      '# Guide\n\n## Empty\n\n## Setup\n\n```sh\n# not a heading\npnpm i\n```',
    );
  });

  it('Copilot memory tool: each note of the folder pointed at, one memory per section', async () => {
    root = workspace({
      'notes/memories/build.md': '# Build notes\n- The CI uses Node 22.\n\n## Flaky\nThe e2e suite retries twice.\n',
      'notes/memories/repo/people.md': 'Ana owns the billing service.\n',
    });
    const report = await run({ format: 'copilot-memory', path: 'notes/memories' });
    assert.equal(report.created, 3);
    const found = await items();
    assert.equal(found.get('Ana owns the billing service.')?.type, 'memory');
    assert.equal(found.get('Ana owns the billing service.')?.category, 'fact');
  });

  it('Claude Code: CLAUDE.md with its @imports (inside the workspace, once, no cycles), nested CLAUDE.md and rules with paths', async () => {
    root = workspace({
      'CLAUDE.md':
        '# Guide\nSee @docs/style.md and @docs/style.md again, not `@docs/code.md`.\nAlso @~/.claude/personal.md and @../outside.md.\n\n## Commands\n- `pnpm build`\n',
      'docs/style.md': '# Style\nNamed exports only. See @loop.md\n',
      'docs/loop.md': 'Back to @style.md, which is read once.\n',
      'docs/code.md': '# Never imported\n',
      'web/CLAUDE.md': '# Web\nUse Tailwind.\n',
      '.claude/rules/api.md': '---\npaths:\n  - "src/api/**/*.ts"\n---\n# API rules\nValidate input with zod.\n',
    });
    const report = await run({ format: 'claude', path: '' });
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.files.sort(), [
      '.claude/rules/api.md',
      'CLAUDE.md',
      'docs/loop.md',
      'docs/style.md',
      'web/CLAUDE.md',
    ]);
    const found = await items();
    assert.ok(found.has('# Style') && found.has('Back to @style.md, which is read once.'));
    assert.ok(!found.has('# Never imported'), 'an @ inside a code span is no import');
    assert.deepEqual(found.get('# Web')?.appliesTo, ['web/**']);
    assert.deepEqual(found.get('# API rules')?.appliesTo, ['src/api/**/*.ts']);
    assert.deepEqual(found.get('# API rules')?.tags, ['api']);
    const outside = report.items.filter((item) => item.reason === 'the import leads outside the workspace');
    assert.deepEqual(outside.map((item) => item.title).sort(), ['@../outside.md', '@~/.claude/personal.md']);
    assert.equal(report.created, 6);
  });

  it('Claude Code: a CLAUDE.md reached through imports keeps its own scope; a file two importers share gets the broadest', async () => {
    root = workspace({
      'CLAUDE.md': '# Root\nRoot rule.\n',
      'win/CLAUDE.md': '# Win\nSee @../docs/rules.md\n',
      'docs/rules.md': '# Rules\nShared rule, see @../CLAUDE.md and @deep.md\n',
      'docs/deep.md': '# Deep\nDeeper rule.\n',
      'mac/CLAUDE.md': '# Mac\nSee @../docs/rules.md\n',
    });
    await run({ format: 'claude', path: 'win/CLAUDE.md' });
    let found = await items();
    assert.equal(found.get('# Root')?.appliesTo, undefined, 'the root CLAUDE.md is not re-scoped to win/**');
    assert.deepEqual(found.get('# Rules')?.appliesTo, ['win/**']);
    const report = await run({ format: 'claude', path: '' });
    assert.equal(report.updated, 2, 'docs/rules.md and docs/deep.md widen; the root CLAUDE.md stays');
    found = await items();
    assert.equal(found.get('# Root')?.appliesTo, undefined);
    assert.deepEqual(found.get('# Rules')?.appliesTo, ['mac/**', 'win/**']);
    assert.deepEqual(found.get('# Deep')?.appliesTo, ['mac/**', 'win/**']);
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), '# Root\nRoot rule, see @docs/rules.md\n');
    await run({ format: 'claude', path: '' });
    found = await items();
    assert.equal(found.get('# Rules')?.appliesTo, undefined, 'imported by the project-wide CLAUDE.md too');
    assert.equal(found.get('# Deep')?.appliesTo, undefined);
  });

  it('Claude Code: an @path in a code span or a fenced block is no import', async () => {
    root = workspace({
      'CLAUDE.md':
        '# Guide\n`@a.md` and ``x @b.md``\n\n```sh\ncat @c.md\n```\n\n~~~\n@d.md\n~~~\n\n- item\n  ```\n  @e.md\n  ```\n',
      'a.md': '# A\n',
      'b.md': '# B\n',
      'c.md': '# C\n',
      'd.md': '# D\n',
      'e.md': '# E\n',
    });
    const report = await run({ format: 'claude', path: 'CLAUDE.md' });
    assert.deepEqual(report.files, ['CLAUDE.md']);
  });

  it('Claude Code: imports stop after five hops', async () => {
    const chain: Record<string, string> = { 'CLAUDE.md': 'Start @d1.md\n' };
    for (let i = 1; i <= 7; i++) chain[`d${i}.md`] = `Level ${i} @d${i + 1}.md\n`;
    root = workspace(chain);
    const report = await run({ format: 'claude', path: 'CLAUDE.md' });
    assert.equal(report.files.length, 6, 'CLAUDE.md and five hops');
    assert.ok(report.items.some((item) => item.title === '@d6.md' && /at most 5 levels/.test(item.reason ?? '')));
  });

  it('Claude Code auto memory: MEMORY.md as facts', async () => {
    root = workspace({ '.claude/memory/MEMORY.md': '# Memory\n- The staging DB is reset nightly.\n' });
    const report = await run({ format: 'claude-memory', path: '.claude/memory' });
    assert.equal(report.created, 1);
    const [item] = await memory.memories.list('agent');
    assert.equal(item?.category, 'fact');
  });

  it('Cursor: .mdc rules with globs (unquoted, as Cursor writes them), alwaysApply and description, and .cursorrules', async () => {
    root = workspace({
      '.cursor/rules/testing.mdc':
        '---\ndescription: How tests are written\nglobs: *.test.ts,src/**/*.spec.ts\nalwaysApply: false\n---\n# Testing\nUse vitest.\n',
      '.cursor/rules/always.mdc': '---\nglobs: src/**\nalwaysApply: true\n---\nAnswer in English.\n',
      '.cursorrules': 'Prefer small functions.\n',
    });
    const report = await run({ format: 'cursor', path: '' });
    assert.deepEqual(report.errors, []);
    assert.equal(report.created, 3);
    const found = await items();
    const testing = found.get('How tests are written')!;
    assert.deepEqual(testing.appliesTo, ['*.test.ts', 'src/**/*.spec.ts']);
    assert.deepEqual(testing.tags, ['testing']);
    assert.equal(found.get('Answer in English.')?.appliesTo, undefined, 'alwaysApply wins over globs');
    assert.equal(found.get('Prefer small functions.')?.type, 'skill');
  });

  it('Windsurf: rules by trigger, globs only for glob rules', async () => {
    root = workspace({
      '.windsurf/rules/style.md': '---\ntrigger: glob\nglobs: "**/*.py"\n---\nUse black.\n',
      '.windsurf/rules/always.md': '---\ntrigger: always_on\nglobs: "**/*.md"\n---\nBe brief.\n',
    });
    const report = await run({ format: 'windsurf', path: '.windsurf/rules' });
    assert.equal(report.created, 2);
    const found = await items();
    assert.deepEqual(found.get('Use black.')?.appliesTo, ['**/*.py']);
    assert.equal(found.get('Be brief.')?.appliesTo, undefined);
  });

  it("Cline: the memory bank's files as memories, categories by file", async () => {
    root = workspace({
      'memory-bank/projectbrief.md': '# Brief\nA billing service.\n',
      'memory-bank/progress.md': '# Progress\n- Invoices done.\n',
      'memory-bank/systemPatterns.md': '# Patterns\nEvent sourcing.\n',
    });
    const report = await run({ format: 'cline', path: '' });
    assert.equal(report.created, 3);
    const found = await items();
    assert.equal(found.get('# Progress')?.category, 'task');
    assert.equal(found.get('# Patterns')?.category, 'decision');
    assert.deepEqual(found.get('# Patterns')?.tags, ['system-patterns']);
    assert.equal(found.get('# Brief')?.category, 'fact');
  });

  it('MCP memory graph: entities with observations and relations; broken lines listed by number, good ones imported', async () => {
    root = workspace({
      'memory.jsonl': [
        '{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish"]}',
        '{"type":"entity","name":"Anthropic","entityType":"organization","observations":[]}',
        'not json at all',
        '{"type":"relation","from":"John_Smith","to":"Anthropic","relationType":"works_at"}',
        '{"type":"entity","entityType":"person","observations":["no name"]}',
        '{"type":"relation","from":"Nobody","to":"Anthropic","relationType":"admires"}',
        '{"type":"thing"}',
        '',
      ].join('\n'),
    });
    const report = await run({ format: 'mcp-memory', path: 'memory.jsonl' });
    assert.deepEqual(
      report.errors.map((error) => error.line),
      [3, 5, 7],
    );
    assert.equal(report.created, 2);
    assert.equal(report.skipped, 1, 'an entity that says nothing');
    const found = await items();
    const john = found.get('John_Smith (person)')!;
    assert.equal(john.content, 'John_Smith (person)\n- Speaks fluent Spanish\n- works_at Anthropic');
    assert.deepEqual(john.tags, ['person']);
    assert.ok(found.has('Nobody admires Anthropic'));
  });

  it('RepoMemory export: memories and skills keep category, status and tags; chunks, sessions and profiles are left out', async () => {
    const exported = {
      version: 1,
      exportedAt: '2026-01-01T00:00:00.000Z',
      entities: {
        memories: [
          {
            id: 'memory-a1',
            type: 'memory',
            agentId: 'agent-1',
            userId: 'u',
            content: 'User prefers TypeScript strict mode',
            tags: ['preferences'],
            category: 'decision',
          },
        ],
        skills: [
          {
            id: 'skill-b2',
            type: 'skill',
            agentId: 'agent-1',
            content: 'Deploy with docker compose',
            tags: ['deploy'],
            category: 'workflow',
            status: 'draft',
          },
        ],
        knowledge: [
          { id: 'knowledge-c3', content: 'API rate limit is 100 req/min', tags: ['api'] },
          { id: 'knowledge-c4', content: 'A chunk', source: 'docs/api.md', chunkIndex: 0 },
        ],
        sessions: [{ id: 'session-d5', content: 'transcript' }],
        profiles: [{ id: 'profile-e6', content: 'Senior developer' }],
      },
      accessCounts: {},
    };
    root = workspace({ 'backup.json': JSON.stringify(exported) });
    const report = await run({ format: 'repomemory', path: 'backup.json' });
    assert.equal(report.created, 3);
    assert.equal(report.skipped, 3);
    const found = await items();
    assert.equal(found.get('User prefers TypeScript strict mode')?.category, 'decision');
    const skill = found.get('Deploy with docker compose') as SkillEntity;
    assert.equal(skill.category, 'workflow');
    assert.equal(skill.status, 'draft');
    assert.deepEqual(found.get('API rate limit is 100 req/min')?.tags, ['api']);
    // Another export of the same store, under another name, updates rather than duplicates.
    exported.entities.memories[0]!.content = 'User requires TypeScript strict mode';
    fs.writeFileSync(path.join(root, 'backup-2.json'), JSON.stringify(exported));
    const again = await run({ format: 'repomemory', path: 'backup-2.json' });
    assert.equal(again.created, 0);
    assert.equal(again.updated, 1);
  });

  it('aipack-memory: entries as JSON lines or a JSON list, concepts as tags, expired ones left out', async () => {
    const entry = (id: string, content: string, extra = {}) => ({
      id,
      content,
      concepts: ['ui', 'dark-mode'],
      confidence: 0.8,
      source: 'tool',
      createdAt: 1,
      updatedAt: 1,
      recallCount: 0,
      ...extra,
    });
    root = workspace({
      '.aipack/memory/memories.jsonl': `${JSON.stringify(entry('mem_1', '用户偏好深色主题'))}\n{broken\n`,
      '.aipack/memory/old.json': JSON.stringify([
        entry('mem_2', 'Old habit', { expiresAt: 1000 }),
        entry('mem_3', 'Likes tabs'),
      ]),
    });
    const report = await run({ format: 'aipack', path: '' });
    assert.equal(report.created, 2);
    assert.equal(report.skipped, 1);
    assert.deepEqual(
      report.errors.map((error) => [error.source, error.line]),
      [['.aipack/memory/memories.jsonl', 2]],
    );
    const found = await items();
    assert.deepEqual(found.get('用户偏好深色主题')?.tags, ['ui', 'dark-mode']);
  });
});
