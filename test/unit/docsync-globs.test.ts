import * as assert from 'node:assert/strict';

import { expandBraces, extensionsOf, ignorePatterns } from '../../src/extension/docsync/globs';

describe('doc sync globs', () => {
  it('expands braces, nested and several, and leaves an unbalanced one alone', () => {
    assert.deepEqual(expandBraces('**/*.{md,txt}'), ['**/*.md', '**/*.txt']);
    assert.deepEqual(expandBraces('{docs,guides}/*.{md,rst}'), [
      'docs/*.md',
      'docs/*.rst',
      'guides/*.md',
      'guides/*.rst',
    ]);
    assert.deepEqual(expandBraces('*.{md,{a,b}doc}'), ['*.md', '*.adoc', '*.bdoc']);
    assert.deepEqual(expandBraces('*.{md'), ['*.{md']);
  });

  it('maps include globs to the extensions the loader walks by', () => {
    assert.deepEqual(extensionsOf(['**/*.{md,mdx,markdown,txt,rst,adoc}']), {
      extensions: ['.adoc', '.markdown', '.md', '.mdx', '.rst', '.txt'],
      unmapped: [],
    });
    assert.deepEqual(extensionsOf(['docs/**/*.MD', '**/README', '**/*']), {
      extensions: ['.md'],
      unmapped: ['**/README', '**/*'],
    });
  });

  it('turns exclude settings and files.exclude into gitignore patterns', () => {
    const patterns = ignorePatterns(['**/drafts/**', './build', '**/*.{tmp,bak}.md', ' '], {
      '**/.git': true,
      '**/out': false,
      '**/*.js': { when: '$(basename).ts' },
    });
    assert.deepEqual(patterns, ['**/drafts/**', 'build', '**/*.tmp.md', '**/*.bak.md', '**/.git']);
  });
});
