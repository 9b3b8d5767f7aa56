// How well citations notice that the code they cite changed (issue #13), on
// real history: commander.js (../shared/datasets/repos/commander.js.bundle,
// 1,517 commits) and this project's own repository. For pairs of commits
// (old, new) along each history, code blocks of the old tree are cited (a
// run of 3 to 30 non-blank lines, the way a memory cites a function or a
// block), the new tree is checked, and each citation's state is scored
// against git's own diff of the cited lines (-U0, whitespace at the ends of
// lines ignored, as the check ignores it):
//   valid    no line of the block changed, and it did not move;
//   moved    no line changed, but lines above it were added or removed;
//   changed  a line of it changed, was removed, or lines were inserted in it;
//   missing  the file was deleted (a rename is counted on its own line: the
//            check does not follow renames yet).
// Then the speed of checking 10,000 citations whose files did not change.
//
// Run: node bench/staleness.mjs   (BENCH_CORE=<core.js> to compare builds,
// BENCH_REPOS=<git dir>[,<git dir>] for other repositories)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

// Deterministic choices, so runs cite the same blocks.
import { random } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const { anchorCitation, checkCitation, CitedFiles } = require(
  process.env.BENCH_CORE ?? path.join(here, '..', 'dist', 'core.js'),
);

const CODE = /\.(js|mjs|cjs|ts)$/;
/** Commit pairs per repository: a new commit this many first-parent commits after the old one. */
const DISTANCES = [10, 40, 150];
const PAIRS_PER_DISTANCE = 3;
/** Citations per file and pair: enough files contribute, no single file dominates. */
const PER_FILE = 6;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-staleness-'));
const git = (repo, ...args) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

function repositories() {
  if (process.env.BENCH_REPOS) return process.env.BENCH_REPOS.split(',').map((repo) => ({ name: path.basename(repo), repo }));
  const commander = path.join(work, 'commander.js');
  const bundle = path.join(here, '..', '..', 'shared', 'datasets', 'repos', 'commander.js.bundle');
  execFileSync('git', ['clone', '--quiet', bundle, commander]);
  return [
    { name: 'commander.js', repo: commander },
    { name: 'workspace-memory', repo: path.join(here, '..') },
  ];
}

/** The tree of `commit` written out under `dir`. */
function checkout(repo, commit, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const tar = path.join(work, 'tree.tar');
  execFileSync('git', ['-C', repo, 'archive', '--format=tar', '-o', tar, commit]);
  execFileSync('tar', ['-xf', tar, '-C', dir]);
  fs.rmSync(tar);
}

/** Blocks of a file: runs of 3 to 30 non-blank lines with some code in them (1-based, inclusive). */
function blocks(text) {
  const lines = text.split('\n');
  const found = [];
  let start = -1;
  for (let i = 0; i <= lines.length; i++) {
    const blank = i === lines.length || lines[i].trim() === '';
    if (!blank && start < 0) start = i;
    if (blank && start >= 0) {
      const length = i - start;
      const body = lines.slice(start, i);
      if (length >= 3 && length <= 30 && body.some((line) => /[({=]/.test(line) && line.trim().length > 10)) {
        found.push({ startLine: start + 1, endLine: i });
      }
      start = -1;
    }
  }
  return found;
}

/** git's view of what happened to the lines of each file from `old` to `now`. */
function diffOf(repo, old, now, file) {
  const hunks = [];
  const text = git(repo, 'diff', '-U0', '--ignore-space-at-eol', '--no-renames', old, now, '--', file);
  for (const match of text.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    hunks.push({
      oldStart: Number(match[1]),
      oldLength: match[2] === undefined ? 1 : Number(match[2]),
      newLength: match[4] === undefined ? 1 : Number(match[4]),
    });
  }
  return hunks;
}

/** The true state of lines a..b after the hunks, and where they are now when they moved. */
function truth(hunks, a, b) {
  let offset = 0;
  for (const { oldStart, oldLength, newLength } of hunks) {
    if (oldLength === 0) {
      // Lines inserted after old line oldStart.
      if (oldStart >= a && oldStart < b) return { state: 'changed' };
      if (oldStart < a) offset += newLength;
      continue;
    }
    const oldEnd = oldStart + oldLength - 1;
    if (oldEnd >= a && oldStart <= b) return { state: 'changed' };
    if (oldEnd < a) offset += newLength - oldLength;
  }
  return offset === 0 ? { state: 'valid' } : { state: 'moved', startLine: a + offset, endLine: b + offset };
}

/** Pairs of first-parent commits (old, new), spread over the history. */
function pairs(repo) {
  const commits = git(repo, 'rev-list', '--first-parent', '--reverse', 'HEAD').trim().split('\n');
  const chosen = [];
  for (const distance of DISTANCES) {
    for (let k = 0; k < PAIRS_PER_DISTANCE; k++) {
      const at = Math.floor(((k + 0.5) / PAIRS_PER_DISTANCE) * (commits.length - distance - 1));
      chosen.push({ old: commits[at], now: commits[at + distance], distance });
    }
  }
  return chosen;
}

const results = [];
const speed = [];
try {
  for (const { name, repo } of repositories()) {
    const tally = {
      cited: 0,
      confusion: {},
      renamed: 0,
      moved: { total: 0, right: 0 },
      stale: { truePositive: 0, falsePositive: 0, falseNegative: 0 },
    };
    const rng = random(17);
    let speedSample;
    for (const [index, pair] of pairs(repo).entries()) {
      const oldDir = path.join(work, `${name}-${index}-old`);
      const newDir = path.join(work, `${name}-${index}-new`);
      checkout(repo, pair.old, oldDir);
      checkout(repo, pair.now, newDir);
      const files = git(repo, 'ls-tree', '-r', '--name-only', pair.old)
        .trim()
        .split('\n')
        .filter((file) => CODE.test(file) && !file.includes('node_modules/'));
      const status = new Map(
        git(repo, 'diff', '--name-status', '-M', pair.old, pair.now)
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split('\t'))
          .map(([code, file]) => [file, code[0]]),
      );
      const oldFolder = [{ name, path: oldDir }];
      const newFolder = [{ name, path: newDir }];
      const citations = [];
      for (const file of files) {
        const text = fs.readFileSync(path.join(oldDir, file), 'utf8');
        const candidates = blocks(text);
        for (let n = 0; n < PER_FILE && candidates.length; n++) {
          const [range] = candidates.splice(Math.floor(rng() * candidates.length), 1);
          citations.push(anchorCitation(oldFolder, { path: file, ...range }));
        }
      }
      if (!speedSample) speedSample = { folder: oldFolder, citations };
      const hunksOf = new Map();
      for (const citation of citations) {
        const change = status.get(citation.path);
        if (change === 'R') {
          tally.renamed++;
          continue;
        }
        let expected;
        if (change === 'D') expected = { state: 'missing' };
        else {
          if (!hunksOf.has(citation.path)) hunksOf.set(citation.path, change ? diffOf(repo, pair.old, pair.now, citation.path) : []);
          expected = truth(hunksOf.get(citation.path), citation.startLine, citation.endLine);
        }
        const found = checkCitation(newFolder, citation);
        tally.cited++;
        const key = `${expected.state}→${found.state}`;
        tally.confusion[key] = (tally.confusion[key] ?? 0) + 1;
        const staleTruth = expected.state === 'changed' || expected.state === 'missing';
        const staleFound = found.state === 'changed' || found.state === 'missing';
        if (staleTruth && staleFound) tally.stale.truePositive++;
        else if (staleFound) tally.stale.falsePositive++;
        else if (staleTruth) tally.stale.falseNegative++;
        if (expected.state === 'moved') {
          tally.moved.total++;
          if (found.state === 'moved' && found.moved.startLine === expected.startLine) tally.moved.right++;
        }
      }
      // The first old tree stays for the speed test below; the rest go.
      fs.rmSync(newDir, { recursive: true, force: true });
      if (oldDir !== speedSample.folder[0].path) fs.rmSync(oldDir, { recursive: true, force: true });
    }
    results.push({ name, ...tally });

    // 10,000 citations of files that did not change, checked with the cache a process keeps.
    const { folder, citations } = speedSample;
    const many = Array.from({ length: 10_000 }, (_, i) => citations[i % citations.length]);
    const files = new CitedFiles();
    for (const citation of many) checkCitation(folder, citation, files);
    const runs = [];
    for (let run = 0; run < 5; run++) {
      const start = performance.now();
      for (const citation of many) checkCitation(folder, citation, files);
      runs.push(performance.now() - start);
    }
    // The floor: one stat per citation, what telling "unchanged" needs at least.
    const floorStart = performance.now();
    for (const citation of many) fs.statSync(path.join(folder[0].path, citation.path));
    const floor = performance.now() - floorStart;
    runs.sort((x, y) => x - y);
    speed.push({ name, files: new Set(citations.map((c) => c.path)).size, median: runs[2], best: runs[0], floor });
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

const ratio = (part, whole) => (whole ? (part / whole).toFixed(3) : 'n/a');
console.log(`Workspace Memory citation staleness on real history — Node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`);
console.log(
  `pairs per repository: ${DISTANCES.length * PAIRS_PER_DISTANCE} (${DISTANCES.join(', ')} commits apart), up to ${PER_FILE} blocks per file`,
);
console.log(
  '\n| repository | citations | stale precision | stale recall | moved re-anchored right | renamed (not followed) |\n|---|---:|---:|---:|---:|---:|',
);
for (const r of results) {
  const { truePositive: tp, falsePositive: fp, falseNegative: fn } = r.stale;
  console.log(
    `| ${r.name} | ${r.cited} | ${ratio(tp, tp + fp)} (${tp}/${tp + fp}) | ${ratio(tp, tp + fn)} (${tp}/${tp + fn}) | ${ratio(r.moved.right, r.moved.total)} (${r.moved.right}/${r.moved.total}) | ${r.renamed} |`,
  );
}
console.log('\ntruth → found:');
for (const r of results) console.log(`  ${r.name}: ${JSON.stringify(r.confusion)}`);
console.log('\n| repository | 10,000 citations of unchanged files, ms (median of 5, best) | files | floor: one stat each, ms |\n|---|---:|---:|---:|');
for (const s of speed) console.log(`| ${s.name} | ${s.median.toFixed(1)} (${s.best.toFixed(1)}) | ${s.files} | ${s.floor.toFixed(1)} |`);
