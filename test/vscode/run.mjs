// Runs the integration tests inside a real VS Code: VS Code's server (from
// the code-server package) with the extension under development, its web
// workbench in headless Chromium, and the mocha suite in the extension host.
//
//   node test/vscode/run.mjs [--run main] [--grep text] [--keep] [--no-build] [--bundle-only] [--screenshots dir]
//
// --run picks runs by name (repeatable; default: all, see runs.mjs), --grep
// filters tests by title, --keep leaves each run's temp folder (logs, the
// workspace copy) in place, --bundle-only builds the extension and the test
// bundles (out/vscode-test/<run>/) and stops: what .vscode-test.mjs runs on
// a desktop VS Code. VSCODE_TEST_TIMEOUT (seconds, default 300) bounds
// each run. Exits 0 when every run passed.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

import { launchBrowser } from '../../scripts/browser.mjs';
import { cleanup, onCleanup } from '../../scripts/cleanup.mjs';
import { repoRoot } from '../../scripts/code-server-install.mjs';
import { copyWorkspace, createSandbox } from '../../scripts/sandbox.mjs';
import { assertServerNode, startVSCodeServer } from '../../scripts/vscode-server.mjs';
import { bundleSuite } from './bundle.mjs';
import { startHarnessServer } from './harness-server.mjs';
import { COMMON_SETTINGS, RUNS } from './runs.mjs';

const log = (line) => console.log(line);
const timeoutMs = Number(process.env.VSCODE_TEST_TIMEOUT ?? 300) * 1000;
// Screenshots go to out/ (ignored) unless asked for where the README takes them from:
// `npm run screenshots` (or --screenshots <dir>, or VSCODE_SCREENSHOT_DIR).
let screenshotDir = path.resolve(repoRoot, process.env.VSCODE_SCREENSHOT_DIR ?? 'out/screenshots');

async function main() {
  const { values } = parseArgs({
    options: {
      run: { type: 'string', multiple: true },
      grep: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'bundle-only': { type: 'boolean', default: false },
      screenshots: { type: 'string' },
    },
  });
  if (values.screenshots) screenshotDir = path.resolve(repoRoot, values.screenshots);
  const runs = values.run ? RUNS.filter((run) => values.run.includes(run.name)) : RUNS.filter((run) => !run.optional);
  if (runs.length === 0) throw new Error(`no run named ${values.run.join(', ')}; runs: ${RUNS.map((r) => r.name)}`);
  if (!values['no-build']) buildExtension();
  if (values['bundle-only']) {
    for (const run of runs) await bundleSuite({ repoRoot, testGlob: run.tests, outDir: runOutDir(run) });
    log(`[vscode] bundled ${runs.map((run) => path.relative(repoRoot, runOutDir(run))).join(', ')}`);
    return 0;
  }
  assertServerNode();

  const started = Date.now();
  const totals = { passes: 0, failures: 0, pending: 0 };
  const failedRuns = [];
  for (const run of runs) {
    const outcome = await runOne(run, values);
    totals.passes += outcome.result?.passes ?? 0;
    totals.failures += outcome.result?.failures ?? 0;
    totals.pending += outcome.result?.pending ?? 0;
    if (!outcome.ok) failedRuns.push(run.name);
  }
  log(`\n[vscode] ${runs.length} run(s) in ${seconds(started)}` + (failedRuns.length ? `; failed: ${failedRuns}` : ''));
  log(`vscode: ${totals.passes} passed, ${totals.failures} failed, ${totals.pending} skipped`);
  return failedRuns.length === 0 ? 0 : 1;
}

const runOutDir = (run) => path.join(repoRoot, 'out', 'vscode-test', run.name);

function buildExtension() {
  const result = spawnSync(process.execPath, ['esbuild.js'], { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the extension (node esbuild.js) failed');
}

/** One run: bundle, sandbox, servers, browser; resolves with { ok, result }. */
async function runOne(run, options) {
  const started = Date.now();
  // What a failure report shows; filled in as the run gets going.
  const diagnostics = { keep: options.keep, files: [] };
  try {
    return await attempt(run, diagnostics, started, options);
  } catch (error) {
    log(`[vscode] run "${run.name}" could not run: ${error?.stack ?? error}`);
    diagnostics.keep = true;
    await diagnostics.flush?.();
    for (const [title, file] of diagnostics.files) printTail(title, file);
    return { ok: false, result: undefined };
  } finally {
    await cleanup();
  }
}

async function attempt(run, diagnostics, started, options) {
  log(`[vscode] run "${run.name}": ${run.tests} on ${run.workspace}`);
  const { runner, testFiles } = await bundleSuite({ repoRoot, testGlob: run.tests, outDir: runOutDir(run) });

  const sandbox = createSandbox({
    prefix: `wm-vscode-${run.name}-`,
    settings: { ...COMMON_SETTINGS, ...run.settings },
  });
  onCleanup(() => {
    if (diagnostics.keep) log(`[vscode] kept ${sandbox.root}`);
    else sandbox.remove();
  });
  diagnostics.files.push(['VS Code server log', path.join(sandbox.logs, 'server.log')]);
  diagnostics.files.push(['browser console', path.join(sandbox.logs, 'browser.log')]);
  const folder = copyWorkspace(sandbox, path.join(repoRoot, run.workspace));
  installExtensions(sandbox, run.extensions ?? []);
  // A run may set up its workspace first (stores, documents), install extensions into the
  // sandbox, and hand the extension host variables.
  diagnostics.files.push(['install log', path.join(sandbox.logs, 'install.log')]);
  const preparedEnv = run.prepare ? await run.prepare({ repoRoot, folder, sandbox, log }) : {};

  let page;
  const harness = await startHarnessServer({ screenshotDir, getPage: () => page });
  onCleanup(() => harness.close());

  const server = await startVSCodeServer({
    sandbox,
    log,
    env: {
      ...preparedEnv,
      WORKSPACE_MEMORY_TEST_HARNESS: harness.url,
      WORKSPACE_MEMORY_TEST_RUN: run.name,
      ...(options.grep ? { WORKSPACE_MEMORY_TEST_GREP: options.grep } : {}),
    },
  });
  onCleanup(() => server.stop());

  const browser = await launchBrowser();
  onCleanup(() => browser.browser.close());
  page = browser.page;
  const browserLog = fs.createWriteStream(path.join(sandbox.logs, 'browser.log'));
  let logClosed;
  diagnostics.flush = () => (logClosed ??= new Promise((resolve) => browserLog.end(resolve)));
  onCleanup(diagnostics.flush);
  // Events keep coming while the page closes, after the log is ended.
  const writeLog = (line) => logClosed === undefined && browserLog.write(line + '\n');
  page.on('console', (message) => writeLog(`[${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => writeLog(`[pageerror] ${error.stack ?? error}`));
  page.on('requestfailed', (request) => writeLog(`[requestfailed] ${request.url()} ${request.failure()?.errorText}`));

  // The workbench's smoke-test driver calls this with 0 when the suite's
  // run() resolved and 1 when it rejected. It must exist before navigating.
  let exit;
  const exited = new Promise((resolve) => (exit = resolve));
  await page.exposeFunction('codeAutomationExit', (code) => {
    exit(Number(code));
  });

  const url = server.workbenchUrl({
    folder,
    // The repo is the extension under development, except in a run that tests the
    // extension as installed from its .vsix (see runs.mjs).
    extensionDevelopmentPath: run.developmentPath ? path.resolve(repoRoot, run.developmentPath) : repoRoot,
    extensionTestsPath: runner,
    enableProposedApi: Boolean(run.extensions?.length),
  });
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });

  let timer;
  const timedOut = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const serverDied = server.exited.then(({ code, signal }) => `server exited (code ${code}, signal ${signal})`);
  const code = await Promise.race([exited, timedOut, serverDied]);
  clearTimeout(timer);

  const result = harness.state.result;
  let ok = code === 0 && result !== undefined && result.failures === 0;
  if (code === 'timeout') {
    log(`[vscode] run "${run.name}" TIMED OUT after ${timeoutMs / 1000} s (VSCODE_TEST_TIMEOUT).`);
    await page.screenshot({ path: path.join(sandbox.logs, 'timeout.png') }).catch(() => {});
  } else if (typeof code === 'string') {
    log(`[vscode] run "${run.name}": the VS Code ${code} before the tests finished.`);
  } else if (result === undefined) {
    // The suite reports through the harness URL it finds in its environment;
    // no result means it never ran or could not reach us.
    log(`[vscode] run "${run.name}" ended (exit ${code}) without reporting results from ${testFiles.length} file(s).`);
    ok = false;
  } else if (result.passes + result.failures === 0) {
    log(`[vscode] run "${run.name}" ran no test.`);
    ok = false;
  }
  if (!ok) {
    diagnostics.keep = true;
    await diagnostics.flush();
    for (const [title, file] of diagnostics.files) printTail(title, file);
  }
  log(`[vscode] run "${run.name}" ${ok ? 'passed' : 'FAILED'} in ${seconds(started)}`);
  return { ok, result };
}

/**
 * Copies test-only extensions (folders with a package.json) into the
 * sandbox's extensions folder, which the server registers on start: the
 * workbench takes a single extension under development, which is ours.
 */
function installExtensions(sandbox, folders) {
  for (const folder of folders) {
    const source = path.resolve(repoRoot, folder);
    const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
    const target = path.join(sandbox.extensions, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
    fs.cpSync(source, target, { recursive: true });
  }
}

function printTail(title, file) {
  if (!fs.existsSync(file)) return;
  const text = fs.readFileSync(file, 'utf8').trim().split('\n').slice(-40).join('\n');
  log(`[vscode] --- last lines of the ${title} (${file}) ---\n${text}\n[vscode] ---`);
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

main()
  .then((code) => {
    // Exit now: a stray handle (a keep-alive socket, a late timer) must not
    // keep a finished run open in CI.
    process.exit(code);
  })
  .catch(async (error) => {
    console.error(`[vscode] ${error?.stack ?? error}`);
    await cleanup();
    process.exitCode = 1;
  });
