// What a test running inside VS Code can ask of the harness that started it
// (test/vscode/run.mjs): print a line in the terminal, capture the workbench.
//
// The harness passes its address in WORKSPACE_MEMORY_TEST_HARNESS, set on the
// VS Code server and inherited by the extension host. Without it (a desktop
// run through @vscode/test-cli) lines go to the console and screenshots are
// skipped.
import * as http from 'node:http';

export const HARNESS_ENV = 'WORKSPACE_MEMORY_TEST_HARNESS';

const harnessUrl = process.env[HARNESS_ENV];

/** True when a harness listens (a run through test/vscode/run.mjs). */
export const hasHarness = harnessUrl !== undefined && harnessUrl !== '';

// Requests go one after another so lines arrive in the order they were written.
let queue: Promise<unknown> = Promise.resolve();

function enqueue<T>(task: () => Promise<T>): Promise<T> {
  const next = queue.then(task, task);
  queue = next.catch(() => undefined);
  return next;
}

function post(pathAndQuery: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(pathAndQuery, harnessUrl),
      { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          if ((response.statusCode ?? 500) >= 400) reject(new Error(`harness ${pathAndQuery}: ${text}`));
          else resolve(text);
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Prints `line` in the harness's terminal (queued; await it or `flush()`). */
export function report(line: string): Promise<void> {
  if (!hasHarness) {
    console.log(line);
    return Promise.resolve();
  }
  return enqueue(async () => {
    await post('/report', line);
  });
}

/** Resolves once every queued report has reached the harness. */
export function flush(): Promise<void> {
  return enqueue(async () => undefined);
}

/** Sends the run's totals, which the harness checks and prints. */
export function reportResult(result: { passes: number; failures: number; pending: number }): Promise<void> {
  if (!hasHarness) return Promise.resolve();
  return enqueue(async () => {
    await post('/result', JSON.stringify(result));
  });
}

/**
 * Captures the workbench as <screenshot dir>/<name>.png (out/screenshots, or
 * docs/screenshots with `npm run screenshots`; letters, digits,
 * `.`, `_`, `-`). Waits `delayMs` (default 500) for the workbench to paint
 * first. Resolves with the file written, or undefined without a harness.
 */
export function screenshot(name: string, delayMs = 500): Promise<string | undefined> {
  if (!hasHarness) return Promise.resolve(undefined);
  return enqueue(async () => {
    const query = new URLSearchParams({ name, delay: String(delayMs) });
    const answer = JSON.parse(await post(`/screenshot?${query.toString()}`, '')) as { path: string };
    return answer.path;
  });
}
