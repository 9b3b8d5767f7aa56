// Mutation testing of the store's core (issue #18): `npm run mutate`. Not part of
// CI: a full run takes a long while on two cores. StrykerJS changes the code
// one mutant at a time and runs the unit tests that cover it; a mutant that no
// test notices is a gap in the tests. The packages come from npx on first use
// (they are not devDependencies: they need Node 22+ to install quietly, and
// most builds never run them).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'mocha',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/core/store/**/*.ts',
    'src/core/verify.ts',
    'src/core/verify/**/*.ts',
    'src/core/validation.ts',
    'src/core/json-guard.ts',
    'src/core/snapshots.ts',
    'src/core/snapshots/**/*.ts',
    'src/core/portable.ts',
    'src/core/search/**/*.ts',
  ],
  // The plugins live beside Stryker in .cache/stryker (scripts/mutate.mjs).
  plugins: ['@stryker-mutator/mocha-runner', '@stryker-mutator/typescript-checker'],
  mochaOptions: {
    // The tests of the core itself, run in-process: the CLI, MCP and worker tests drive dist/ bundles,
    // which mutants do not reach.
    // Named one by one: Stryker's mocha runner does not expand brace globs (it found no tests).
    spec: [
      'test/unit/collections.test.ts',
      'test/unit/database.test.ts',
      'test/unit/durability.test.ts',
      'test/unit/hybrid.test.ts',
      'test/unit/input-hardening.test.ts',
      'test/unit/integrity.test.ts',
      'test/unit/operations.test.ts',
      'test/unit/recall.test.ts',
      'test/unit/restore-preview.test.ts',
      'test/unit/restore-repair.test.ts',
      'test/unit/search.test.ts',
      'test/unit/search-pending.test.ts',
      'test/unit/search-under-load.test.ts',
      'test/unit/store-files-attack.test.ts',
      'test/unit/store-lifecycle.test.ts',
      'test/unit/store-rows.test.ts',
      'test/unit/synonyms.test.ts',
      'test/unit/tokenizer.test.ts',
      'test/unit/validation.test.ts',
      'test/unit/verify-corruption.test.ts',
    ],
    require: ['tsx/cjs'],
  },
  ignorePatterns: ['.vscode-test', 'out', 'dist', 'bench', 'samples', 'docs', 'media'],
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'out/mutation/index.html' },
  tempDirName: '.stryker-tmp',
};
