import * as assert from 'node:assert/strict';

import { provenanceText, quoteBlock, quoteInline } from '../../src/core/trust/framing';
import { readMarkdown } from './markdown-reader';

describe('framing stored text', () => {
  describe('quoteBlock', () => {
    it('fences text with more backticks than any run inside it', () => {
      for (const text of ['plain', 'a ``` b', '```\nclose\n```', '`'.repeat(12), 'x\n````````\ny', 'a`b``c```d']) {
        const quoted = quoteBlock(text);
        const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
        assert.ok(quoted.startsWith(`${'`'.repeat(Math.max(3, longest + 1))}text\n`), quoted);
        assert.deepEqual(readMarkdown(`before\n\n${quoted}\n\nafter`).fences, [text], quoted);
        assert.equal(readMarkdown(`before\n\n${quoted}\n\nafter`).outside, 'before\nafter');
      }
    });

    it('keeps the first line indented, and drops blank lines around the text', () => {
      assert.equal(quoteBlock('\n\n    indented code\nnext\n\n  '), '```text\n    indented code\nnext\n```');
    });

    it('cannot be closed by a fence of tildes or an indented one', () => {
      const text = '~~~\nstill inside\n   ```\n  ````';
      assert.deepEqual(readMarkdown(`${quoteBlock(text)}\n\nafter`).fences, [text]);
    });
  });

  describe('quoteInline', () => {
    it('keeps stored text on one line, inside a code span nothing in it can end', () => {
      for (const [text, expected] of [
        ['deploy', '`deploy`'],
        ['a`b', '``a`b``'],
        ['`edge`', '`` `edge` ``'],
        ['two\nlines\r\n## heading', '`two lines ## heading`'],
        ['x``y', '```x``y```'],
      ] as const) {
        assert.equal(quoteInline(text), expected);
        assert.deepEqual(readMarkdown(`tags ${quoteInline(text)} end`).spans, [text.replace(/\s+/g, ' ')]);
      }
    });

    it('cuts long text', () => {
      assert.equal(quoteInline('x'.repeat(500), 10), `\`${'x'.repeat(9)}…\``);
    });
  });

  describe('provenanceText', () => {
    it('names the kind of writer, and quotes what clients and people name themselves', () => {
      assert.equal(provenanceText({ kind: 'user', name: 'ada' }), 'by user `ada`');
      assert.equal(
        provenanceText({ kind: 'copilot', model: 'gpt-4.1', tool: 'memory_save' }),
        'by copilot (`gpt-4.1`, via `memory_save`)',
      );
      assert.equal(provenanceText({ kind: 'mcp', name: 'Client `x`\nnew line' }), 'by mcp ``Client `x` new line``');
      assert.equal(provenanceText({ kind: 'unknown', name: 'alice' }), 'by `alice`', 'a commit older than provenance');
      assert.equal(provenanceText({ kind: 'unknown' }), 'by unknown');
      assert.equal(provenanceText({ kind: 'cli; rm -rf ~' }), 'by clirm-rf', 'the kind is a word');
    });
  });
});
