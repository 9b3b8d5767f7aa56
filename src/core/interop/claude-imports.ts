import * as path from 'node:path';

import type MarkdownItDefault from 'markdown-it';
import type { MarkdownIt, Token } from 'markdown-it';

import { lazy } from '../lazy';
import { folderOf } from './collector';

/**
 * CLAUDE.md's imports: `@path/to/file` anywhere in its text, relative to the
 * file, but never inside a code span or block (where `@decorator` and
 * `npm i @scope/pkg` live), as Claude Code reads them.
 */

const markdown = lazy((): MarkdownIt => {
  // Loaded on first use, as the document chunker loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const create = require('markdown-it') as typeof MarkdownItDefault;
  return create({ html: true });
});

const IMPORT = /(?:^|\s)@(\S+)/g;
/** Punctuation a sentence puts after a path, which is not part of it. */
const TRAILING = /[.,;:!?)\]}'"`]+$/;

export interface ImportRef {
  /** As written after the `@`. */
  target: string;
  /** 1-based line of the file. */
  line: number;
}

/** The `@` imports of a CLAUDE.md's text, in order. */
export function importRefs(text: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const block of markdown().parse(text, {})) {
    if (block.type !== 'inline' || !block.map) continue;
    let line = block.map[0] + 1;
    const visit = (tokens: readonly Token[]): void => {
      for (const token of tokens) {
        if (token.type === 'softbreak' || token.type === 'hardbreak') line++;
        else if (token.type === 'text') {
          for (const match of token.content.matchAll(IMPORT)) {
            const target = match[1]!.replace(TRAILING, '');
            if (target) refs.push({ target, line });
          }
        } else if (token.type !== 'code_inline' && token.children) visit(token.children);
      }
    };
    visit(block.children ?? []);
  }
  return refs;
}

/**
 * Where an import leads, workspace-relative, or why it cannot be followed:
 * `outside` for a home (`~/`) or absolute path or a climb out of the
 * workspace (links are judged by the caller, which resolves them).
 */
export function importPath(importer: string, target: string): { path: string } | { outside: true } {
  if (target.startsWith('~') || path.posix.isAbsolute(target) || /^[a-zA-Z]:[\\/]/.test(target)) {
    return { outside: true };
  }
  const joined = path.posix.normalize(path.posix.join(folderOf(importer), target.replace(/\\/g, '/')));
  if (joined === '..' || joined.startsWith('../')) return { outside: true };
  return { path: joined };
}
