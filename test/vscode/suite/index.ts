// The extension-tests entry point VS Code loads (extensionTestsPath): runs
// mocha (bdd: describe/it) over every *.test.js bundled beside this file and
// resolves, or rejects when a test failed. The workbench then reports 0 or 1
// to the harness through codeAutomationExit.
import * as fs from 'node:fs';
import * as path from 'node:path';

import Mocha from 'mocha';

import { flush, report } from './harness';
import { createReporter } from './reporter';

export async function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    color: false,
    reporter: createReporter(process.env.WORKSPACE_MEMORY_TEST_RUN ?? 'tests'),
    grep: process.env.WORKSPACE_MEMORY_TEST_GREP || undefined,
  });
  for (const file of findTests(__dirname)) mocha.addFile(file);
  try {
    const failures = await new Promise<number>((resolve) => mocha.run(resolve));
    if (failures > 0) throw new Error(`${failures} test(s) failed`);
  } catch (error) {
    // A test file that throws while loading never reaches the reporter: say why here.
    if (!(error instanceof Error && /test\(s\) failed$/.test(error.message))) {
      void report(`[vscode] the test run failed to start: ${error instanceof Error ? error.stack : String(error)}`);
    }
    throw error;
  } finally {
    // The harness stops VS Code as soon as run() settles: deliver every line first.
    await flush();
  }
}

function findTests(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.js'))
    .sort()
    .map((file) => path.join(dir, file));
}
