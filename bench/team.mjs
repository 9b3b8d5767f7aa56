// Team memory benchmark (issue: team memory). A git repository whose team
// folder (.memory/memory/*.md, .memory/skill/*.md) holds 5,000 memories and
// skills, committed by four authors, is cloned, and the clone is measured
// against the issue's targets:
//   1. first open: a fresh store opened on the clone (Memory.open with
//      teamFolder) and memory.team.sync() over the 5,000 files, <= 5 s; the
//      first sync split into git's author lookup (the same `git log` the sync
//      runs), the folder scan (timed as the synchronous start of
//      memory.team.status(), which is scanTeamFolder) and the store writes
//      (the rest). Beside it, the floor: reading the 5,000 files and parsing
//      their front matter with the `yaml` package, nothing else. Then what a
//      sync costs when nothing changed: on an open store, and open + sync of
//      the existing store (what every CLI command pays when it opens);
//   2. a pull that changes 50 files (a commit on the origin editing their
//      content, `git pull --ff-only` in the clone) reflected in the store
//      <= 2 s after git finishes: memory.team.sync() on an open store, and
//      open + sync (the CLI's way), each checked by reading entities back;
//   3. `workspace-memory team check <repo>` of the 5,000 files <= 10 s, as a
//      CLI process (it needs no store), with its finding count (0 expected:
//      the generated memories are distinct, far below the 0.85 similarity
//      at which check reports near-duplicates).
// The files are written the way format.ts renders them (front matter in its
// order through the same `yaml` Document options, `<slug>-<short id>.md`
// names), from a seeded generator, so every run measures the same folder.
// Figures are medians of BENCH_RUNS runs (default 3; team check runs
// BENCH_CHECK_RUNS times, default 1), wall clock and CPU time (this
// process's, git's own processes not included; the CLI's through
// /usr/bin/time where it exists). The load average is printed: on a shared
// machine the wall clock moves with it, the CPU time much less.
//
// Run: node bench/team.mjs   (after `node esbuild.js`; BENCH_TEAM_FILES=<n>
// for another folder size, BENCH_RUNS=<n>, BENCH_CHECK_RUNS=<n>,
// BENCH_CORE=<core.js> and BENCH_CLI=<cli.js> to compare builds,
// BENCH_KEEP=1 to keep the temp folder)
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { random, sentence, vocabulary } from './synthetic.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const { Memory } = require(process.env.BENCH_CORE ?? path.join(here, '..', 'dist', 'core.js'));
const CLI = process.env.BENCH_CLI ?? path.join(here, '..', 'dist', 'cli.js');
const YAML = require('yaml');

const FILES = Number(process.env.BENCH_TEAM_FILES ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** team check takes tens of seconds on 5,000 files: one run unless asked. */
const CHECK_RUNS = Number(process.env.BENCH_CHECK_RUNS ?? 1);
/** One file in 20 is a skill. */
const SKILL_EVERY = 20;
/** Files per commit of the first history: the folder grew over time. */
const PER_COMMIT = 250;
const PULL_FILES = 50;
const AUTHORS = [
  { name: 'Alice Martin', email: 'alice@example.com' },
  { name: 'Bob Chen', email: 'bob@example.com' },
  { name: 'Chloé Dupont', email: 'chloe@example.com' },
  { name: 'Dev Patel', email: 'dev@example.com' },
];
const TARGETS = { firstOpenMs: 5000, pullMs: 2000, checkMs: 10000 };

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-bench-team-'));
const origin = path.join(work, 'origin');
const clone = path.join(work, 'clone');
const execFileAsync = promisify(execFile);

const now = () => performance.now();
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const ms = (value) => `${Math.round(value).toLocaleString('en')} ms`;
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const cpuMs = (since) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
const verdict = (value, target) => (value <= target ? 'met' : 'MISSED');

function git(repo, args, author) {
  const who = author ?? AUTHORS[0];
  return execFileSync('git', ['-C', repo, '-c', 'commit.gpgsign=false', ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
      GIT_AUTHOR_DATE: '2025-01-01T12:00:00Z',
      GIT_COMMITTER_DATE: '2025-01-01T12:00:00Z',
    },
  });
}
const person = ({ name, email }) => `${name} <${email}>`;

// ------------------------------------------------------------ the team folder

/**
 * The team file of an entity, as renderTeamFile (src/core/team/format.ts)
 * renders it: id, type, category, [status], tags (flow), createdBy,
 * updatedBy, through a yaml Document in YAML 1.1 compat, lines never folded;
 * then the content and one line break.
 */
function renderTeamFile(entity, people) {
  const fields = { id: entity.id, type: entity.type, category: entity.category };
  if (entity.type === 'skill') fields.status = entity.status;
  if (entity.tags.length) fields.tags = entity.tags;
  fields.createdBy = people.createdBy;
  fields.updatedBy = people.updatedBy;
  const doc = new YAML.Document(fields, { compat: 'yaml-1.1' });
  const tags = doc.get('tags', true);
  if (YAML.isSeq(tags)) tags.flow = true;
  return `---\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}---\n${entity.content}\n`;
}

/** format.ts teamSlug for ASCII text: the first words, hyphen-joined, at most 48 characters cut at a hyphen. */
function teamSlug(content) {
  const words = content
    .slice(0, 400)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (words.length <= 48) return words || 'untitled';
  const hyphen = words.lastIndexOf('-', 48);
  return hyphen > 24 ? words.slice(0, hyphen) : words.slice(0, 48).replace(/-+$/, '');
}

/** A generated id (`<type>-<8 base36><12 hex>`); its short id, the file name's end, is the 12 hex digits. */
function entityId(type, i, rng, used) {
  for (;;) {
    const hex = Array.from({ length: 12 }, () => Math.floor(rng() * 16).toString(16)).join('');
    if (used.has(hex)) continue;
    used.add(hex);
    return { id: `${type}-${(1733000000000 + i * 997).toString(36)}${hex}`, short: hex };
  }
}

const pickOf = (rng, list) => list[Math.floor(rng() * list.length)];
const MEMORY_CATEGORIES = ['fact', 'decision', 'issue', 'task', 'correction'];
const SKILL_CATEGORIES = ['procedure', 'configuration', 'troubleshooting', 'workflow'];
/** The frame of a memory's line of rare words, varied so that no word is in every file. */
const LEADS = [
  'See',
  'Ask about',
  'Tracked with',
  'Related to',
  'Compare',
  'Also check',
  'Mentioned with',
  'Owned with',
];
const PLACES = ['in the', 'under', 'beside', 'near', 'via', 'for', 'from the', 'after'];

/**
 * The folder's entities: memories of two or three developer sentences and a
 * line naming five words of a 6,000-word vocabulary (so no two say nearly the
 * same), skills of a few numbered steps.
 */
function entities(count) {
  const rng = random(20250101);
  const words = vocabulary(rng);
  const word = () => pickOf(rng, words);
  const used = new Set();
  const list = [];
  for (let i = 0; i < count; i++) {
    const type = i % SKILL_EVERY === SKILL_EVERY - 1 ? 'skill' : 'memory';
    const { id, short } = entityId(type, i, rng, used);
    const tags = [...new Set([word(), word(), word()].map((w) => w.slice(0, 12)))].slice(0, 2 + Math.floor(rng() * 2));
    const detail = `${pickOf(rng, LEADS)} ${word()}, ${word()} and ${word()} ${pickOf(rng, PLACES)} ${word()} ${word()}.`;
    const content =
      type === 'memory'
        ? [sentence(rng), sentence(rng), ...(rng() < 0.5 ? [sentence(rng)] : []), detail].join(' ')
        : [`How to handle ${word()} ${word()}:`, '', `1. ${sentence(rng)}`, `2. ${sentence(rng)}`, `3. ${detail}`].join(
            '\n',
          );
    const author = AUTHORS[Math.floor(i / PER_COMMIT) % AUTHORS.length];
    list.push({
      id,
      type,
      category: type === 'memory' ? pickOf(rng, MEMORY_CATEGORIES) : pickOf(rng, SKILL_CATEGORIES),
      ...(type === 'skill' ? { status: 'active' } : {}),
      tags,
      content,
      author,
      path: `${type}/${teamSlug(content)}-${short}.md`,
    });
  }
  return list;
}

function writeEntity(repo, entity, updatedBy = entity.author) {
  const file = path.join(repo, '.memory', entity.path);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, renderTeamFile(entity, { createdBy: person(entity.author), updatedBy: person(updatedBy) }));
}

/** The origin: the folder committed PER_COMMIT files at a time, each commit by its files' author. */
function buildOrigin(list) {
  fs.mkdirSync(origin, { recursive: true });
  git(origin, ['init', '--quiet', '--initial-branch=main']);
  fs.writeFileSync(path.join(origin, 'README.md'), '# A project with team memory\n');
  fs.mkdirSync(path.join(origin, '.memory'), { recursive: true });
  fs.writeFileSync(path.join(origin, '.memory', 'README.md'), '# Team memory\n');
  git(origin, ['add', '-A']);
  git(origin, ['commit', '--quiet', '-m', 'start']);
  for (let offset = 0; offset < list.length; offset += PER_COMMIT) {
    const batch = list.slice(offset, offset + PER_COMMIT);
    for (const entity of batch) writeEntity(origin, entity);
    git(origin, ['add', '-A']);
    git(origin, ['commit', '--quiet', '-m', `team memory ${offset}`], batch[0].author);
  }
  execFileSync('git', ['clone', '--quiet', origin, clone]);
}

// ------------------------------------------------------------------- measures

const openOptions = (dir, init) => ({
  dir,
  init,
  workspaceFolders: [{ name: 'clone', path: clone }],
  teamFolder: path.join(clone, '.memory'),
});

/** The `git log` the sync runs for the files' last authors (src/core/team/git.ts lastAuthors). */
async function gitLogMs(root) {
  const start = now();
  await execFileAsync(
    'git',
    [
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.quotepath=false',
      'log',
      '--format=\u001e%an <%ae>',
      '--name-only',
      '--relative',
      '--no-renames',
      '--',
      '.',
    ],
    { cwd: root, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, maxBuffer: 256 * 1024 * 1024 },
  );
  return now() - start;
}

/**
 * The folder scan alone: Team.status() runs scanTeamFolder synchronously
 * before its first await (then only spawns git), so the time until it
 * returns its promise is the scan's.
 */
async function scanMs(memory) {
  const start = now();
  const pending = memory.team.status();
  const elapsed = now() - start;
  const status = await pending;
  if (status.files.length !== FILES) throw new Error(`status saw ${status.files.length} files, not ${FILES}`);
  return elapsed;
}

/** Reading the files and parsing their front matter with `yaml`, nothing else: the floor under a scan. */
function floorMs(root) {
  const start = now();
  let parsed = 0;
  for (const type of ['memory', 'skill']) {
    const folder = path.join(root, type);
    for (const name of fs.readdirSync(folder)) {
      const text = fs.readFileSync(path.join(folder, name), 'utf8');
      const close = text.indexOf('\n---\n', 3);
      const front = YAML.parse(text.slice(4, close));
      if (front.id) parsed++;
    }
  }
  if (parsed !== FILES) throw new Error(`floor parsed ${parsed} files`);
  return now() - start;
}

async function firstOpen(list) {
  const runs = [];
  let kept;
  for (let run = 0; run < RUNS; run++) {
    const dir = fs.mkdtempSync(path.join(work, 'store-'));
    const cpu = process.cpuUsage();
    const start = now();
    const memory = await Memory.open(openOptions(dir, true));
    const opened = now();
    const report = await memory.team.sync();
    const done = now();
    const cpuTotal = cpuMs(cpu);
    if (report.added.length !== FILES || report.problems.length) {
      throw new Error(`first sync added ${report.added.length}, problems ${JSON.stringify(report.problems[0])}`);
    }
    const gitLog = await gitLogMs(memory.team.folder);
    const scan = await scanMs(memory);
    const floor = floorMs(memory.team.folder);
    const sample = list[(run * 1237) % list.length];
    const back = await (sample.type === 'memory' ? memory.memories : memory.skills).get(sample.id);
    if (back?.content !== sample.content) throw new Error(`${sample.id} read back differs`);
    runs.push({
      openMs: opened - start,
      syncMs: done - opened,
      totalMs: done - start,
      cpuMs: cpuTotal,
      gitLogMs: gitLog,
      scanMs: scan,
      writesMs: done - opened - gitLog - scan,
      floorMs: floor,
    });
    if (kept) await kept.memory.close();
    kept = { memory, dir };
  }
  return { runs, kept };
}

async function unchanged(kept) {
  const open = [];
  const openCpu = [];
  for (let run = 0; run < RUNS; run++) {
    const cpu = process.cpuUsage();
    const start = now();
    const report = await kept.memory.team.sync();
    open.push(now() - start);
    openCpu.push(cpuMs(cpu));
    if (report.unchanged !== FILES) throw new Error(`unchanged sync: ${report.unchanged}`);
  }
  await kept.memory.close();
  const reopen = [];
  const reopenCpu = [];
  const openOnly = [];
  for (let run = 0; run < RUNS; run++) {
    const cpu = process.cpuUsage();
    const start = now();
    const memory = await Memory.open(openOptions(kept.dir, false));
    const opened = now();
    await memory.team.sync();
    reopen.push(now() - start);
    reopenCpu.push(cpuMs(cpu));
    openOnly.push(opened - start);
    await memory.close();
  }
  return {
    syncOpenMs: median(open),
    syncOpenCpuMs: median(openCpu),
    openSyncMs: median(reopen),
    openSyncCpuMs: median(reopenCpu),
    openOnlyMs: median(openOnly),
  };
}

/** A commit on the origin editing 50 memories' content, pulled into the clone; the new contents by id. */
let pullRound = 0;
function pullFifty(list) {
  const round = pullRound++;
  const memories = list.filter((entity) => entity.type === 'memory');
  const changed = new Map();
  for (let i = 0; i < PULL_FILES; i++) {
    const entity = memories[((round * PULL_FILES + i) * 7) % memories.length];
    entity.content = `${entity.content} Changed in pull ${round + 1}: keep it in mind.`;
    writeEntity(origin, entity, AUTHORS[1]);
    changed.set(entity.id, entity);
  }
  if (changed.size !== PULL_FILES) throw new Error('pull picked a file twice');
  git(origin, ['commit', '--quiet', '-am', `edit ${PULL_FILES} memories (${round + 1})`], AUTHORS[1]);
  const start = now();
  execFileSync('git', ['-C', clone, 'pull', '--quiet', '--ff-only']);
  return { changed, pullMs: now() - start };
}

async function verifyPulled(memory, report, changed) {
  if (report.updated.length !== PULL_FILES || report.added.length || report.removed.length || report.problems.length) {
    throw new Error(`pull sync: ${JSON.stringify({ ...report, unchanged: report.unchanged })}`);
  }
  for (const [id, entity] of [...changed].slice(0, 5)) {
    const back = await memory.memories.get(id);
    if (back?.content !== entity.content) throw new Error(`${id} does not hold the pulled content`);
  }
  const [id] = changed.keys();
  const [last] = (await memory.memories.history(id)).slice(-1);
  return last;
}

async function pulls(list, dir) {
  const open = [];
  const openCpu = [];
  const reopen = [];
  const reopenCpu = [];
  const gitPull = [];
  const memory = await Memory.open(openOptions(dir, false));
  await memory.team.sync();
  for (let run = 0; run < RUNS; run++) {
    const { changed, pullMs } = pullFifty(list);
    gitPull.push(pullMs);
    const cpu = process.cpuUsage();
    const start = now();
    const report = await memory.team.sync();
    open.push(now() - start);
    openCpu.push(cpuMs(cpu));
    await verifyPulled(memory, report, changed);
  }
  await memory.close();
  for (let run = 0; run < RUNS; run++) {
    const { changed, pullMs } = pullFifty(list);
    gitPull.push(pullMs);
    const cpu = process.cpuUsage();
    const start = now();
    const reopened = await Memory.open(openOptions(dir, false));
    const report = await reopened.team.sync();
    reopen.push(now() - start);
    reopenCpu.push(cpuMs(cpu));
    await verifyPulled(reopened, report, changed);
    await reopened.close();
  }
  return {
    syncOpenMs: median(open),
    syncOpenCpuMs: median(openCpu),
    openSyncMs: median(reopen),
    openSyncCpuMs: median(reopenCpu),
    gitPullMs: median(gitPull),
  };
}

/** GNU time, where there is one, for the CPU seconds of the CLI's process (user + system). */
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function teamCheck() {
  const times = [];
  const cpu = [];
  let result;
  const usage = path.join(work, 'check-usage');
  for (let run = 0; run < CHECK_RUNS; run++) {
    const command = [process.execPath, CLI, 'team', 'check', clone, '--json'];
    const start = now();
    const child = TIME
      ? spawnSync(TIME, ['-f', '%U %S', '-o', usage, ...command], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
      : spawnSync(command[0], command.slice(1), { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    times.push(now() - start);
    if (child.status !== 0 && child.status !== 3) throw new Error(`team check failed: ${child.stderr}`);
    if (TIME) {
      const [user, system] = fs.readFileSync(usage, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
      cpu.push((user + system) * 1000);
    }
    result = JSON.parse(child.stdout);
  }
  const kinds = {};
  for (const finding of result.findings) kinds[finding.kind] = (kinds[finding.kind] ?? 0) + 1;
  return {
    ms: median(times),
    cpuMs: cpu.length ? median(cpu) : undefined,
    times,
    files: result.files,
    findings: result.findings.length,
    kinds,
    sample: result.findings[0],
  };
}

// ----------------------------------------------------------------------- main

try {
  console.log(
    `team memory bench: ${FILES.toLocaleString('en')} files, ${RUNS} runs, ${os.cpus().length} CPUs, node ${process.version}`,
  );
  console.log(`load average at start: ${load()}`);
  const list = entities(FILES);
  let start = now();
  buildOrigin(list);
  console.log(
    `setup: origin of ${FILES.toLocaleString('en')} files in ${Math.ceil(FILES / PER_COMMIT)} commits, cloned, in ${ms(now() - start)}`,
  );

  const first = await firstOpen(list);
  const pick = (key) => median(first.runs.map((run) => run[key]));
  // The split of the median run, so that its parts add up to its sync.
  const middle = [...first.runs].sort((a, b) => a.totalMs - b.totalMs)[Math.floor(first.runs.length / 2)];
  console.log(`\n1. first open of a fresh store + team sync of ${FILES.toLocaleString('en')} files (load ${load()})`);
  console.log(
    `   open + sync: ${ms(pick('totalMs'))}, CPU ${ms(pick('cpuMs'))} (target <= ${ms(TARGETS.firstOpenMs)}: ${verdict(pick('totalMs'), TARGETS.firstOpenMs)}); runs ${first.runs.map((run) => ms(run.totalMs)).join(', ')}`,
  );
  console.log(`     open ${ms(pick('openMs'))}, sync ${ms(pick('syncMs'))}`);
  console.log(
    `     sync split (the median run's, sync ${ms(middle.syncMs)}): git author lookup ${ms(middle.gitLogMs)}, folder scan ${ms(middle.scanMs)}, store writes (the rest) ${ms(middle.writesMs)}`,
  );
  console.log(
    `   floor: read + YAML-parse the front matter of ${FILES.toLocaleString('en')} files: ${ms(pick('floorMs'))}`,
  );

  const idle = await unchanged(first.kept);
  console.log(
    `   sync with nothing changed: ${ms(idle.syncOpenMs)} (CPU ${ms(idle.syncOpenCpuMs)}) on an open store; open + sync of the store ${ms(idle.openSyncMs)} (CPU ${ms(idle.openSyncCpuMs)}; open alone ${ms(idle.openOnlyMs)}), what every CLI command pays`,
  );

  const pulled = await pulls(list, first.kept.dir);
  console.log(
    `\n2. a pull changing ${PULL_FILES} files reflected in the store (load ${load()}); git pull itself ${ms(pulled.gitPullMs)}`,
  );
  console.log(
    `   sync on an open store: ${ms(pulled.syncOpenMs)}, CPU ${ms(pulled.syncOpenCpuMs)} (target <= ${ms(TARGETS.pullMs)}: ${verdict(pulled.syncOpenMs, TARGETS.pullMs)})`,
  );
  console.log(
    `   open + sync (a CLI command after the pull): ${ms(pulled.openSyncMs)}, CPU ${ms(pulled.openSyncCpuMs)} (target <= ${ms(TARGETS.pullMs)}: ${verdict(pulled.openSyncMs, TARGETS.pullMs)})`,
  );

  const check = teamCheck();
  console.log(`\n3. workspace-memory team check of ${check.files.toLocaleString('en')} files (load ${load()})`);
  console.log(
    `   ${ms(check.ms)}${check.cpuMs === undefined ? '' : `, CPU ${ms(check.cpuMs)}`} (target <= ${ms(TARGETS.checkMs)}: ${verdict(check.ms, TARGETS.checkMs)}); runs ${check.times.map(ms).join(', ')}; findings ${check.findings}${check.findings ? ` ${JSON.stringify(check.kinds)}, e.g. ${JSON.stringify(check.sample)}` : ''}`,
  );
  console.log(`\nload average at end: ${load()}`);
} finally {
  if (process.env.BENCH_KEEP) console.log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
