import * as assert from 'node:assert/strict';

import { MemoryError } from '../../src/core/errors';
import {
  duplicateIdProblem,
  findDuplicateIds,
  parseTeamFile,
  renderTeamFile,
  shortId,
  TEAM_FILE_MAX_BYTES,
  type TeamEntity,
  type TeamFileEntry,
  teamFilePath,
  type TeamFileProblem,
  teamSlug,
} from '../../src/core/team/format';
import type { Citation, MemoryEntity, SkillEntity } from '../../src/core/types';
import { LIMITS } from '../../src/core/validation';
import { FAKE } from './fake-secrets';

/** Any 64 hex digits pass as a citation's hash; this is SHA-256 of nothing. */
const HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const memory: MemoryEntity = {
  id: 'memory-mf3k2x9a0b1c2d3e4f5a',
  type: 'memory',
  agentId: 'default',
  userId: 'ana',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  content: 'We deploy on Fridays.\nNever on Mondays.',
  tags: ['deploy', 'yes'],
  category: 'decision',
  appliesTo: ['deploy/**', '*.md'],
  citations: [
    {
      path: 'scripts/deploy.sh',
      startLine: 3,
      endLine: 4,
      hash: HASH,
      text: 'if [ "$(date +%u)" = 5 ]; then\n  ./release.sh',
    },
  ],
};
const people = { createdBy: 'Ana Lima <ana@example.org>', updatedBy: 'Ben <ben@example.org>' };
const MEMORY_PATH = 'memory/we-deploy-on-fridays-never-on-mondays-0b1c2d3e4f5a.md';

/** The file renderTeamFile writes for `memory`, byte for byte: what a reviewer sees in a pull request. */
const MEMORY_FILE = `---
id: memory-mf3k2x9a0b1c2d3e4f5a
type: memory
category: decision
tags: [deploy, "yes"]
appliesTo: [deploy/**, "*.md"]
citations:
  - path: scripts/deploy.sh
    lines: 3-4
    hash: ${HASH}
    text: |-
      if [ "$(date +%u)" = 5 ]; then
        ./release.sh
createdBy: Ana Lima <ana@example.org>
updatedBy: Ben <ben@example.org>
---
We deploy on Fridays.
Never on Mondays.
`;

const skill: SkillEntity = {
  id: 'skill-mf3k2x9b9f8e7d6c5b4a',
  type: 'skill',
  agentId: '_shared',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  content: 'Release\n=======\n\n1. Tag the commit.\n2. Run `npm run release`.\n',
  tags: ['release'],
  category: 'procedure',
  status: 'deprecated',
};
const SKILL_PATH = 'skill/release-1-tag-the-commit-2-run-npm-run-release-9f8e7d6c5b4a.md';

/** The problem parseTeamFile finds in `text` at `path`; fails the test when it finds none. */
function problemOf(text: string | Uint8Array, path = MEMORY_PATH): TeamFileProblem {
  const parsed = parseTeamFile(text, path);
  assert.ok(!parsed.ok, `expected a problem, got ${JSON.stringify(parsed)}`);
  return parsed.problem;
}

/** The entry parseTeamFile reads from `text`; fails the test with the problem when it refuses it. */
function entryOf(text: string | Uint8Array, path = MEMORY_PATH): TeamFileEntry {
  const parsed = parseTeamFile(text, path);
  assert.ok(parsed.ok, `expected a file read, got ${JSON.stringify(parsed)}`);
  return parsed;
}

/** `MEMORY_FILE` with its front-matter line `from` (whole line) replaced by `to` (any number of lines, or none). */
function editLine(from: string, to: string[]): string {
  const lines = MEMORY_FILE.split('\n');
  const at = lines.indexOf(from);
  assert.ok(at > 0, `no line "${from}" in the file`);
  lines.splice(at, 1, ...to);
  return lines.join('\n');
}

/** The fields of a memory or skill a team file carries, as an input holds them. */
function teamFields(entity: TeamEntity): Record<string, unknown> {
  const { content, tags, category, citations, appliesTo } = entity;
  const fields: Record<string, unknown> = { content, tags, category, citations, appliesTo };
  if (entity.type === 'skill') fields.status = entity.status;
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return fields;
}

describe('team files: names', () => {
  it("names a file after its content's first words and its id's short id, in its type's folder", () => {
    assert.equal(teamFilePath(memory), MEMORY_PATH);
    // The skill's setext heading underline and list numbers are words or dropped like any punctuation.
    assert.equal(teamFilePath(skill), SKILL_PATH);
  });

  it('makes the words plain ASCII: Markdown dropped, accents taken off, ß and œ spelt out, the rest hyphens', () => {
    assert.equal(teamSlug('## Ça **marche** à Zürich: `Straße` & Œuvre!'), 'ca-marche-a-zurich-strasse-oeuvre');
    assert.equal(teamSlug('[Read the docs](https://example.org) first'), 'read-the-docs-first');
    assert.equal(teamSlug('snake_case and ﬁle'), 'snake-case-and-file');
  });

  it('cuts long words at a hyphen within 48 characters, and a single long word at 48', () => {
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet';
    // "alpha-bravo-charlie-delta-echo-foxtrot-golf-hotel" is 49 characters: one over, so "hotel" goes.
    assert.equal(teamSlug(words), 'alpha-bravo-charlie-delta-echo-foxtrot-golf');
    assert.equal(teamSlug('x'.repeat(60)), 'x'.repeat(48));
    // A hyphen in the first half would leave too little: the cut falls at 48 instead.
    assert.equal(teamSlug(`ab ${'y'.repeat(60)}`), `ab-${'y'.repeat(45)}`);
  });

  it('names a file "untitled" when its first words hold no ASCII letter or digit', () => {
    assert.equal(teamSlug(''), 'untitled');
    assert.equal(teamSlug('*** --- !!!'), 'untitled');
    assert.equal(teamSlug('部署在星期五'), 'untitled');
    assert.equal(
      teamFilePath({ id: 'memory-1', type: 'memory', content: '---' }),
      `memory/untitled-${shortId('memory-1')}.md`,
    );
  });

  it("keeps a generated id's random end as its short id, and hashes any other id", () => {
    assert.equal(shortId('memory-mf3k2x9a0b1c2d3e4f5a'), '0b1c2d3e4f5a');
    // Imported ids end alike (a-1, b-1) or differ only in case or punctuation: hashed, they still differ.
    const others = ['memory-1', 'a-1', 'b-1', 'Note.A', 'note-a', 'MEMORY-MF3K2X9A0B1C2D3E4F5A'];
    const shorts = others.map(shortId);
    for (const short of shorts) assert.match(short, /^[0-9a-f]{12}$/);
    assert.equal(new Set(shorts).size, others.length, 'every id has its own short id');
    assert.equal(shortId('Note.A'), shortId('Note.A'), 'the same id always gives the same short id');
  });
});

describe('team files: rendering', () => {
  it('writes the front matter in a fixed order and the content as the body, byte for byte', () => {
    assert.equal(renderTeamFile(memory, people), MEMORY_FILE);
  });

  it('writes a skill with its status after the category, and leaves out what it does not have', () => {
    assert.equal(
      renderTeamFile(skill, {}),
      '---\nid: skill-mf3k2x9b9f8e7d6c5b4a\ntype: skill\ncategory: procedure\nstatus: deprecated\ntags: [release]\n---\n' +
        `${skill.content}\n`,
    );
    const bare = renderTeamFile({ ...memory, tags: [], appliesTo: [], citations: [] }, {});
    assert.doesNotMatch(bare, /tags|appliesTo|citations|createdBy|updatedBy/);
  });

  it('writes nothing that changes without an edit: the same fields give the same bytes whatever the times', () => {
    const later = { ...memory, updatedAt: '2027-06-01T00:00:00.000Z', userId: 'ben', agentId: 'other' };
    assert.equal(renderTeamFile(later, people), renderTeamFile(memory, people));
    assert.doesNotMatch(MEMORY_FILE, /2026|agent|userId/);
  });

  it('quotes every value a YAML reader would take for something other than text', () => {
    const tags = ['yes', 'on', '1.0', 'null', '~', '#x', 'a: b', '0o7', '[x]', '*a', 'plain'];
    const text = renderTeamFile({ ...memory, tags, appliesTo: [], citations: [] }, {});
    // `yes` and `on` are booleans to YAML 1.1 readers (GitHub's front-matter table); `0o7` is a number to 1.2.
    assert.match(text, /^tags: \["yes", "on", "1.0", "null", "~", "#x", "a: b", "0o7", "\[x\]", "\*a", plain\]$/m);
  });

  it('writes LF line ends only, turning CRLF in the content into LF', () => {
    const text = renderTeamFile({ ...memory, content: 'one\r\ntwo' }, people);
    assert.doesNotMatch(text, /\r/);
    assert.ok(text.endsWith('---\none\ntwo\n'), text);
  });

  it('keeps each front-matter value on its own lines: a line break in a tag is written as \\n', () => {
    const text = renderTeamFile({ ...memory, tags: ['two\nlines'], appliesTo: [], citations: [] }, {});
    assert.match(text, /^tags: \["two\\nlines"\]$/m);
  });

  it("refuses a person's name that is not one line of text", () => {
    assert.throws(
      () => renderTeamFile(memory, { createdBy: 'Ana\nLima' }),
      (error: unknown) => error instanceof MemoryError && /createdBy must be one line/.test(error.message),
    );
  });
});

describe('team files: round trip', () => {
  it('reads back every field of a memory, with tricky YAML values and multi-line citation text', () => {
    const citations: Citation[] = [
      {
        path: 'src/rag/sync.ts',
        startLine: 10,
        endLine: 24,
        symbol: 'Rag.sync',
        // All digits: a number to YAML unless quoted.
        commit: '1234567890123456789012345678901234567890',
        hash: HASH,
        // Indented first line, trailing spaces, an empty line, a fence and a YAML document end.
        text: '    indented first\ntrailing spaces   \n\n---\n...\n# not a comment\nend\n',
      },
      { path: 'README.md', startLine: 7, endLine: 7, hash: HASH, text: 'one line' },
      { path: 'odd.txt', startLine: 1, endLine: 2, hash: HASH, text: 'a carriage\r return and an \u001b escape\n  ' },
    ];
    const tricky: MemoryEntity = {
      ...memory,
      content: '\n# Heading after a blank line\n\n---\n\nSetext\n=======\nends with a blank line\n\n',
      tags: ['yes', 'No', '1.0', 'null', '#x', 'a: b', "it's", '"quoted"', 'ünïcödé', '@at'],
      category: 'correction',
      appliesTo: ['src/**/*.ts', '*.md', '!(vendor)/**', '{a,b}/*.js'],
      citations,
    };
    const path = teamFilePath(tricky);
    const entry = entryOf(renderTeamFile(tricky, people), path);
    assert.equal(entry.id, tricky.id);
    assert.equal(entry.type, 'memory');
    assert.deepEqual(entry.input, teamFields(tricky));
    assert.equal(entry.createdBy, people.createdBy);
    assert.equal(entry.updatedBy, people.updatedBy);
  });

  it('reads back every field of a skill, and a file without people as having none', () => {
    const full: SkillEntity = {
      ...skill,
      appliesTo: ['.github/workflows/*.yml'],
      citations: [
        { path: 'package.json', startLine: 5, endLine: 9, hash: HASH, text: '"scripts": {\n  "release": "x"' },
      ],
    };
    const entry = entryOf(renderTeamFile(full, {}), SKILL_PATH);
    assert.equal(entry.type, 'skill');
    assert.deepEqual(entry.input, teamFields(full));
    assert.equal('createdBy' in entry, false);
    assert.equal('updatedBy' in entry, false);
  });

  it('reads a file without tags as having none, so deleting the line clears them', () => {
    const entry = entryOf(editLine('tags: [deploy, "yes"]', []));
    assert.deepEqual(entry.input.tags, []);
  });

  it('reads empty lists of globs and citations as none, the same as a file without them', () => {
    const entry = entryOf(editLine('appliesTo: [deploy/**, "*.md"]', ['appliesTo: []']));
    assert.equal('appliesTo' in entry.input, false);
    const cleared = entryOf(MEMORY_FILE.replace(/citations:[\s\S]*?(?=createdBy)/, 'citations: []\n'));
    assert.equal('citations' in cleared.input, false);
  });

  it('accepts CRLF line ends and a byte order mark, as text or as bytes', () => {
    const windows = `\uFEFF${MEMORY_FILE.replace(/\n/g, '\r\n')}`;
    assert.deepEqual(entryOf(windows).input, teamFields(memory));
    assert.deepEqual(entryOf(new TextEncoder().encode(windows)).input, teamFields(memory));
  });

  it('accepts a renamed file whose name still ends in the short id: the words may lag behind the content', () => {
    assert.equal(entryOf(MEMORY_FILE, 'memory/old-words-0b1c2d3e4f5a.md').id, memory.id);
  });
});

describe('team files: problems', () => {
  it('refuses a file with merge conflict markers, on the line of the first marker', () => {
    const conflicted = MEMORY_FILE.replace(
      'Never on Mondays.',
      '<<<<<<< HEAD\nNever on Mondays.\n=======\nNever on Sundays.\n>>>>>>> feature',
    );
    const problem = problemOf(conflicted);
    assert.equal(problem.code, 'CONFLICT');
    // Line 18 is the body's second line, where "Never on Mondays." was.
    assert.equal(problem.line, 18);
    assert.match(problem.fix, /^Resolve the merge conflict/);
  });

  it('takes a lone "=======" line for a heading underline, and a marker without its end for text', () => {
    assert.equal(entryOf(renderTeamFile(skill, {}), SKILL_PATH).input.content, skill.content);
    const quoted = MEMORY_FILE.replace('Never on Mondays.', '<<<<<<< HEAD starts a conflict in git.');
    assert.match(entryOf(quoted).input.content, /^<<<<<<< HEAD starts/m);
  });

  it('refuses bytes that are not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from(MEMORY_FILE), Buffer.from([0xff, 0xfe, 0x00])]);
    const problem = problemOf(bytes);
    assert.equal(problem.code, 'NOT_UTF8');
    assert.match(problem.fix, /UTF-8/);
  });

  it('refuses a file over the size limit before reading it, and content over 1 MB on its first line', () => {
    const huge = problemOf('x'.repeat(TEAM_FILE_MAX_BYTES + 1));
    assert.equal(huge.code, 'TOO_LARGE');
    assert.match(huge.message, /at most 4\.00 MB/);
    const big = problemOf(MEMORY_FILE.replace('We deploy', 'é'.repeat(LIMITS.maxContentBytes / 2)));
    assert.equal(big.code, 'TOO_LARGE');
    assert.equal(big.line, 17, 'the first line after the closing ---');
    assert.match(big.message, /1\.00 MB; a memory or skill may have at most 1 MB/);
  });

  it('refuses a file outside the memory/ and skill/ folders, or not a .md file', () => {
    for (const path of [
      'knowledge/x-0b1c2d3e4f5a.md',
      'x-0b1c2d3e4f5a.md',
      'memory/sub/x-0b1c2d3e4f5a.md',
      'memory/x.txt',
    ]) {
      const problem = problemOf(MEMORY_FILE, path);
      assert.equal(problem.code, 'LOCATION', path);
      assert.ok(problem.message.startsWith(path), problem.message);
    }
  });

  it('refuses a file without front matter, or whose front matter never ends', () => {
    const none = problemOf('We deploy on Fridays.\n');
    assert.deepEqual([none.code, none.line], ['FRONT_MATTER', 1]);
    assert.match(none.message, /first line must be "---"/);
    // A Markdown rule is not a fence.
    assert.match(problemOf('-----\nText\n').message, /first line must be "---"/);
    const open = problemOf('---\nid: x\ntype: memory\n');
    assert.deepEqual([open.code, open.line], ['FRONT_MATTER', 1]);
    assert.match(open.message, /no closing "---"/);
  });

  it('refuses front matter that is not valid YAML, on the line of the error', () => {
    const problem = problemOf(editLine('category: decision', ['category: decision', 'category: fact']));
    assert.equal(problem.code, 'FRONT_MATTER');
    assert.equal(problem.line, 5, 'the repeated key, on the file line below the first');
    assert.equal(problem.message, 'The front matter is not valid YAML: Map keys must be unique (line 5).');
    const unclosed = problemOf(editLine('tags: [deploy, "yes"]', ['tags: [deploy, "yes"']));
    assert.equal(unclosed.code, 'FRONT_MATTER');
    assert.match(unclosed.message, /not valid YAML/);
  });

  it('refuses front matter that is not a set of fields', () => {
    const problem = problemOf('---\n- id\n- type\n---\nText\n');
    assert.deepEqual([problem.code, problem.line], ['FRONT_MATTER', 1]);
    assert.match(problem.message, /"field: value" lines/);
  });

  it('refuses an unknown field, naming the allowed ones and the likely one meant', () => {
    const typo = problemOf(editLine('tags: [deploy, "yes"]', ['tag: [deploy]']));
    assert.deepEqual([typo.code, typo.line], ['FRONT_MATTER', 5]);
    assert.equal(
      typo.message,
      'A memory file has no field "tag"; its fields are id, type, category, tags, appliesTo, citations, createdBy, updatedBy.',
    );
    assert.equal(typo.fix, 'Rename "tag" to "tags".');
    const cased = problemOf(editLine('appliesTo: [deploy/**, "*.md"]', ['applies_to: [x]']));
    assert.equal(cased.fix, 'Rename "applies_to" to "appliesTo".');
    // A skill's status in a memory is no typo: nothing to rename it to.
    const status = problemOf(editLine('category: decision', ['category: decision', 'status: active']));
    assert.deepEqual([status.code, status.line], ['FRONT_MATTER', 5]);
    assert.match(
      status.fix,
      /^"status" is a field of skills: remove it, or if this is a skill, move the file to skill\//,
    );
    // A field no typo explains may be a newer version's: the file is left alone, and the fix says to update.
    const newer = problemOf(editLine('category: decision', ['category: decision', 'reviewedBy: Ana']));
    assert.equal(newer.code, 'FRONT_MATTER');
    assert.match(newer.fix, /^If a newer Workspace Memory wrote it, update this one; otherwise remove "reviewedBy"/);
  });

  it('refuses a secret where a person is named: it would become a commit author no redaction reaches', () => {
    const problem = problemOf(
      MEMORY_FILE.replace('createdBy: Ana Lima <ana@example.org>', `createdBy: ${FAKE.githubClassic}`),
    );
    assert.equal(problem.code, 'INVALID');
    assert.match(problem.message, /^createdBy holds what looks like a secret \(github-token\)/);
    assert.match(problem.fix, /rotate the secret/);
  });

  it("refuses an unknown field in a citation, on that field's line", () => {
    const problem = problemOf(editLine('    lines: 3-4', ['    lines: 3-4', '    sha: abc']));
    assert.deepEqual([problem.code, problem.line], ['FRONT_MATTER', 10]);
    assert.match(problem.message, /^Citation 1 has no field "sha"/);
  });

  it('refuses a file without an id or a type', () => {
    const noId = problemOf(editLine('id: memory-mf3k2x9a0b1c2d3e4f5a', []));
    assert.deepEqual([noId.code, noId.message], ['FRONT_MATTER', 'The front matter has no id.']);
    assert.match(noId.fix, /history in git/);
    const noType = problemOf(editLine('type: memory', []));
    assert.deepEqual([noType.code, noType.message], ['FRONT_MATTER', 'The front matter has no type.']);
    assert.equal(noType.fix, 'Add the line "type: memory" after the id.');
  });

  it('refuses a type the team folder does not hold, and a type that is not its folder', () => {
    const knowledge = problemOf(editLine('type: memory', ['type: knowledge']));
    assert.deepEqual([knowledge.code, knowledge.line], ['INVALID', 3]);
    const skillHere = problemOf(editLine('type: memory', ['type: skill']));
    assert.deepEqual([skillHere.code, skillHere.line], ['TYPE_MISMATCH', 3]);
    assert.equal(skillHere.message, 'The file is in the memory/ folder but its type is skill.');
    assert.equal(
      skillHere.fix,
      'Move the file to skill/we-deploy-on-fridays-never-on-mondays-0b1c2d3e4f5a.md, or set the type to memory.',
    );
  });

  it('refuses an id that does not match the file name, giving the name to rename it to', () => {
    const problem = problemOf(MEMORY_FILE, 'memory/we-deploy-on-fridays-ffffffffffff.md');
    assert.deepEqual([problem.code, problem.line], ['ID_MISMATCH', 2]);
    assert.match(problem.message, /ends in "ffffffffffff".*short id "0b1c2d3e4f5a"/);
    assert.equal(problem.fix, `Rename the file to ${MEMORY_PATH}.`);
  });

  it('refuses an id that is not text or has a character ids may not have', () => {
    const numeric = problemOf(editLine('id: memory-mf3k2x9a0b1c2d3e4f5a', ['id: 1.0']));
    assert.deepEqual([numeric.code, numeric.line], ['INVALID', 2]);
    // Quoted as written, not as the number YAML read (1).
    assert.equal(numeric.fix, 'Write it in quotes: id: "1.0".');
    const slash = problemOf(editLine('id: memory-mf3k2x9a0b1c2d3e4f5a', ['id: memory/x']));
    assert.deepEqual([slash.code, slash.line], ['INVALID', 2]);
    assert.match(slash.message, /not allowed/);
  });

  it("refuses a value validation refuses, on that field's line, with the values allowed", () => {
    const category = problemOf(editLine('category: decision', ['category: rumour']));
    assert.deepEqual([category.code, category.line], ['INVALID', 4]);
    assert.match(category.message, /^Invalid memory: category: /);
    assert.equal(category.fix, 'Set the category to one of fact, decision, issue, task, correction.');
    const glob = problemOf(editLine('appliesTo: [deploy/**, "*.md"]', ['appliesTo: ["/etc/**"]']));
    assert.deepEqual([glob.code, glob.line], ['INVALID', 6]);
    assert.match(glob.fix, /workspace-relative globs/);
    const tags = problemOf(editLine('tags: [deploy, "yes"]', ['tags: deploy']));
    assert.deepEqual([tags.code, tags.line], ['INVALID', 5]);
    assert.match(tags.fix, /list of short words/);
  });

  it("refuses a citation's lines that are no line or range, and one without its text, on its lines", () => {
    const backwards = problemOf(editLine('    lines: 3-4', ['    lines: 4-3']));
    assert.deepEqual([backwards.code, backwards.line], ['INVALID', 9]);
    assert.equal(backwards.message, 'Citation 1\'s lines "4-3" are neither a line number nor a range of lines.');
    const noText = MEMORY_FILE.replace(/ {4}text: \|-\n.*\n.*\n/, '');
    const missing = problemOf(noText);
    assert.deepEqual([missing.code, missing.line], ['INVALID', 8]);
    assert.match(missing.message, /^Citation 1 has no text/);
    const badPath = problemOf(editLine('  - path: scripts/deploy.sh', ['  - path: ../outside.sh']));
    assert.deepEqual([badPath.code, badPath.line], ['INVALID', 8]);
    assert.match(badPath.message, /inside the workspace/);
    // Written as one line of text instead of a map of fields: validation names the citation.
    const flat = problemOf(
      MEMORY_FILE.replace(/citations:[\s\S]*?(?=createdBy)/, 'citations:\n  - scripts/deploy.sh:3\n'),
    );
    assert.deepEqual([flat.code, flat.line], ['INVALID', 8]);
    assert.match(flat.message, /^Invalid memory: citations\.0: .*expected object/);
  });

  it('refuses empty content on the line where it should start', () => {
    const problem = problemOf(MEMORY_FILE.replace('We deploy on Fridays.\nNever on Mondays.\n', '  \n'));
    assert.deepEqual([problem.code, problem.line], ['INVALID', 17]);
    assert.equal(problem.message, 'The memory content is empty.');
    assert.match(problem.fix, /below the closing "---" line/);
  });

  it('refuses a person that is not one line of text', () => {
    const problem = problemOf(editLine('createdBy: Ana Lima <ana@example.org>', ['createdBy: [Ana, Ben]']));
    assert.deepEqual([problem.code, problem.line], ['INVALID', 14]);
    assert.equal(problem.message, 'createdBy must be a name (text).');
  });

  it('finds the ids more than one file holds, with their files, and says how to fix them', () => {
    const duplicates = findDuplicateIds([
      { path: 'memory/b-0b1c2d3e4f5a.md', id: 'memory-mf3k2x9a0b1c2d3e4f5a' },
      { path: 'memory/other-111111111111.md', id: 'memory-other' },
      { path: 'memory/broken.md' },
      { path: 'memory/a-0b1c2d3e4f5a.md', id: 'memory-mf3k2x9a0b1c2d3e4f5a' },
    ]);
    assert.deepEqual(
      [...duplicates],
      [['memory-mf3k2x9a0b1c2d3e4f5a', ['memory/a-0b1c2d3e4f5a.md', 'memory/b-0b1c2d3e4f5a.md']]],
    );
    const problem = duplicateIdProblem('memory-mf3k2x9a0b1c2d3e4f5a', duplicates.get('memory-mf3k2x9a0b1c2d3e4f5a')!);
    assert.equal(problem.code, 'DUPLICATE_ID');
    assert.match(problem.message, /is in 2 files \(memory\/a-0b1c2d3e4f5a\.md, memory\/b-0b1c2d3e4f5a\.md\)/);
  });
});
