import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { exportToInstructions, exportToMcpGraph, importFrom } from '../../src/core/interop';
import { importRefs } from '../../src/core/interop/claude-imports';
import type { Memory } from '../../src/core/memory';
import type { MemoryEntity, SkillEntity } from '../../src/core/types';
import { openTemp, rejectsWith, tempDir } from './helpers';

/** Giving memories back: the generated block in instruction files, and the MCP memory graph. */

const HAND_WRITTEN = '# Agents\n\nHand-written rules stay as they are.\n';

describe('interop: exporting', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  let root: string;
  const extra: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    ({ memory, cleanup } = await openTemp());
    root = tempDir('wm-interop-');
    await memory.memories.save('agent', undefined, {
      content: 'We deploy on Fridays.\nNever on Mondays.',
      tags: ['deploy', 'release'],
      category: 'decision',
    });
    await memory.memories.save('agent', undefined, { content: 'The API is at /v2.', tags: ['api'], category: 'fact' });
    await memory.skills.save('agent', undefined, {
      content: 'Release:\n\n```sh\nnpm version minor\ngit push --tags\n```',
      tags: ['release'],
      category: 'workflow',
      status: 'active',
      appliesTo: ['**/*.{ts,tsx}', 'deploy/**'],
    });
    await memory.memories.save('agent', 'ana', { content: "Ana's own note.", category: 'fact' });
  });
  afterEach(async () => {
    await cleanup();
    for (const close of extra.splice(0)) await close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const file = (name: string) => path.join(root, name);
  const read = (name: string) => fs.readFileSync(file(name), 'utf8');
  const select = { agentId: 'agent' };
  const toAgents = (options: Partial<Parameters<typeof exportToInstructions>[1]> = {}) =>
    exportToInstructions(memory, { target: 'agents-md', workspaceRoot: root, select, ...options });
  const contents = async (store: Memory) =>
    [...(await store.memories.list('agent')), ...(await store.skills.list('agent'))]
      .filter((item) => item.userId === undefined)
      .map((item: MemoryEntity | SkillEntity) => ({
        id: item.id,
        content: item.content,
        tags: item.tags,
        category: item.category,
        appliesTo: item.appliesTo,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));

  it('writes the block after the file as it was, then replaces only the block: the rest stays byte for byte', async () => {
    fs.writeFileSync(file('AGENTS.md'), HAND_WRITTEN);
    const first = await toAgents();
    assert.equal(first.action, 'created');
    assert.equal(first.ids.length, 3, "another user's memory is not the workspace's");
    const written = read('AGENTS.md');
    assert.ok(written.startsWith(`${HAND_WRITTEN}\n<!-- workspace-memory:begin sha256=`));
    assert.match(written, /### Decisions\n\n<!-- wm:item .*\n- We deploy on Fridays\.\n {2}Never on Mondays\./);
    // A person writes above and below the block.
    const before = `${written.replace(HAND_WRITTEN, `${HAND_WRITTEN}More by hand.\n`)}\n## After\nStill mine.\n`;
    fs.writeFileSync(file('AGENTS.md'), before);
    assert.equal((await toAgents()).action, 'unchanged');
    assert.equal(read('AGENTS.md'), before);
    await memory.memories.save('agent', undefined, { content: 'Staging resets nightly.', category: 'fact' });
    assert.equal((await toAgents()).action, 'updated');
    const after = read('AGENTS.md');
    const outside = (text: string) => [
      text.slice(0, text.indexOf('<!-- workspace-memory:begin')),
      text.slice(text.indexOf('<!-- workspace-memory:end -->')),
    ];
    assert.deepEqual(outside(after), outside(before));
    assert.match(after, /Staging resets nightly\./);
  });

  it('keeps CRLF line ends and a file without a final line break', async () => {
    fs.writeFileSync(file('CLAUDE.md'), '# Rules\r\nBe kind.');
    await exportToInstructions(memory, { target: 'claude-md', workspaceRoot: root, select });
    const written = read('CLAUDE.md');
    assert.ok(written.startsWith('# Rules\r\nBe kind.\r\n\r\n<!-- workspace-memory:begin'));
    assert.ok(!/[^\r]\n/.test(written), 'every line ends in CRLF');
    assert.equal(
      (await exportToInstructions(memory, { target: 'claude-md', workspaceRoot: root, select })).action,
      'unchanged',
    );
  });

  it('refuses a block edited by hand, and leaves the file as it is', async () => {
    fs.writeFileSync(file('AGENTS.md'), HAND_WRITTEN);
    await toAgents();
    const edited = read('AGENTS.md').replace('Never on Mondays.', 'Never on Mondays or Tuesdays.');
    fs.writeFileSync(file('AGENTS.md'), edited);
    const error = await rejectsWith(toAgents(), 'EXPORT_CONFLICT');
    assert.match(error.message, /edited by hand/);
    assert.equal(read('AGENTS.md'), edited);
  });

  it('refuses an unterminated, a duplicated or a stray marker, and leaves the file as it is', async () => {
    await toAgents();
    const block = read('AGENTS.md');
    const cases = {
      unterminated: `${HAND_WRITTEN}\n${block.replace('<!-- workspace-memory:end -->\n', '')}`,
      duplicated: `${block}\n${block}`,
      stray: `${HAND_WRITTEN}<!-- workspace-memory:end -->\n`,
    };
    for (const [name, text] of Object.entries(cases)) {
      fs.writeFileSync(file('AGENTS.md'), text);
      const error = await rejectsWith(toAgents(), 'EXPORT_CONFLICT');
      assert.match(error.message, /not terminated|second Workspace Memory block|more than one|without a begin/, name);
      assert.equal(read('AGENTS.md'), text, name);
      // Importing such a file imports none of it, rather than the block's text as hand-written rules.
      const report = await importFrom(memory, {
        format: 'copilot',
        path: 'AGENTS.md',
        workspaceRoot: root,
        agentId: 'agent',
      });
      assert.equal(report.created, 0, name);
      assert.equal(report.errors.length, 1, name);
    }
  });

  it('a marker shown in a fenced code block is no marker; a duplicated block names its lines once', async () => {
    const doc = `${HAND_WRITTEN}\n\`\`\`md\n<!-- workspace-memory:begin sha256=abc -->\n<!-- workspace-memory:end -->\n\`\`\`\n`;
    fs.writeFileSync(file('AGENTS.md'), doc);
    assert.equal((await toAgents()).action, 'created');
    assert.ok(read('AGENTS.md').startsWith(doc));
    assert.equal((await toAgents()).action, 'unchanged', 'the block written is found again after the fence');
    const block = read('AGENTS.md').slice(doc.length + 1);
    fs.writeFileSync(file('AGENTS.md'), `${block}\n${block}`);
    const error = await rejectsWith(toAgents(), 'EXPORT_CONFLICT');
    const second = block.split('\n').length + 1;
    assert.match(error.message, new RegExp(`\\(begin markers on lines 1, ${second}\\): it was not written`));
    assert.equal(error.message.split(String(second)).length, 2, 'the line once');
  });

  it('the block imported back duplicates nothing; into a fresh store it brings the items whole, under their ids', async () => {
    fs.writeFileSync(file('AGENTS.md'), HAND_WRITTEN);
    await toAgents();
    const back = await importFrom(memory, {
      format: 'copilot',
      path: 'AGENTS.md',
      workspaceRoot: root,
      agentId: 'agent',
    });
    assert.equal(back.unchanged, 3);
    assert.equal(back.created, 1, 'the hand-written section only');
    const fresh = await openTemp();
    extra.push(fresh.cleanup);
    const again = await importFrom(fresh.memory, {
      format: 'copilot',
      path: 'AGENTS.md',
      workspaceRoot: root,
      agentId: 'agent',
    });
    assert.equal(again.created, 4);
    const original = await contents(memory);
    const copied = await contents(fresh.memory);
    for (const item of original.filter((entry) => !entry.id.includes('-imp-'))) {
      assert.deepEqual(
        copied.find((entry) => entry.id === item.id),
        item,
      );
    }
  });

  it('writes an @path as a code span, so Claude Code imports nothing, and the round trip gives the text back exactly', async () => {
    const secret = 'Credentials live in @~/.aws/credentials, see @docs/aws.md.\nKeep `@scope/pkg` as it is.';
    const [saved] = await memory.memories.save('agent', undefined, {
      content: secret,
      category: 'fact',
      tags: ['aws'],
    });
    const select = { agentId: 'agent', tags: ['aws'] };
    await exportToInstructions(memory, { target: 'claude-md', workspaceRoot: root, select });
    const written = read('CLAUDE.md');
    assert.match(written, /^- Credentials live in `@~\/\.aws\/credentials,` see `@docs\/aws\.md\.`$/m);
    assert.match(written, /^ {2}Keep `@scope\/pkg` as it is\.$/m);
    assert.deepEqual(importRefs(written), [], 'no @ import left for Claude Code');
    const fresh = await openTemp();
    extra.push(fresh.cleanup);
    await importFrom(fresh.memory, { format: 'claude', path: 'CLAUDE.md', workspaceRoot: root, agentId: 'agent' });
    assert.equal((await fresh.memory.memories.get(saved.id))?.content, secret);
    assert.equal(
      (await importFrom(memory, { format: 'claude', path: '', workspaceRoot: root, agentId: 'agent' })).unchanged,
      1,
    );
  });

  it('does not write back into a file what was imported from it', async () => {
    fs.writeFileSync(file('CLAUDE.md'), '# Rules\nUse pnpm.\n');
    await importFrom(memory, { format: 'claude', path: 'CLAUDE.md', workspaceRoot: root, agentId: 'agent' });
    const report = await exportToInstructions(memory, { target: 'claude-md', workspaceRoot: root, select });
    assert.equal(report.ids.length, 3);
    assert.equal(read('CLAUDE.md').split('Use pnpm.').length, 2, 'once, as written by hand');
    const agents = await toAgents();
    assert.equal(agents.ids.length, 4, 'another file gets it');
  });

  it('selects by type, category and tag; a dry run writes nothing', async () => {
    const report = await toAgents({
      select: { agentId: 'agent', types: ['memory'], tags: ['release', 'api'] },
      dryRun: true,
    });
    assert.equal(report.ids.length, 2);
    assert.ok(!fs.existsSync(file('AGENTS.md')));
    const decisions = await toAgents({ select: { agentId: 'agent', userId: 'ana', categories: ['fact'] } });
    assert.equal(decisions.ids.length, 2, "the workspace's fact and Ana's");
    await rejectsWith(toAgents({ select: { agentId: 'agent', categories: ['convention'] } }), 'INVALID_INPUT');
  });

  it('refuses a file of another kind, or one in .git or the store, and writes nothing', async () => {
    fs.mkdirSync(file('.git'));
    fs.writeFileSync(file('.git/config'), '[core]\n');
    fs.writeFileSync(file('package.json'), '{}\n');
    const refused = async (made: Promise<unknown>, message: RegExp) => {
      const error = await rejectsWith(made, 'INVALID_INPUT');
      assert.match(error.message, message);
    };
    await refused(toAgents({ file: '.git/config' }), /in \.git\/: an export never writes there/);
    await refused(toAgents({ file: '.git/notes.md' }), /in \.git\//);
    await refused(toAgents({ file: '.workspace-memory/AGENTS.md' }), /in \.workspace-memory\//);
    await refused(toAgents({ file: 'package.json' }), /package\.json is not a Markdown file/);
    await refused(exportToMcpGraph(memory, { workspaceRoot: root, file: 'notes.md', select }), /not a JSON Lines file/);
    assert.equal(read('.git/config'), '[core]\n');
    assert.equal(read('package.json'), '{}\n');
    assert.deepEqual(fs.readdirSync(root).sort(), ['.git', 'package.json']);
    assert.equal((await toAgents({ file: 'docs/rules.mdc' })).file, 'docs/rules.mdc');
  });

  it('refuses a selection that matches nothing, and leaves the block there as it was', async () => {
    await toAgents();
    const before = read('AGENTS.md');
    const error = await rejectsWith(toAgents({ select: { agentId: 'agent', tags: ['nosuchtag'] } }), 'NOT_FOUND');
    assert.match(error.message, /No memories or skills of agent agent match tag nosuchtag/);
    await rejectsWith(exportToMcpGraph(memory, { workspaceRoot: root, select: { agentId: 'nobody' } }), 'NOT_FOUND');
    assert.equal(read('AGENTS.md'), before);
    assert.ok(!fs.existsSync(file('memory.jsonl')));
  });

  it('writes through a link inside the workspace and refuses one leading outside', async () => {
    fs.writeFileSync(file('AGENTS.md'), HAND_WRITTEN);
    fs.symlinkSync('AGENTS.md', file('CLAUDE.md'));
    const report = await exportToInstructions(memory, { target: 'claude-md', workspaceRoot: root, select });
    assert.equal(report.file, 'AGENTS.md');
    assert.ok(fs.lstatSync(file('CLAUDE.md')).isSymbolicLink());
    const outside = tempDir('wm-outside-');
    try {
      fs.mkdirSync(file('.github'));
      fs.symlinkSync(path.join(outside, 'x.md'), file('.github/copilot-instructions.md'));
      await rejectsWith(
        exportToInstructions(memory, { target: 'copilot-instructions', workspaceRoot: root, select }),
        'INVALID_INPUT',
      );
      await rejectsWith(toAgents({ file: '../AGENTS.md' }), 'INVALID_INPUT');
      assert.deepEqual(fs.readdirSync(outside), []);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("exports to the MCP memory graph keeping the server's own lines, and round trips", async () => {
    const theirs = [
      '{"type":"entity","name":"John","entityType":"person","observations":["Likes tea"]}',
      '{"type":"relation","from":"John","to":"Acme","relationType":"works_at"}',
      '{ broken line kept as it is',
    ];
    fs.writeFileSync(file('memory.jsonl'), `${theirs.join('\n')}\n`);
    const graph = { workspaceRoot: root, file: 'memory.jsonl', select };
    const report = await exportToMcpGraph(memory, graph);
    assert.equal(report.action, 'updated');
    assert.equal(report.kept, 3);
    const lines = read('memory.jsonl').trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 3), theirs);
    assert.equal(lines.length, 6);
    assert.equal((await exportToMcpGraph(memory, graph)).action, 'unchanged');

    const back = await importFrom(memory, {
      format: 'mcp-memory',
      path: 'memory.jsonl',
      workspaceRoot: root,
      agentId: 'agent',
    });
    assert.equal(back.unchanged, 3, 'its own entities are recognised');
    assert.equal(back.created, 1, "the server's John");
    const fresh = await openTemp();
    extra.push(fresh.cleanup);
    await importFrom(fresh.memory, {
      format: 'mcp-memory',
      path: 'memory.jsonl',
      workspaceRoot: root,
      agentId: 'agent',
    });
    const copied = await contents(fresh.memory);
    for (const item of (await contents(memory)).filter((entry) => !entry.id.includes('-imp-'))) {
      assert.deepEqual(
        copied.find((entry) => entry.id === item.id),
        item,
      );
    }

    // John came from this graph: exporting again does not add a copy of him.
    const [api] = (await memory.memories.list('agent')).filter((item) => item.content === 'The API is at /v2.');
    await memory.memories.delete(api!.id);
    const after = await exportToMcpGraph(memory, graph);
    assert.equal(after.ids.length, 2);
    assert.ok(!read('memory.jsonl').includes('The API is at /v2.'));
    assert.deepEqual(read('memory.jsonl').split('\n').slice(0, 3), theirs);
  });

  it('refuses to write a graph into a file that is not one', async () => {
    fs.writeFileSync(file('memory.jsonl'), '# notes\n');
    await rejectsWith(exportToMcpGraph(memory, { workspaceRoot: root, select }), 'EXPORT_CONFLICT');
    assert.equal(read('memory.jsonl'), '# notes\n');
  });
});
