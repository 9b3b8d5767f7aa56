// How well citations notice that the code they cite changed (issue #13), on
// real history: commander.js (../shared/datasets/repos/commander.js.bundle,
// 1,517 commits) and this project's own repository. For pairs of commits
// (old, new) along each history, code blocks of the old tree are cited (a
// run of 3 to 30 non-blank lines, the way a memory cites a function or a
// block), the new tree is checked the way `workspace-memory citations check`
// checks it (a store's full check, which asks git about renames and
// re-anchors what moved), and each citation's state is scored against git's
// own diff of the cited lines (-U0, whitespace at the ends of lines ignored,
// as the check ignores it):
//   valid    no line of the block changed, and it did not move;
//   moved    no line changed, but lines above it were added or removed, or
//            its file was renamed (git diff -M): scored right when the store
//            has it re-anchored at the right file and lines;
//   changed  a line of it changed, was removed, or lines were inserted in it
//            (in a renamed file too);
//   missing  the file was deleted.
// Besides the pairs spread over each history, pairs around the commits that
// renamed code files, so that renames are scored at all. Both trees are git
// worktrees of a clone (the citations record the old commit, as anchoring in
// a repository does). Then the speed of checking 10,000 citations whose
// files did not change, as recall checks them.
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
const { anchorCitation, checkCitation, CitedFiles, Memory } = require(
  process.env.BENCH_CORE ?? path.join(here, '..', 'dist', 'core.js'),
);

const CODE = /\.(js|mjs|cjs|ts)$/;
/** Commit pairs per repository: a new commit this many first-parent commits after the old one. */
const DISTANCES = [10, 40, 150];
const PAIRS_PER_DISTANCE = 3;
/** Pairs around commits that renamed code files: old just before one, new this many commits later. */
const RENAME_PAIRS = 8;
const RENAME_DISTANCE = 10;
/** Citations per file and pair: enough files contribute, no single file dominates. */
const PER_FILE = 6;
/** A memory holds at most 20 citations. */
const PER_MEMORY = 20;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-staleness-'));
const git = (repo, ...args) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

/**
 * The repositories, cloned into the bench's folder: the trees are checked out
 * as worktrees of the clones, never of a repository given (this one is being
 * worked in).
 */
function repositories() {
  const sources = process.env.BENCH_REPOS
    ? process.env.BENCH_REPOS.split(',').map((repo) => ({ name: path.basename(repo), source: repo }))
    : [
        {
          name: 'commander.js',
          source: path.join(here, '..', '..', 'shared', 'datasets', 'repos', 'commander.js.bundle'),
        },
        { name: 'workspace-memory', source: path.join(here, '..') },
      ];
  return sources.map(({ name, source }) => {
    const repo = path.join(work, `${name}-clone`);
    execFileSync('git', ['clone', '--quiet', '--no-checkout', source, repo]);
    return { name, repo };
  });
}

/** The tree of `commit` checked out under `dir`, as a worktree of `repo` (a git repository of its own). */
function checkout(repo, commit, dir) {
  git(repo, 'worktree', 'add', '--quiet', '--detach', dir, commit);
}

function removeTree(repo, dir) {
  git(repo, 'worktree', 'remove', '--force', dir);
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

/** git's view of what happened to the lines of a file from `old` to `now`; a renamed file's against its new path. */
function diffOf(repo, old, now, file, renamedTo) {
  const hunks = [];
  const paths = renamedTo ? ['-M', '--', file, renamedTo] : ['--no-renames', '--', file];
  const text = git(repo, 'diff', '-U0', '--ignore-space-at-eol', old, now, ...paths);
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

/** Pairs of first-parent commits (old, new), spread over the history, then around renames of code files. */
function pairs(repo) {
  const commits = git(repo, 'rev-list', '--first-parent', '--reverse', 'HEAD').trim().split('\n');
  const chosen = [];
  for (const distance of DISTANCES) {
    for (let k = 0; k < PAIRS_PER_DISTANCE; k++) {
      const at = Math.floor(((k + 0.5) / PAIRS_PER_DISTANCE) * (commits.length - distance - 1));
      chosen.push({ old: commits[at], now: commits[at + distance], distance });
    }
  }
  const renaming = renamingCommits(repo)
    .map((commit) => commits.indexOf(commit))
    .filter((at) => at > 0)
    .sort((a, b) => a - b);
  for (let k = 0; k < Math.min(RENAME_PAIRS, renaming.length); k++) {
    const at = renaming[Math.floor(((k + 0.5) / Math.min(RENAME_PAIRS, renaming.length)) * renaming.length)];
    const now = Math.min(at - 1 + RENAME_DISTANCE, commits.length - 1);
    chosen.push({ old: commits[at - 1], now: commits[now], distance: now - at + 1, renames: true });
  }
  return chosen;
}

/** First-parent commits that renamed a code file (against their first parent). */
function renamingCommits(repo) {
  const log = git(
    repo,
    'log',
    '--first-parent',
    '--diff-merges=first-parent',
    '-M',
    '--diff-filter=R',
    '--name-status',
    '--format=commit %H',
  );
  const found = new Set();
  let commit;
  for (const line of log.split('\n')) {
    if (line.startsWith('commit ')) commit = line.slice(7);
    else if (line.startsWith('R') && CODE.test(line.split('\t')[1] ?? '')) found.add(commit);
  }
  return [...found];
}

/**
 * The citations checked as a store's full check does: saved on memories in
 * a store whose workspace is the new tree, checked (re-anchoring what
 * moved), then read back. Each citation's state, and where the store has it now.
 */
async function fullCheck(folder, citations, storeDir) {
  const memory = await Memory.open({
    dir: storeDir,
    author: 'bench',
    synchronous: 'normal',
    workspaceFolders: folder,
    // Every memory is kept, however alike their contents.
    dedupThreshold: 1,
  });
  try {
    const ids = [];
    for (let i = 0; i < citations.length; i += PER_MEMORY) {
      const [saved] = await memory.memories.save('bench', undefined, {
        content: `Citations ${i} to ${i + PER_MEMORY - 1} of the old tree`,
        citations: citations.slice(i, i + PER_MEMORY),
      });
      ids.push(saved.id);
    }
    const report = await memory.checkCitations();
    const statuses = new Map(report.entities.map(({ entity, citations: found }) => [entity.id, found]));
    const found = [];
    for (const id of ids) {
      // Where the check wrote each citation (two that moved onto the same lines are stored once).
      const stored = (await memory.memories.get(id)).citations;
      for (const { citation, state, movedTo } of statuses.get(id)) {
        const now = movedTo ? { ...citation, ...movedTo } : citation;
        const written = stored.some(
          (kept) => kept.path === now.path && kept.startLine === now.startLine && kept.endLine === now.endLine,
        );
        found.push({ state, now: written ? now : citation });
      }
    }
    return found;
  } finally {
    await memory.close();
  }
}

const results = [];
const speed = [];
try {
  for (const { name, repo } of repositories()) {
    const tally = {
      cited: 0,
      confusion: {},
      /** Citations that recorded the old commit when anchored in its worktree. */
      withCommit: 0,
      renamed: { total: 0, right: 0, confusion: {} },
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
          .map(([code, file, renamedTo]) => [file, { code: code[0], renamedTo }]),
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
      // The store keeps the same lines cited twice once; so does the tally (a file's blocks may repeat).
      const distinct = new Map(
        citations.map((citation) => [`${citation.path}:${citation.startLine}-${citation.endLine}`, citation]),
      );
      citations.splice(0, citations.length, ...distinct.values());
      if (!speedSample) speedSample = { folder: oldFolder, citations };
      const storeDir = path.join(work, `${name}-${index}-store`);
      const found = await fullCheck(newFolder, citations, storeDir);
      const hunksOf = new Map();
      for (const [k, citation] of citations.entries()) {
        const change = status.get(citation.path);
        const renamedTo = change?.code === 'R' ? change.renamedTo : undefined;
        let expected;
        if (change?.code === 'D') expected = { state: 'missing' };
        else {
          if (!hunksOf.has(citation.path)) {
            hunksOf.set(citation.path, change ? diffOf(repo, pair.old, pair.now, citation.path, renamedTo) : []);
          }
          const {
            startLine = citation.startLine,
            endLine = citation.endLine,
            state,
          } = truth(hunksOf.get(citation.path), citation.startLine, citation.endLine);
          // A renamed file's unchanged lines moved, to the new file.
          expected =
            state === 'changed'
              ? { state }
              : {
                  state: renamedTo || state === 'moved' ? 'moved' : state,
                  path: renamedTo ?? citation.path,
                  startLine,
                  endLine,
                };
        }
        const { state, now } = found[k];
        tally.cited++;
        if (citation.commit === pair.old) tally.withCommit++;
        const key = `${expected.state}→${state}`;
        tally.confusion[key] = (tally.confusion[key] ?? 0) + 1;
        const staleTruth = expected.state === 'changed' || expected.state === 'missing';
        const staleFound = state === 'changed' || state === 'missing';
        if (staleTruth && staleFound) tally.stale.truePositive++;
        else if (staleFound) tally.stale.falsePositive++;
        else if (staleTruth) tally.stale.falseNegative++;
        // Re-anchored right: the store has it at the right file and lines.
        const right =
          expected.state === 'moved'
            ? state === 'moved' &&
              now.path === expected.path &&
              now.startLine === expected.startLine &&
              now.endLine === expected.endLine
            : state === expected.state;
        if (expected.state === 'moved') {
          tally.moved.total++;
          if (right) tally.moved.right++;
        }
        if (renamedTo) {
          tally.renamed.total++;
          tally.renamed.confusion[key] = (tally.renamed.confusion[key] ?? 0) + 1;
          if (right) tally.renamed.right++;
        }
      }
      fs.rmSync(storeDir, { recursive: true, force: true });
      // The first old tree stays for the speed test below; the rest go.
      removeTree(repo, newDir);
      if (oldDir !== speedSample.folder[0].path) removeTree(repo, oldDir);
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
console.log(
  `Workspace Memory citation staleness on real history — Node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`,
);
console.log(
  `pairs per repository: ${DISTANCES.length * PAIRS_PER_DISTANCE} (${DISTANCES.join(', ')} commits apart), and up to ${RENAME_PAIRS} around renames (${RENAME_DISTANCE} apart); up to ${PER_FILE} blocks per file`,
);
console.log(
  '\n| repository | citations (old commit recorded) | stale precision | stale recall | moved re-anchored right (file and lines) | in renamed files: right |\n|---|---:|---:|---:|---:|---:|',
);
for (const r of results) {
  const { truePositive: tp, falsePositive: fp, falseNegative: fn } = r.stale;
  console.log(
    `| ${r.name} | ${r.cited} (${r.withCommit}) | ${ratio(tp, tp + fp)} (${tp}/${tp + fp}) | ${ratio(tp, tp + fn)} (${tp}/${tp + fn}) | ${ratio(r.moved.right, r.moved.total)} (${r.moved.right}/${r.moved.total}) | ${ratio(r.renamed.right, r.renamed.total)} (${r.renamed.right}/${r.renamed.total}) |`,
  );
}
console.log('\ntruth → found:');
for (const r of results) {
  console.log(`  ${r.name}: ${JSON.stringify(r.confusion)}`);
  console.log(`  ${r.name}, in renamed files: ${JSON.stringify(r.renamed.confusion)}`);
}
console.log(
  '\n| repository | 10,000 citations of unchanged files, ms (median of 5, best) | files | floor: one stat each, ms |\n|---|---:|---:|---:|',
);
for (const s of speed)
  console.log(`| ${s.name} | ${s.median.toFixed(1)} (${s.best.toFixed(1)}) | ${s.files} | ${s.floor.toFixed(1)} |`);
