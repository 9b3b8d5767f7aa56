// Mutation testing of the store's core (issue #18): `npm run mutate`. Not part of
// CI: a full run takes a long while on two cores. StrykerJS changes the code
// one mutant at a time and runs the unit tests that cover it; a mutant that no
// test notices is a gap in the tests. scripts/mutate.mjs installs the packages
// into .cache/stryker on first use (they are not devDependencies: they need
// Node 22+ to install quietly, and most builds never run them), and runs one
// selection at a time: `npm run mutate -- --mutate src/core/validation.ts`.
//
// Known blind spot: mutants in values built once per process are reported as
// survived whatever the tests do: the zod schemas that lazy() builds on first
// use (validation.ts, portable.ts) and module-level constants (ENTITY_BOUNDS,
// HISTORY, NEARLY_FULL_BYTES). Stryker reuses the test process, so the value
// built before the mutant was switched on is the one the tests see. Such a
// "static" mutant also runs every test (its coverage cannot be told), about a
// minute each: for a file made mostly of constants (search/synonyms.ts, whose
// synonym map alone has ~190), add `--ignoreStatic` to skip them.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'mocha',
  checkers: ['typescript'],
  // The code under test and the tests in `spec` below, not the whole project: a file elsewhere that does
  // not compile (someone's work in progress) would otherwise fail the run's start (see that file).
  tsconfigFile: 'tsconfig.stryker.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // Only the mutants whose code or covering tests changed since the last run are tested again;
  // scripts/mutate.mjs gives each --mutate selection its own incremental file under .cache/stryker/incremental/.
  incremental: true,
  incrementalFile: '.cache/stryker/incremental/all.json',
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
    // Quick tests of pure functions first, then the targeted tests of the store and verify, and the
    // slow ones (seeded byte flips, load, child processes) last: mocha runs a mutant's covering tests
    // in this order and stops at the first failure, so a mutant a quick test kills costs milliseconds
    // instead of a store's set-up, or a minute of durability tests.
    spec: [
      'test/unit/canonical-json.test.ts',
      'test/unit/validation-limits.test.ts',
      'test/unit/store-helpers.test.ts',
      'test/unit/store-mutants.test.ts',
      'test/unit/bm25-scoring.test.ts',
      'test/unit/tokenizer.test.ts',
      'test/unit/synonyms.test.ts',
      'test/unit/store-rows.test.ts',
      'test/unit/integrity.test.ts',
      'test/unit/verify-mutants.test.ts',
      'test/unit/snapshots-mutants.test.ts',
      'test/unit/restore-undo.test.ts',
      'test/unit/validation.test.ts',
      'test/unit/import-rules.test.ts',
      'test/unit/collections.test.ts',
      'test/unit/database.test.ts',
      'test/unit/history-edges.test.ts',
      'test/unit/hybrid.test.ts',
      'test/unit/input-hardening.test.ts',
      'test/unit/operations.test.ts',
      'test/unit/recall.test.ts',
      'test/unit/restore-preview.test.ts',
      'test/unit/search.test.ts',
      'test/unit/search-pending.test.ts',
      'test/unit/store-files-attack.test.ts',
      'test/unit/store-lifecycle.test.ts',
      'test/unit/restore-repair.test.ts',
      'test/unit/verify-corruption.test.ts',
      'test/unit/search-under-load.test.ts',
      'test/unit/durability.test.ts',
    ],
  },
  // tsx for both require() and import(): the .mocharc's `node-option` does not reach Stryker's
  // in-process mocha, and a `require: ['tsx/cjs']` left dynamic import()s of .ts files unresolved.
  testRunnerNodeArgs: ['--import', 'tsx'],
  ignorePatterns: ['.vscode-test', 'out', 'dist', 'bench', 'samples', 'docs', 'media'],
  concurrency: 2,
  timeoutMS: 30_000,
  // scripts/mutate.mjs reads the JSON report to print the score per file and check --threshold.
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'out/mutation/index.html' },
  jsonReporter: { fileName: 'out/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
};
