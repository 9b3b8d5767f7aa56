// A spec-like mocha reporter whose lines go to the harness (see harness.ts)
// instead of the extension host's console, which no terminal shows. It ends
// with the plain "N passed, N failed, N skipped" line CI reads.
import Mocha from 'mocha';

import { report, reportResult } from './harness';

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } =
  Mocha.Runner.constants;

export function createReporter(runName: string): typeof Mocha.reporters.Base {
  return class HarnessReporter extends Mocha.reporters.Base {
    constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
      super(runner, options);
      let depth = 0;
      const failures: { title: string; error: unknown }[] = [];
      const indent = () => '  '.repeat(depth);

      runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
        if (suite.root) void report(`\n[vscode:${runName}]`);
        else void report(`${indent()}${suite.title}`);
        depth++;
      });
      runner.on(EVENT_SUITE_END, () => {
        depth--;
      });
      runner.on(EVENT_TEST_PASS, (test: Mocha.Test) => {
        void report(`${indent()}✔ ${test.title} (${test.duration ?? 0} ms)`);
      });
      runner.on(EVENT_TEST_PENDING, (test: Mocha.Test) => {
        void report(`${indent()}- ${test.title}`);
      });
      runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, error: unknown) => {
        failures.push({ title: test.fullTitle(), error });
        void report(`${indent()}${failures.length}) ${test.title}`);
      });
      runner.once(EVENT_RUN_END, () => {
        failures.forEach(({ title, error }, index) => {
          void report(`\n  ${index + 1}) ${title}:\n${indentBlock(describeError(error), '     ')}`);
        });
        const { passes = 0, failures: failed = 0, pending = 0 } = runner.stats ?? {};
        void report(`\n${passes} passed, ${failed} failed, ${pending} skipped`);
        void reportResult({ passes, failures: failed, pending });
      });
    }
  };
}

function describeError(error: unknown): string {
  // node:assert's message already shows the expected and actual values.
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

function indentBlock(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}
