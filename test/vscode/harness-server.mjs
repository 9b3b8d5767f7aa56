// A tiny HTTP server on 127.0.0.1 through which the test suite, running in
// VS Code's extension host, talks to the harness. The extension host's
// console does not reach the VS Code server's stdout, so the suite POSTs its
// reporter lines here; it also asks for screenshots of the workbench page.
//
//   POST /report              body: text, printed as is (one or more lines)
//   POST /result              body: JSON { passes, failures, pending }
//   POST /screenshot?name=N   writes <screenshotDir>/N.png, answers when written
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;

/**
 * `getPage()` returns the playwright page to capture (or undefined before it
 * exists). `write(text)` prints a report.
 */
export async function startHarnessServer({ screenshotDir, getPage, write = (text) => process.stdout.write(text) }) {
  const state = { result: undefined, reports: 0, screenshots: [] };

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error) => send(response, 500, { error: String(error?.stack ?? error) }));
  });

  async function handle(request, response) {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'POST') return send(response, 405, { error: 'POST only' });
    const body = await readBody(request);
    switch (url.pathname) {
      case '/report':
        state.reports++;
        write(body.endsWith('\n') ? body : body + '\n');
        return send(response, 200, { ok: true });
      case '/result':
        state.result = JSON.parse(body);
        return send(response, 200, { ok: true });
      case '/screenshot':
        return send(response, 200, await screenshot(url));
      default:
        return send(response, 404, { error: `unknown path ${url.pathname}` });
    }
  }

  async function screenshot(url) {
    const name = url.searchParams.get('name') ?? '';
    if (!NAME.test(name)) throw new Error(`screenshot name must match ${NAME}: ${JSON.stringify(name)}`);
    const page = getPage();
    if (!page) throw new Error('no page to capture yet');
    // Let the workbench finish painting what the test just did (views
    // refresh on the next frames, after the extension host's message).
    const settle = Number(url.searchParams.get('delay') ?? 500);
    await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(settle, 0), 10_000)));
    fs.mkdirSync(screenshotDir, { recursive: true });
    const file = path.join(screenshotDir, `${name}.png`);
    const started = Date.now();
    await page.screenshot({ path: file });
    state.screenshots.push(file);
    write(`[vscode] screenshot ${path.relative(process.cwd(), file)} (${Date.now() - started} ms)\n`);
    return { path: file };
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response, status, value) {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
