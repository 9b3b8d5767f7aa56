import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Builds an object schema in a fresh process (zod caches its check) and counts its reads of `navigator`. */
function navigatorReads(loader: string): string {
  const script = `
    let reads = 0;
    Object.defineProperty(globalThis, 'navigator', { configurable: true, get: () => (reads++, { userAgent: 'Node' }) });
    const { loadZod } = require(${JSON.stringify(path.join(ROOT, 'src', 'core', loader))});
    const z = loadZod();
    z.object({ a: z.string() }).parse({ a: 'x' });
    process.stdout.write(String(reads));
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

// Issue #17: VS Code's extension host logged a deprecation for zod's look at `navigator` on every activation.
describe('zod, as the loaders give it', () => {
  for (const loader of ['zod-loader.ts', 'zod-loader.eager.ts']) {
    it(`never reads navigator to decide whether to compile a schema (${loader})`, () => {
      assert.equal(navigatorReads(loader), '0');
    });
  }
});
