// ESLint flat config: typescript-eslint's type-checked rules over src and test
// (the untyped recommended rules over the JS scripts), sorted imports, and the
// layers of src/ (core ← shells) kept by lint rather than by hand.
import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
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

/** The TypeScript the compiler checks (tsconfig.json): linted with its types. */
const TYPED = ['src/**/*.ts', 'test/**/*.ts'];

export default tseslint.config(
  // .stryker-tmp: mutation testing's sandboxes, copies of the repository (scripts/mutate.mjs).
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      '.cache/**',
      'coverage/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  // A disable comment that no longer silences anything hides the next real finding on its line.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
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
    files: TYPED,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // A promise nobody awaits loses its rejection; one passed where a
      // callback returns nothing (an event handler) does too.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Type-only imports vanish from the bundles, so esbuild never loads a module just for its types.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports' }],
      // The library's API is async whether or not a method has anything to wait for
      // yet: its validation then fails as a rejection, like every other error,
      // never as a throw from the call itself. `async` without `await` is that contract.
      '@typescript-eslint/require-await': 'off',
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
