import * as assert from 'node:assert/strict';

import { MemoryError } from '../../src/core/errors';
import { type Chunk, chunkDocument, strategyFor } from '../../src/core/rag/chunkers';
import { random } from './helpers';

/** The original lines a chunk claims to span. */
function linesOf(text: string, chunk: Chunk): string {
  return text
    .split('\n')
    .slice(chunk.startLine - 1, chunk.endLine)
    .join('\n');
}

/** Every chunk's text is exactly the original lines it says it spans. */
function assertExactLines(text: string, chunks: Chunk[]): void {
  for (const chunk of chunks) assert.equal(chunk.text, linesOf(text, chunk), `chunk ${chunk.index}`);
}

/**
 * Chunks are in order, indexed 0.., non-empty, and do not overlap (markdown,
 * paragraph): each starts after the previous one ends, or on the same line
 * when a line too long for one chunk was cut.
 */
function assertOrdered(chunks: Chunk[]): void {
  chunks.forEach((chunk, i) => {
    assert.equal(chunk.index, i);
    assert.ok(chunk.text.trim().length > 0, `chunk ${i} is not blank`);
    assert.ok(chunk.startLine >= 1 && chunk.endLine >= chunk.startLine, `chunk ${i} lines`);
    const previous = chunks[i - 1];
    if (!previous) return;
    if (chunk.startLine === previous.endLine) {
      assert.ok(!previous.text.endsWith('\n') && !chunk.text.startsWith('\n'), `chunk ${i} continues a cut line`);
    } else {
      assert.ok(chunk.startLine > previous.endLine, `chunk ${i} starts after chunk ${i - 1} ends`);
    }
  });
}

/**
 * Every chunk lies within the lines it claims: its text is found in them, its
 * first line ends line startLine and its last line starts line endLine (a
 * chunk cut out of a long line holds part of that line).
 */
function assertWithinLines(text: string, chunks: Chunk[]): void {
  const lines = text.split('\n');
  for (const chunk of chunks) {
    const parts = chunk.text.split('\n');
    assert.ok(linesOf(text, chunk).includes(chunk.text), `chunk ${chunk.index} is within its lines`);
    assert.equal(parts.length, chunk.endLine - chunk.startLine + 1, `chunk ${chunk.index} line count`);
    if (parts.length > 1) {
      assert.ok(lines[chunk.startLine - 1]!.endsWith(parts[0]!), `chunk ${chunk.index} first line`);
      assert.ok(lines[chunk.endLine - 1]!.startsWith(parts.at(-1)!), `chunk ${chunk.index} last line`);
    }
  }
}

/** Every non-blank line from `fromLine` on is inside some chunk. */
function assertCovers(text: string, chunks: Chunk[], fromLine = 1): void {
  const lines = text.split('\n');
  for (let line = fromLine; line <= lines.length; line++) {
    if (lines[line - 1]!.trim() === '') continue;
    assert.ok(
      chunks.some((chunk) => chunk.startLine <= line && line <= chunk.endLine),
      `line ${line} (${JSON.stringify(lines[line - 1]!.slice(0, 40))}) is in a chunk`,
    );
  }
}

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function words(count: number, prefix = 'word'): string {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(' ');
}

describe('rag chunkers', () => {
  describe('strategy by extension', () => {
    it('picks markdown, paragraph or fixed from the file name', () => {
      for (const name of ['README.md', 'docs/page.MDX', 'notes.markdown', 'C:\\docs\\x.Md'])
        assert.equal(strategyFor(name), 'markdown', name);
      for (const name of ['a.txt', 'b.rst', 'c.ADOC']) assert.equal(strategyFor(name), 'paragraph', name);
      for (const name of ['main.ts', 'x.py', 'Makefile', '.env', 'md', 'file.md.bak'])
        assert.equal(strategyFor(name), 'fixed', name);
    });

    it('chunkDocument uses it unless a strategy is given', () => {
      const text = `# Title\n\n${words(30)}\n\n${words(30, 'other')}\n`;
      const markdown = chunkDocument(text, 'a.md', { maxChars: 300 });
      assert.deepEqual(markdown.chunks[0]?.headingPath, ['Title']);
      assert.equal(markdown.title, 'Title');
      const paragraph = chunkDocument(text, 'a.txt', { maxChars: 300 });
      assert.deepEqual(paragraph.chunks[0]?.headingPath, []);
      assert.equal(paragraph.title, undefined);
      // Paragraphs never overlap; fixed windows do.
      assert.equal(paragraph.chunks.map((chunk) => chunk.text).join('\n\n'), text.trim());
      const fixed = chunkDocument(text, 'a.ts', { maxChars: 300, overlap: 50 });
      assert.ok(fixed.chunks.length >= 2);
      assert.ok(fixed.chunks[0]!.text.includes(fixed.chunks[1]!.text.slice(0, 40)));
      const forced = chunkDocument(text, 'a.ts', { strategy: 'markdown', maxChars: 300 });
      assert.deepEqual(forced.chunks, markdown.chunks);
    });
  });

  describe('fixed', () => {
    /**
     * Finds each chunk where the rules put it (the first at the start, each
     * next one within 20% of maxChars of `overlap` characters before the
     * previous one ended; in repetitive text, the match nearest to that) and
     * checks its text, size and line numbers, and that only whitespace is
     * left out between chunks. Returns the offsets.
     */
    function checkFixed(text: string, chunks: Chunk[], maxChars: number, overlap: number): number[] {
      const reach = Math.ceil(maxChars * 0.2);
      const offsets: number[] = [];
      chunks.forEach((chunk, i) => {
        assert.ok(chunk.text.length <= maxChars, `chunk ${i} is ${chunk.text.length} chars`);
        const previousEnd = i === 0 ? 0 : offsets[i - 1]! + chunks[i - 1]!.text.length;
        const target = i === 0 ? text.search(/\S/) : previousEnd - overlap;
        let offset = -1;
        let at = text.indexOf(chunk.text, target - reach - 1);
        while (at !== -1 && at <= target + reach) {
          if (offset === -1 || Math.abs(at - target) < Math.abs(offset - target)) offset = at;
          at = text.indexOf(chunk.text, at + 1);
        }
        assert.ok(offset > (offsets[i - 1] ?? -1), `chunk ${i} starts about overlap before chunk ${i - 1} ends`);
        assert.equal(text.slice(previousEnd, offset).trim(), '', `only whitespace is left out before chunk ${i}`);
        assert.equal(chunk.startLine, lineOfOffset(text, offset), `chunk ${i} startLine`);
        assert.equal(chunk.endLine, lineOfOffset(text, offset + chunk.text.length - 1), `chunk ${i} endLine`);
        assert.deepEqual(chunk.headingPath, []);
        offsets.push(offset);
      });
      const last = chunks.length - 1;
      assert.equal(offsets[last]! + chunks[last]!.text.length, text.trimEnd().length, 'the last chunk reaches the end');
      return offsets;
    }

    /** No chunk starts or ends inside a word. */
    function assertWholeWords(text: string, chunks: Chunk[], offsets: number[]): void {
      chunks.forEach((chunk, i) => {
        const before = text[offsets[i]! - 1];
        assert.ok(before === undefined || /\s/.test(before), `chunk ${i} starts a word: ${JSON.stringify(chunk.text)}`);
        assert.match(chunk.text, /^\S/, `chunk ${i} starts with a word`);
        if (i < chunks.length - 1) assert.match(chunk.text, /\s$/, `chunk ${i} ends after whitespace`);
      });
    }

    it('makes windows of at most maxChars sharing about `overlap` characters, with right line numbers', () => {
      const text = Array.from({ length: 120 }, (_, i) => `line ${i}: ${words(i % 9, 'tok')}`).join('\n');
      for (const [maxChars, overlap] of [
        [200, 50],
        [200, 0],
        [97, 31],
        [1500, 200],
        [50, 49],
      ] as const) {
        const { chunks } = chunkDocument(text, 'x.ts', { maxChars, overlap });
        assert.ok(chunks.length > 1 || text.length <= maxChars);
        const offsets = checkFixed(text, chunks, maxChars, overlap);
        // Sharing all but one character, a window can only move on by cutting hard.
        if (overlap < maxChars * 0.8) assertWholeWords(text, chunks, offsets);
      }
    });

    it('never makes a window that lies inside the previous one, nor one that starts inside a surrogate pair', () => {
      const cases: [string, number, number][] = [
        [`${'word '.repeat(240)}https://example.com/${'p'.repeat(280)}\n${'QUJD'.repeat(800)}`, 1500, 200],
        [`😀  😀😀b\n😀x${'😀'.repeat(11)}`, 20, 5],
      ];
      for (const [text, maxChars, overlap] of cases) {
        const { chunks } = chunkDocument(text, 'x.txt', { strategy: 'fixed', maxChars, overlap });
        const reach = Math.ceil(maxChars * 0.2);
        let previousEnd = 0;
        chunks.forEach((chunk, index) => {
          // Repetitive text holds a chunk many times over: take the copy nearest where it must start.
          const target = index === 0 ? 0 : previousEnd - overlap;
          let offset = -1;
          for (let at = Math.max(0, target - reach - 2); at <= target + reach + 2; at++) {
            if (text.startsWith(chunk.text, at) && (offset === -1 || Math.abs(at - target) < Math.abs(offset - target)))
              offset = at;
          }
          assert.ok(offset >= 0, `chunk ${index} is a slice of the text near its place`);
          assert.ok(offset + chunk.text.length > previousEnd, `chunk ${index} adds text`);
          assert.ok(!/^[\udc00-\udfff]/.test(chunk.text), `chunk ${index} does not start with half a surrogate pair`);
          previousEnd = offset + chunk.text.length;
        });
      }
    });

    it('starts and ends every window at a word boundary, also for words longer than the last 20%', () => {
      const text = [
        'Seven wizards invited participants',
        'from neighbouring kingdoms to the extraordinary tournament,',
        'where apprentices demonstrated transformations.',
      ].join('\n');
      for (const [maxChars, overlap] of [
        [40, 10],
        [40, 0],
        [25, 5],
      ] as const) {
        const { chunks } = chunkDocument(text, 'notes.log', { maxChars, overlap });
        assert.ok(chunks.length > 3);
        assertWholeWords(text, chunks, checkFixed(text, chunks, maxChars, overlap));
      }
    });

    it('cuts at a line break when there is one in the last 20% of the window, else at whitespace, never mid-word', () => {
      const text = `${'a'.repeat(85)}\n${'b '.repeat(200)}`;
      const { chunks } = chunkDocument(text, 'x.ts', { maxChars: 100, overlap: 10 });
      assert.equal(chunks[0]!.text, `${'a'.repeat(85)}\n`);
      assertWholeWords(text, chunks, checkFixed(text, chunks, 100, 10));
      // A line break too early in the window (before its last 20%) is not used: whitespace later is.
      const early = `${'a'.repeat(40)}\n${'word '.repeat(30)}`;
      const first = chunkDocument(early, 'x.ts', { maxChars: 100, overlap: 0 }).chunks[0]!;
      assert.ok(first.text.length > 80 && first.text.endsWith(' '), JSON.stringify(first.text));
    });

    it('cuts hard at maxChars when there is no boundary, and never between a surrogate pair', () => {
      const word = 'x'.repeat(1000);
      const hard = chunkDocument(word, 'x.bin', { maxChars: 300, overlap: 100 }).chunks;
      assert.deepEqual(
        hard.map((chunk) => chunk.text.length),
        [300, 300, 300, 300, 200],
      );
      checkFixed(word, hard, 300, 100);
      const emoji = '🚀'.repeat(500);
      for (const overlap of [20, 21]) {
        const chunks = chunkDocument(emoji, 'x.ts', { maxChars: 101, overlap }).chunks;
        assert.ok(chunks.length > 5);
        for (const chunk of chunks) {
          assert.ok(chunk.text.length <= 101);
          assert.equal(chunk.text.length % 2, 0, 'whole pairs only');
          assert.ok(!/^[\udc00-\udfff]/.test(chunk.text) && !/[\ud800-\udbff]$/.test(chunk.text), 'no split pair');
        }
        // An odd overlap would start inside a pair, so it grows by one.
        const shared = overlap % 2 ? overlap + 1 : overlap;
        assert.equal(chunks.map((chunk, i) => (i === 0 ? chunk.text : chunk.text.slice(shared))).join(''), emoji);
      }
    });

    it('skips leading blank lines and trailing whitespace, keeping first-line indentation and line numbers', () => {
      const text = '\n\n   indented first\nsecond\n\n  \n';
      const { chunks } = chunkDocument(text, 'x.py');
      assert.equal(chunks.length, 1);
      assert.equal(chunks[0]!.text, '   indented first\nsecond');
      assert.equal(chunks[0]!.startLine, 3);
      assert.equal(chunks[0]!.endLine, 4);
    });
  });

  describe('paragraph', () => {
    it('packs consecutive paragraphs up to maxChars, each chunk being the original lines', () => {
      const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} first line\n${words(3 + (i % 5))}`);
      const text = `\n${paragraphs.join('\n\n')}\n\n\n`;
      const { chunks } = chunkDocument(text, 'notes.txt', { maxChars: 120 });
      assertOrdered(chunks);
      assertExactLines(text, chunks);
      assertCovers(text, chunks);
      for (const chunk of chunks) assert.ok(chunk.text.length <= 120);
      assert.ok(chunks.length < paragraphs.length, 'small paragraphs are packed together');
      // A paragraph is never split when it fits: each chunk is whole paragraphs.
      for (const chunk of chunks) assert.ok(chunk.text.startsWith('Paragraph '));
      assert.equal(chunks[0]!.startLine, 2);
    });

    it('splits a paragraph longer than maxChars at line breaks or spaces, without overlap', () => {
      const long = Array.from({ length: 40 }, (_, i) => `row ${i} ${words(4)}`).join('\n');
      const text = `short intro\n\n${long}\n\nshort outro`;
      const { chunks } = chunkDocument(text, 'a.rst', { maxChars: 200 });
      assertOrdered(chunks);
      assertExactLines(text, chunks);
      assertCovers(text, chunks);
      for (const chunk of chunks) assert.ok(chunk.text.length <= 200);
      // No text repeated: the chunks' words are the document's words, once each.
      assert.deepEqual(
        chunks.flatMap((chunk) => chunk.text.split(/\s+/)),
        text.split(/\s+/),
      );
    });

    it('splits a single huge line at spaces, with the same start and end line', () => {
      const text = words(2000);
      const { chunks } = chunkDocument(text, 'a.txt', { maxChars: 500 });
      assert.ok(chunks.length > 10);
      for (const chunk of chunks) {
        assert.ok(chunk.text.length <= 500 && (chunk.text.length > 350 || chunk === chunks.at(-1)));
        assert.equal(chunk.startLine, 1);
        assert.equal(chunk.endLine, 1);
        assert.ok(!/^\s|\s$/.test(chunk.text));
      }
      assert.equal(chunks.map((chunk) => chunk.text).join(' '), text);
    });
  });

  describe('markdown', () => {
    const doc = [
      '---', //                                       1
      'title: The Guide',
      'tags: [setup, build]',
      'draft: false',
      '---', //                                       5
      '',
      'Intro before any heading.',
      '',
      '# Install', //                                 9
      '',
      'Install it like this.',
      '',
      '## From source', //                            13
      '',
      '```sh',
      '# not a heading',
      'make && make install',
      '```',
      '',
      '### Windows', //                               20
      'Use WSL.',
      '',
      '## From npm', //                               23
      'npm i thing',
      '',
      'Setext heading', //                            26
      '==============',
      '',
      'Under setext.',
    ].join('\n');

    it('splits at every heading, carries the heading path, and points at the original lines', () => {
      const result = chunkDocument(doc, 'guide.md');
      assertOrdered(result.chunks);
      assertExactLines(doc, result.chunks);
      assertCovers(doc, result.chunks, 6);
      assert.deepEqual(
        result.chunks.map((chunk) => [chunk.headingPath, chunk.startLine, chunk.endLine]),
        [
          [[], 7, 7],
          [['Install'], 9, 11],
          [['Install', 'From source'], 13, 18],
          [['Install', 'From source', 'Windows'], 20, 21],
          [['Install', 'From npm'], 23, 24],
          [['Setext heading'], 26, 29],
        ],
      );
      assert.ok(result.chunks[2]!.text.startsWith('## From source\n'), 'a section chunk includes its heading');
    });

    it('parses front matter into metadata, keeps it out of the text, and takes the title from it', () => {
      const result = chunkDocument(doc, 'guide.md');
      assert.deepEqual(result.frontMatter, { title: 'The Guide', tags: ['setup', 'build'], draft: false });
      assert.equal(result.title, 'The Guide');
      for (const chunk of result.chunks) assert.ok(!chunk.text.includes('tags:'));
    });

    it('takes the title from the first level 1 heading without front matter, plain text', () => {
      const text = 'Some intro\n\n## Not this\n\ntext\n\n# The **real** `title`\n\ntext\n\n# Second\n\ntext';
      const result = chunkDocument(text, 'x.md');
      assert.equal(result.title, 'The real title');
      assert.equal(result.frontMatter, undefined);
      assert.deepEqual(result.chunks.at(-2)?.headingPath, ['The real title']);
      assert.equal(chunkDocument('## Only level 2', 'x.md').title, undefined);
      assert.equal(chunkDocument('---\ntitle: 42\n---\n# H', 'x.md').title, '42');
      assert.equal(chunkDocument('---\nauthor: me\n---\n# From H1', 'x.md').title, 'From H1');
    });

    it('packs the small blocks of one section together, but never across sections', () => {
      const text = ['# A', '', 'p1', '', '- list', '- items', '', '> quote', '', '# B', '', 'p2'].join('\n');
      const { chunks } = chunkDocument(text, 'x.md', { maxChars: 1000 });
      assert.deepEqual(
        chunks.map((chunk) => chunk.text),
        ['# A\n\np1\n\n- list\n- items\n\n> quote', '# B\n\np2'],
      );
    });

    it('never splits a fenced code block or a table; an oversized one is its own chunk, with its heading', () => {
      const code = Array.from({ length: 60 }, (_, i) => `const line${i} = ${i}; // ${'x'.repeat(20)}`).join('\n');
      const table = [
        '| name | value |',
        '| --- | --- |',
        ...Array.from({ length: 60 }, (_, i) => `| row ${i} | ${'v'.repeat(20)} |`),
      ].join('\n');
      const text = [
        '# Code',
        '',
        'Before the code.',
        '',
        '```ts',
        code,
        '```',
        '',
        'After the code.',
        '',
        '## Table',
        '',
        table,
        '',
        'After the table.',
      ].join('\n');
      const { chunks } = chunkDocument(text, 'x.md', { maxChars: 400 });
      assertOrdered(chunks);
      assertExactLines(text, chunks);
      assertCovers(text, chunks);
      const fence = chunks.filter((chunk) => chunk.text.includes('const line'));
      assert.equal(fence.length, 1, 'the code block is in one chunk');
      assert.ok(fence[0]!.text.includes('```ts\n') && fence[0]!.text.endsWith('\n```'), 'whole, with both fences');
      assert.ok(fence[0]!.text.length > 400, 'oversized rather than cut');
      const tables = chunks.filter((chunk) => chunk.text.includes('| row '));
      assert.equal(tables.length, 1, 'the table is in one chunk');
      assert.ok(tables[0]!.text.startsWith('## Table\n\n| name | value |'), 'with its (otherwise empty) heading');
      assert.ok(tables[0]!.text.endsWith('| row 59 | vvvvvvvvvvvvvvvvvvvv |'));
      for (const chunk of chunks) if (chunk !== fence[0] && chunk !== tables[0]) assert.ok(chunk.text.length <= 400);
    });

    it('does not treat lines inside a code block as headings', () => {
      const text = '# Real\n\n```\n# fake heading\n## another\n```\n\ntext';
      const { chunks } = chunkDocument(text, 'x.md');
      assert.equal(chunks.length, 1);
      assert.deepEqual(chunks[0]!.headingPath, ['Real']);
    });

    it('attaches an empty section heading to the next chunk, and keeps a trailing one', () => {
      const text = [
        '# Install',
        '',
        '## From source',
        '',
        'Run make.',
        '',
        '# Empty at the end',
        '',
        '## Also empty',
      ].join('\n');
      const { chunks } = chunkDocument(text, 'x.md');
      assert.deepEqual(
        chunks.map((chunk) => [chunk.text, chunk.headingPath]),
        [
          ['# Install\n\n## From source\n\nRun make.', ['Install', 'From source']],
          ['# Empty at the end\n\n## Also empty', ['Empty at the end', 'Also empty']],
        ],
      );
      assertExactLines(text, chunks);
    });

    it('a document of headings only gives chunks of headings, none empty', () => {
      const text = Array.from({ length: 50 }, (_, i) => `${'#'.repeat((i % 3) + 1)} Heading ${i}`).join('\n');
      const { chunks } = chunkDocument(text, 'x.md', { maxChars: 200 });
      assertOrdered(chunks);
      assertExactLines(text, chunks);
      assertCovers(text, chunks);
      for (const chunk of chunks) assert.ok(chunk.text.length <= 200);
    });

    it('splits an oversized paragraph like `paragraph`, the first piece beside its heading', () => {
      const text = `# Long\n\n${words(300)}\n\nafter`;
      const { chunks } = chunkDocument(text, 'x.md', { maxChars: 300 });
      assertOrdered(chunks);
      assertWithinLines(text, chunks);
      for (const chunk of chunks) {
        assert.ok(chunk.text.length <= 300);
        assert.deepEqual(chunk.headingPath, ['Long']);
      }
      assert.ok(chunks[0]!.text.startsWith('# Long\n\nword0 word1'));
      assert.deepEqual(
        chunks.flatMap((chunk) => chunk.text.split(/\s+/)),
        text.split(/\s+/),
      );
    });

    it('takes an oversized list apart at its items, keeping nested code blocks whole', () => {
      const items = Array.from({ length: 30 }, (_, i) =>
        i === 7 ? '- item 7 with code:\n\n  ```js\n  const a = 1;\n  const b = 2;\n  ```' : `- item ${i}: ${words(6)}`,
      );
      const text = `# List\n\n${items.join('\n')}\n`;
      const { chunks } = chunkDocument(text, 'x.md', { maxChars: 250 });
      assertOrdered(chunks);
      assertExactLines(text, chunks);
      assertCovers(text, chunks);
      for (const chunk of chunks) {
        assert.ok(chunk.text.length <= 250);
        assert.match(chunk.text, /^(# List\n\n)?- item \d+/, 'chunks start at an item');
      }
      assert.ok(chunks.some((chunk) => chunk.text.includes('```js\n  const a = 1;\n  const b = 2;\n  ```')));
    });

    it('keeps link reference definitions (which make no token) in the chunks', () => {
      const text = '[top]: https://example.com/top\n\n# A\n\nSee [x].\n\n[x]: https://example.com/x\n';
      const { chunks } = chunkDocument(text, 'x.md');
      assertCovers(text, chunks);
      assertExactLines(text, chunks);
      assert.ok(chunks.some((chunk) => chunk.text.includes('[x]: https://example.com/x')));
    });

    it('keeps malformed front matter as a plain chunk, without frontMatter', () => {
      const text = '---\ntitle: [unclosed\nbad: : :\n---\n# Body\n\ntext';
      const result = chunkDocument(text, 'x.md');
      assert.equal(result.frontMatter, undefined);
      assert.equal(result.title, 'Body');
      assert.deepEqual(result.chunks[0], {
        index: 0,
        text: '---\ntitle: [unclosed\nbad: : :\n---',
        headingPath: [],
        startLine: 1,
        endLine: 4,
      });
      assert.deepEqual(result.chunks[1]?.headingPath, ['Body']);
      assert.equal(result.chunks[1]?.startLine, 5);
      // YAML that is not a mapping is not metadata either.
      const list = chunkDocument('---\n- a\n- b\n---\ntext', 'x.md');
      assert.equal(list.frontMatter, undefined);
      assert.equal(list.chunks[0]?.text, '---\n- a\n- b\n---');
    });

    it('unclosed front matter is no front matter; empty front matter is {}', () => {
      const unclosed = chunkDocument('---\ntitle: x\n\nbody', 'x.md');
      assert.equal(unclosed.frontMatter, undefined);
      assertCovers('---\ntitle: x\n\nbody', unclosed.chunks);
      const empty = chunkDocument('---\n---\n\n# H\n', 'x.md');
      assert.deepEqual(empty.frontMatter, {});
      assert.equal(empty.chunks[0]?.startLine, 4);
      const only = chunkDocument('---\ntitle: Only metadata\n...\n', 'x.md');
      assert.deepEqual(only, { chunks: [], frontMatter: { title: 'Only metadata' }, title: 'Only metadata' });
    });

    it('gives the same chunks for CRLF and LF input, a BOM counting for nothing', () => {
      const lf = chunkDocument(doc, 'a.md');
      const crlf = chunkDocument(`\ufeff${doc.replace(/\n/g, '\r\n')}`, 'a.md');
      assert.deepEqual(crlf, lf);
    });
  });

  describe('odd input never throws', () => {
    const inputs: [string, string][] = [
      ['empty', ''],
      ['whitespace', ' \n\t\n  \r\n'],
      ['unclosed fence', '# A\n\n```js\nconst a = 1;\n\nmore code\n'],
      ['headings only', '#\n##\n# \n######## too deep\n# A'],
      ['lone front matter marker', '---'],
      ['front matter marker and text', '---\n'],
      ['NUL and controls', 'a\u0000b\u0007c\n# h\u0000'],
      ['deep quote nesting', `${'>'.repeat(3000)} deep`],
      ['deep list nesting', Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')],
      ['lone surrogates', '\ud800 \udc00 text'],
      ['html', '<div>\n\n<p>x</p>\n\n</div>\n<!-- comment'],
      ['only CR', 'a\rb\r\r# c\rd'],
    ];
    for (const [name, text] of inputs) {
      it(`handles ${name}`, () => {
        for (const strategy of ['markdown', 'paragraph', 'fixed'] as const) {
          const { chunks } = chunkDocument(text, 'x.md', { strategy, maxChars: 50, overlap: 10 });
          const normalized = text.replace(/\r\n?/g, '\n');
          if (normalized.trim() === '') assert.deepEqual(chunks, [], `${strategy}: blank gives no chunks`);
          for (const chunk of chunks) assert.ok(chunk.text.length > 0 && chunk.startLine <= chunk.endLine);
          if (strategy !== 'fixed') assertCovers(normalized, chunks, normalized.startsWith('---\n') ? 2 : 1);
        }
      });
    }

    it('handles a 1 MB single line quickly with every strategy', () => {
      const line = words(120_000).slice(0, 1024 * 1024);
      for (const strategy of ['markdown', 'paragraph', 'fixed'] as const) {
        const started = performance.now();
        const { chunks } = chunkDocument(line, 'x.md', { strategy });
        const elapsed = performance.now() - started;
        assert.ok(elapsed < 2000, `${strategy} took ${elapsed.toFixed(0)} ms`);
        assert.ok(chunks.length > 600);
        for (const chunk of chunks)
          assert.ok(chunk.text.length <= 1500 && chunk.startLine === 1 && chunk.endLine === 1);
      }
      // Without a single space: hard cuts.
      const solid = 'x'.repeat(1024 * 1024);
      assert.equal(chunkDocument(solid, 'x.md').chunks.length, Math.ceil(solid.length / 1500));
    });

    it('keeps its invariants on random Markdown-like documents', () => {
      const next = random(7);
      const pieces = [
        () => `${'#'.repeat(1 + Math.floor(next() * 4))} Heading ${Math.floor(next() * 100)}`,
        () => words(1 + Math.floor(next() * 60)),
        () => '```\ncode line\n# not heading\n```',
        () => '~~~\nunclosed?',
        () => '| a | b |\n| - | - |\n| 1 | 2 |',
        () => '- a\n- b\n  - c',
        () => '> quote\n> more',
        () => '---',
        () => '',
        () => '    indented code',
        () => 'Setext\n---',
        () => '<details>\n<summary>x</summary>\n\ntext\n</details>',
      ];
      for (let round = 0; round < 200; round++) {
        const text = Array.from({ length: 1 + Math.floor(next() * 25) }, () =>
          pieces[Math.floor(next() * pieces.length)]!(),
        ).join(next() < 0.5 ? '\n' : '\n\n');
        const maxChars = 40 + Math.floor(next() * 400);
        const { chunks, frontMatter } = chunkDocument(text, 'r.md', { maxChars });
        assertOrdered(chunks);
        assertWithinLines(text, chunks);
        // Well-formed front matter is the only text left out.
        const closing = text.split('\n').findIndex((line, i) => i > 0 && /^(---|\.\.\.)[ \t]*$/.test(line));
        assertCovers(text, chunks, frontMatter ? closing + 2 : 1);
        for (const chunk of chunks) {
          if (chunk.text.length > maxChars)
            assert.match(chunk.text, /```|~~~|\| a \|| {4}indented/, `oversized only for code or tables (${round})`);
        }
      }
    });
  });

  describe('options', () => {
    it('refuses an overlap not below maxChars, a tiny maxChars and an unknown strategy', () => {
      const invalid = (options: object) => {
        assert.throws(
          () => chunkDocument('text', 'x.ts', options),
          (error: unknown) => error instanceof MemoryError && error.code === 'INVALID_INPUT',
        );
      };
      invalid({ maxChars: 100, overlap: 100 });
      invalid({ maxChars: 100, overlap: -1 });
      invalid({ maxChars: 5 });
      invalid({ maxChars: 0 });
      invalid({ maxChars: -5 });
      invalid({ maxChars: 100.5 });
      invalid({ strategy: 'sentences' });
    });

    it('shrinks the default overlap for a small maxChars instead of refusing it', () => {
      const text = words(100);
      const { chunks } = chunkDocument(text, 'x.ts', { maxChars: 100 });
      assert.ok(chunks.length > 1);
      assert.ok(chunks[0]!.text.includes(chunks[1]!.text.slice(0, 20)), 'about 25 characters are shared');
    });

    it('ignores option fields meant for the loader', () => {
      assert.doesNotThrow(() => chunkDocument('x', 'x.md', { extensions: ['.md'] } as object));
    });
  });
});
