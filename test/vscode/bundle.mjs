// Bundles one run's test suite for the extension host: the mocha runner
// (test/vscode/suite/index.ts) plus every test file matched by the run's
// glob, each into its own CommonJS file in `outDir`. `vscode` is provided by
// the extension host and `mocha` is resolved from the repo's node_modules at
// run time (out/ is inside the repo), so both stay external.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

export const RUNNER_ENTRY = 'test/vscode/suite/index.ts';

/** Resolves with the absolute path of the bundled runner (index.js). */
export async function bundleSuite({ repoRoot, testGlob, outDir }) {
  const testFiles = fs.globSync(testGlob, { cwd: repoRoot }).sort();
  if (testFiles.length === 0) throw new Error(`no test files match ${testGlob}`);
  // The folder the glob starts from; test files keep their place below it,
  // so two files with the same name in different folders do not collide.
  const base = globBase(testGlob);
  const entryPoints = { index: path.join(repoRoot, RUNNER_ENTRY) };
  for (const file of testFiles) {
    const name = path.relative(base, file).replace(/\.ts$/, '');
    entryPoints[name] = path.join(repoRoot, file);
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22.13',
    external: ['vscode', 'mocha'],
    // For debuggers; stack traces printed in the extension host stay on the
    // bundles (VS Code installs its own prepareStackTrace), which are not minified.
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
  });
  return { runner: path.join(outDir, 'index.js'), testFiles };
}

function globBase(glob) {
  const parts = glob.split('/');
  const firstMagic = parts.findIndex((part) => /[*?[{]/.test(part));
  return parts.slice(0, firstMagic === -1 ? parts.length - 1 : firstMagic).join('/');
}
