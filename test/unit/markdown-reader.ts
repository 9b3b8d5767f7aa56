import type MarkdownItDefault from 'markdown-it';
import type { Token } from 'markdown-it';

// The CommonMark parser the Markdown chunker uses: what a Markdown reader makes of a text.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const markdown = new (require('markdown-it') as typeof MarkdownItDefault)();

export interface ReadMarkdown {
  /** The content of each fenced block, in order, without the newline before its closing fence. */
  fences: string[];
  /** The content of each code span. */
  spans: string[];
  /** Everything outside fenced blocks and code spans, one line per block. */
  outside: string;
}

function inlineText(children: readonly Token[]): string {
  return children
    .filter((child) => child.type !== 'code_inline')
    .map((child) => (child.type === 'softbreak' || child.type === 'hardbreak' ? '\n' : child.content))
    .join('');
}

/** Reads Markdown as a CommonMark parser does, to check what ends up inside a quote and what outside. */
export function readMarkdown(text: string): ReadMarkdown {
  const tokens = markdown.parse(text, {});
  const fences: string[] = [];
  const spans: string[] = [];
  const outside: string[] = [];
  for (const token of tokens) {
    if (token.type === 'fence') fences.push(token.content.replace(/\n$/, ''));
    else if (token.type === 'code_block') outside.push(token.content);
    else if (token.type === 'inline') {
      const children = token.children ?? [];
      spans.push(...children.filter((child) => child.type === 'code_inline').map((child) => child.content));
      outside.push(inlineText(children));
    }
  }
  return { fences, spans, outside: outside.join('\n') };
}
