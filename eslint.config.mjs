// ESLint flat config: typescript-eslint's recommended rules over src, test and bench,
// and the layers of src/ (core ← shells) kept by lint rather than by hand.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Import patterns that reach a shell: `src/extension.ts` or anything under `src/extension/` or `src/server/`. */
const EXTENSION = ['**/extension', '**/extension/**', '**/extension.ts'];
const SERVER = ['**/server', '**/server/**'];
const layer = (message, ...groups) => ({
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'vscode', message }],
      patterns: groups.map((group) => ({ group, message })),
    },
  ],
});

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // The library runs under plain Node (the CLI, the MCP server, the worker):
    // it may not import VS Code, nor the shells built around it.
    files: ['src/core/**'],
    rules: layer(
      'src/core is the library under every shell: it imports neither vscode nor a shell.',
      EXTENSION,
      SERVER,
    ),
  },
  {
    // The CLI and MCP server run without VS Code: they build on the core only.
    files: ['src/server/**'],
    rules: layer('src/server runs without VS Code: it builds on src/core only.', EXTENSION),
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
