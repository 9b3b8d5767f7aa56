import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isMemoryError } from '../../src/core/errors';
import { describeFormats, detectSources, IMPORT_FORMATS } from '../../src/core/interop';
import { tempDir } from './helpers';

/** What a workspace holds from other tools, found before anything is imported. */

describe('interop: detecting sources', () => {
  let root: string;

  beforeEach(() => {
    root = tempDir('wm-interop-');
    const files: Record<string, string> = {
      '.github/copilot-instructions.md': '# A\ntext\n\n## B\ntext\n',
      '.github/instructions/react.instructions.md': '---\napplyTo: "**/*.tsx"\n---\nUse hooks.\n',
      'AGENTS.md': 'One rule.\n',
      'packages/api/AGENTS.md': '## X\ny\n',
      'CLAUDE.md': '# Claude\nSee @docs/more.md\n',
      'docs/more.md': '# More\ntext\n',
      '.claude/rules/api.md': 'API rule.\n',
      '.cursor/rules/testing.mdc': '---\nglobs: *.test.ts\n---\nUse vitest.\n',
      '.cursorrules': 'Legacy rule.\n',
      '.windsurf/rules/style.md': 'Style.\n',
      'memory-bank/progress.md': '# Done\n- a\n',
      'memory.jsonl': '{"type":"entity","name":"A","entityType":"t","observations":["o"]}\n{broken\n',
      'config/memory.json': '{"not": "a graph"}',
      'export.json': JSON.stringify({ version: 1, entities: { memories: [{ id: 'm1', content: 'x' }] } }),
      'package.json': '{"name": "x"}',
      '.aipack/memory/entries.jsonl': '{"id":"e1","content":"c","concepts":[]}\n',
      'node_modules/pkg/AGENTS.md': 'Not ours.\n',
      'ignored/AGENTS.md': 'Ignored.\n',
      '.gitignore': 'ignored/\n',
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('lists each source with its format and how many items it would give, leaving out what is not one', async () => {
    const found = await detectSources(root);
    const shown = Object.fromEntries(found.map((source) => [`${source.format} ${source.path}`, source.items]));
    assert.deepEqual(shown, {
      'copilot .github/copilot-instructions.md': 2,
      'copilot .github/instructions/react.instructions.md': 1,
      'copilot AGENTS.md': 1,
      'copilot packages/api/AGENTS.md': 1,
      'claude .claude/rules/api.md': 1,
      'claude CLAUDE.md': 2,
      'cursor .cursor/rules/testing.mdc': 1,
      'cursor .cursorrules': 1,
      'windsurf .windsurf/rules/style.md': 1,
      'cline memory-bank/progress.md': 1,
      'mcp-memory memory.jsonl': 1,
      'repomemory export.json': 1,
      'aipack .aipack/memory/entries.jsonl': 1,
    });
    const graph = found.find((source) => source.format === 'mcp-memory');
    assert.equal(graph?.problems, 1);
    assert.match(graph?.problem ?? '', /^line 2: /);
  });

  it('stops with CANCELLED when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(detectSources(root, { signal: controller.signal }), (error) =>
      isMemoryError(error, 'CANCELLED'),
    );
  });

  it('describes every format for a help text', () => {
    assert.deepEqual(
      describeFormats().map((entry) => entry.format),
      [...IMPORT_FORMATS],
    );
    assert.ok(describeFormats().every((entry) => entry.reads.length > 10 && entry.label.length > 3));
  });
});
