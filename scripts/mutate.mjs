// `npm run mutate`: mutation testing of the store's core with StrykerJS
// (stryker.config.mjs says what is mutated and which tests run). Not in CI: a
// full run takes a long while on two cores, so run it a file or a folder at a
// time:
//
//   npm run mutate -- --mutate src/core/validation.ts --threshold 80
//   npm run mutate -- --mutate 'src/core/store/**/*.ts'
//
// --threshold N (ours, not Stryker's) makes the run exit 1 when the total
// mutation score is below N%. Every other argument goes to `stryker run`.
// Each --mutate selection keeps its own incremental file and reports (a small
// config in .cache/stryker/runs/ that extends stryker.config.mjs), so a re-run
// only tests the mutants whose code or tests changed, and runs over different
// selections, even at the same time, do not overwrite each other's results.
// After the run the score of each file and the total are printed from
// Stryker's JSON report (out/mutation/<selection>/mutation.json).
//
// Stryker is installed on first use into a folder of its own (.cache/stryker/)
// rather than as devDependencies: its packages need Node 22+ to install
// without engine warnings on every `npm ci`, and it must load TypeScript 5
// (its TypeScript checker would otherwise pull the newest TypeScript, whose
// package has no JavaScript API).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, '.cache', 'stryker');
const VERSION = '10.1.1';
const packages = {
  '@stryker-mutator/core': VERSION,
  '@stryker-mutator/mocha-runner': VERSION,
  '@stryker-mutator/typescript-checker': VERSION,
  // The project's own TypeScript, for the checker and for Stryker's tsconfig rewriting.
  typescript: JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.typescript,
};

// Our own options, taken out of the arguments before they go to Stryker.
const args = process.argv.slice(2);
let threshold;
const strykerArgs = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--threshold' || arg.startsWith('--threshold=')) {
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
    threshold = Number(value);
    if (value === undefined || value === '' || !Number.isFinite(threshold) || threshold < 0 || threshold > 100) {
      console.error(`[mutate] --threshold wants a percentage from 0 to 100, not ${JSON.stringify(value)}`);
      process.exit(2);
    }
  } else {
    strykerArgs.push(arg);
  }
}

// The TypeScript checker's project (stryker.config.mjs's tsconfigFile) lists the tests Stryker runs:
// a test missing there would have its mutants' type errors go unnoticed.
{
  const { default: base } = await import(pathToFileURL(path.join(root, 'stryker.config.mjs')).href);
  const tsconfigFile = path.join(root, base.tsconfigFile);
  // tsconfig files may hold // comments, which JSON does not.
  const tsconfig = JSON.parse(
    fs
      .readFileSync(tsconfigFile, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*\/\//.test(line))
      .join('\n'),
  );
  const spec = base.mochaOptions.spec;
  if (JSON.stringify([...(tsconfig.files ?? [])].sort()) !== JSON.stringify([...spec].sort())) {
    console.error(
      `[mutate] ${base.tsconfigFile}'s "files" must be stryker.config.mjs's mochaOptions.spec: ` +
        `missing ${JSON.stringify(spec.filter((file) => !tsconfig.files?.includes(file)))}, ` +
        `extra ${JSON.stringify((tsconfig.files ?? []).filter((file) => !spec.includes(file)))}`,
    );
    process.exit(2);
  }
}

// One incremental file per selection of files to mutate (the config's whole list when none is given).
const mutateIndex = strykerArgs.findIndex((arg) => arg === '--mutate' || arg === '-m' || arg.startsWith('--mutate='));
const selection =
  mutateIndex < 0
    ? 'all'
    : strykerArgs[mutateIndex].includes('=')
      ? strykerArgs[mutateIndex].slice(strykerArgs[mutateIndex].indexOf('=') + 1)
      : (strykerArgs[mutateIndex + 1] ?? 'all');
const slug =
  selection === 'all'
    ? 'all'
    : `${selection
        .replace(/[^A-Za-z0-9.-]+/g, '_')
        .replace(/^_+|_+$/g, '')
        .slice(0, 60)}-${createHash('sha256').update(selection).digest('hex').slice(0, 8)}`;
const report = path.join(root, 'out', 'mutation', slug, 'mutation.json');
// `stryker run <configFile>`: unless one is given, a config of this selection's own that extends stryker.config.mjs.
if (!strykerArgs.some((arg) => /\.(c|m)?js$|\.json$/.test(arg) && !arg.startsWith('-'))) {
  const runs = path.join(cache, 'runs');
  fs.mkdirSync(runs, { recursive: true });
  const config = path.join(runs, `${slug}.mjs`);
  const posix = (file) => path.relative(root, file).split(path.sep).join('/');
  fs.writeFileSync(
    config,
    [
      `// Written by scripts/mutate.mjs for --mutate ${JSON.stringify(selection)}; paths are from the project's root.`,
      `import base from ${JSON.stringify(path.relative(runs, path.join(root, 'stryker.config.mjs')).split(path.sep).join('/'))};`,
      'export default {',
      '  ...base,',
      `  incrementalFile: ${JSON.stringify(posix(path.join(cache, 'incremental', `${slug}.json`)))},`,
      `  htmlReporter: { fileName: ${JSON.stringify(posix(path.join(path.dirname(report), 'index.html')))} },`,
      `  jsonReporter: { fileName: ${JSON.stringify(posix(report))} },`,
      '};',
      '',
    ].join('\n'),
  );
  strykerArgs.unshift(posix(config));
}

const manifest = JSON.stringify({ name: 'stryker-cache', private: true, dependencies: packages }, null, 2) + '\n';
const manifestFile = path.join(cache, 'package.json');
const stryker = path.join(cache, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
if (!fs.existsSync(stryker) || !fs.existsSync(manifestFile) || fs.readFileSync(manifestFile, 'utf8') !== manifest) {
  console.log(`[mutate] installing StrykerJS ${VERSION} into ${path.relative(root, cache)}…`);
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(manifestFile, manifest);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: cache,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (install.status !== 0) process.exit(install.status ?? 1);
}

fs.rmSync(report, { force: true });
const run = spawnSync(process.execPath, [stryker, 'run', ...strykerArgs], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
if (!fs.existsSync(report)) {
  console.error(`[mutate] Stryker wrote no JSON report at ${path.relative(root, report)}`);
  process.exit(1);
}

// Stryker's own definition: detected (killed, timed out) over valid (detected, survived, no coverage);
// mutants that do not compile or were ignored do not count.
const STATUSES = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'RuntimeError', 'Ignored'];
const { files } = JSON.parse(fs.readFileSync(report, 'utf8'));
const rows = [];
const total = Object.fromEntries(STATUSES.map((status) => [status, 0]));
for (const [file, { mutants }] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
  const counts = Object.fromEntries(STATUSES.map((status) => [status, 0]));
  for (const mutant of mutants) {
    counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
    total[mutant.status] = (total[mutant.status] ?? 0) + 1;
  }
  rows.push([path.relative(root, path.resolve(root, file)), counts]);
}
const score = (c) => {
  const valid = c.Killed + c.Timeout + c.Survived + c.NoCoverage;
  return valid === 0 ? NaN : (100 * (c.Killed + c.Timeout)) / valid;
};
const percent = (value) => (Number.isNaN(value) ? '   n/a' : `${value.toFixed(2).padStart(6)}`);
const width = Math.max(5, ...rows.map(([file]) => file.length));
const line = (name, c) =>
  `${name.padEnd(width)} ${percent(score(c))}  ${[
    c.Killed,
    c.Timeout,
    c.Survived,
    c.NoCoverage,
    c.CompileError + c.RuntimeError,
  ]
    .map((n) => String(n).padStart(8))
    .join('')}`;
console.log(`\n[mutate] mutation score per file (${selection})`);
console.log(`${'file'.padEnd(width)}  score    killed timeout survived no-cover  errors`);
for (const [file, counts] of rows) console.log(line(file, counts));
console.log(line('total', total));
const totalScore = score(total);
if (threshold !== undefined) {
  if (!(totalScore >= threshold)) {
    console.error(`[mutate] the mutation score ${percent(totalScore).trim()}% is below the threshold of ${threshold}%`);
    process.exit(1);
  }
  console.log(`[mutate] the mutation score ${percent(totalScore).trim()}% meets the threshold of ${threshold}%`);
}
