/**
 * The team folder's file format: team memory that travels through git. Each
 * memory or skill is one Markdown file, `<type>/<slug>-<short id>.md`, with
 * YAML front matter for its fields and its content as the body. Rendering is
 * deterministic (fixed field order, LF, no times or counts), so a diff shows
 * only what a person changed; parsing refuses a whole file with a precise
 * problem rather than importing part of it. Folder scanning and sync build on
 * this module.
 */
import { Document, isMap, isScalar, isSeq, visit } from 'yaml';

import { MemoryError } from '../errors';
import { guardText } from '../secrets/guard';
import { sha256 } from '../store/hashing';
import { plainMarkdown } from '../text';
import { type Citation, TEAM_TYPES, type TeamType } from '../types';
import {
  assertKnownFields,
  assertNoConflict,
  fileText,
  FrontMatter,
  personProblem,
  readContent,
  readId,
  readInput,
  readPeople,
  refuse,
  shown,
  splitFrontMatter,
  type TeamEntity,
  type TeamFileProblem,
  TeamFileRefused,
  type TeamMemoryInput,
  type TeamPeople,
  type TeamSkillInput,
} from './file-problems';

export {
  TEAM_FILE_MAX_BYTES,
  type TeamEntity,
  type TeamFileProblem,
  type TeamFileProblemCode,
  type TeamMemoryInput,
  type TeamPeople,
  type TeamSkillInput,
} from './file-problems';

interface TeamFileRead extends TeamPeople {
  ok: true;
  id: string;
}

/**
 * A file read whole. `input` is validated and says everything the file
 * says: tags always (none: []), category and status when written (when not,
 * the store's defaults apply), citations and appliesTo only when there are any.
 */
export type TeamFileEntry =
  | (TeamFileRead & { type: 'memory'; input: TeamMemoryInput })
  | (TeamFileRead & { type: 'skill'; input: TeamSkillInput });

export type TeamFileParse = TeamFileEntry | { ok: false; problem: TeamFileProblem };

// ---------------------------------------------------------------- file names

const SLUG_MAX = 48;
/** Only the content's first words name its file; slugifying a whole megabyte would be waste. */
const SLUG_SOURCE_CHARS = 400;
/** Latin letters NFKD does not take apart into a base letter and an accent. */
const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
};

/** A generated id: `<type>-<time in base 36><12 random hex digits>` (see newEntityId). */
const GENERATED_ID = /^[a-z]+-[0-9a-z]{8,9}([0-9a-f]{12})$/;

/**
 * The 12 characters ([0-9a-f]) a team file's name ends in. A generated id's
 * own random end, so a person can tell the file from the id; any other id
 * (an import's `note-1`, `Adr.7`) is hashed, since its end could be shared
 * by another id (`a-1`, `b-1`) or differ only in case or punctuation.
 */
export function shortId(id: string): string {
  return GENERATED_ID.exec(id)?.[1] ?? sha256(id).slice(0, 12);
}

/**
 * The file's words: the content's first words as plain text, ASCII letters
 * and digits joined by hyphens (accents dropped), at most 48 characters cut
 * at a hyphen; `untitled` when no such letter is in them.
 */
export function teamSlug(content: string): string {
  const words = content
    .slice(0, SLUG_SOURCE_CHARS)
    .split('\n')
    .map(plainMarkdown)
    .join(' ')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/\p{M}/gu, '')
    .replace(/[ßæœøłđðþ]/g, (letter) => LETTERS[letter] ?? '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cutAtHyphen(words, SLUG_MAX) || 'untitled';
}

/** Cut at the last hyphen that keeps more than half; a hyphen-less run is cut where it must be. */
function cutAtHyphen(slug: string, max: number): string {
  if (slug.length <= max) return slug;
  const hyphen = slug.lastIndexOf('-', max);
  return hyphen > max / 2 ? slug.slice(0, hyphen) : slug.slice(0, max).replace(/-+$/, '');
}

/** Where an entity's file goes, relative to the team folder, `/`-separated: `memory/deploy-on-fridays-0a1b2c3d4e5f.md`. */
export function teamFilePath(entity: { id: string; type: TeamType; content: string }): string {
  // Named from the words with any secret redacted: a file name is in every listing and every log.
  return `${entity.type}/${teamSlug(guardText(entity.content.slice(0, 2000), 'redact').text)}-${shortId(entity.id)}.md`;
}

// ----------------------------------------------------------------- rendering

/**
 * Strings a YAML 1.1 reader (and GitHub's front-matter table) would take for
 * something else (`yes`, `on`, `1_000`) are quoted as well as those YAML 1.2
 * would; lines are never folded.
 */
const YAML_SCHEMA = { compat: 'yaml-1.1' } as const;
const YAML_OUTPUT = { lineWidth: 0, flowCollectionPadding: false } as const;

/**
 * The team file of a memory or skill: front matter in a fixed order, then
 * the content (line ends made LF) and one line break. The same entity and
 * people always give the same bytes. Throws INVALID_INPUT for a person's
 * name that is not one line of text.
 */
export function renderTeamFile(entity: TeamEntity, people: TeamPeople): string {
  const doc = new Document(frontMatterOf(entity, people), YAML_SCHEMA);
  styleNodes(doc);
  return `---\n${doc.toString(YAML_OUTPUT)}---\n${entity.content.replace(/\r\n/g, '\n')}\n`;
}

function frontMatterOf(entity: TeamEntity, people: TeamPeople): Record<string, unknown> {
  const fields: Record<string, unknown> = { id: entity.id, type: entity.type, category: entity.category };
  if (entity.type === 'skill') fields.status = entity.status;
  if (entity.tags.length) fields.tags = entity.tags;
  if (entity.appliesTo?.length) fields.appliesTo = entity.appliesTo;
  if (entity.citations?.length) fields.citations = entity.citations.map(citationFields);
  for (const key of ['createdBy', 'updatedBy'] as const) {
    const person = people[key];
    if (person === undefined) continue;
    const problem = personProblem(person);
    if (problem) throw new MemoryError('INVALID_INPUT', `${key} ${problem}.`);
    fields[key] = person;
  }
  return fields;
}

function citationFields(citation: Citation): Record<string, unknown> {
  const { path, startLine, endLine, symbol, commit, hash, text } = citation;
  return {
    path,
    // One line as a number, a range as `10-24`: what a person writes and reads.
    lines: startLine === endLine ? startLine : `${startLine}-${endLine}`,
    ...(symbol === undefined ? {} : { symbol }),
    ...(commit === undefined ? {} : { commit }),
    hash,
    text,
  };
}

/**
 * Lists of words in flow style (`tags: [a, b]`); a citation's text as a
 * literal block, line for line as in the code (the library falls back to a
 * quoted string where a block cannot hold it exactly: only blanks, a CR);
 * any other multi-line value quoted on one line, so every line of the front
 * matter is a field's.
 */
function styleNodes(doc: Document): void {
  for (const key of ['tags', 'appliesTo']) {
    const list = doc.get(key, true);
    if (isSeq(list)) list.flow = true;
  }
  const citations = doc.get('citations', true);
  for (const citation of isSeq(citations) ? citations.items : []) {
    const text = isMap(citation) ? citation.get('text', true) : undefined;
    if (isScalar(text)) text.type = 'BLOCK_LITERAL';
  }
  visit(doc, {
    Scalar(_, node) {
      if (node.type === undefined && typeof node.value === 'string' && /[\r\n]/.test(node.value)) {
        node.type = 'QUOTE_DOUBLE';
      }
    },
  });
}

// ------------------------------------------------------------------- parsing

/**
 * Reads a team file (bytes, or text already decoded) found at
 * `relativePath` (`/`-separated, relative to the team folder). A file is
 * taken whole or not at all: any problem refuses it, with the line it is on
 * and a way to fix it. CRLF line ends and a byte order mark are accepted.
 */
export function parseTeamFile(source: string | Uint8Array, relativePath: string): TeamFileParse {
  try {
    return readTeamFile(source, relativePath);
  } catch (error) {
    if (error instanceof TeamFileRefused) return { ok: false, problem: error.problem };
    throw error;
  }
}

/** Where a file is: the type its folder holds, and its name without `.md`. */
interface Place {
  type: TeamType;
  stem: string;
}

function readTeamFile(source: string | Uint8Array, relativePath: string): TeamFileEntry {
  const lines = fileText(source).split('\n');
  assertNoConflict(lines);
  const place = placeOf(relativePath);
  const parts = splitFrontMatter(lines);
  const front = FrontMatter.parse(parts.yaml);
  const type = readType(front, place);
  assertKnownFields(front, type);
  const id = readId(front);
  const content = readContent(parts);
  assertNamedAfterId(front, place, { id, type, content });
  const people = readPeople(front);
  const input = readInput(front, type, content, parts.bodyLine);
  return { ok: true, id, ...people, type, input } as TeamFileEntry;
}

function placeOf(relativePath: string): Place {
  const slash = relativePath.lastIndexOf('/');
  const name = relativePath.slice(slash + 1);
  // The folder is all before the name: `memory/sub/x.md` is not in memory/.
  const type = TEAM_TYPES.find((known) => known === relativePath.slice(0, Math.max(slash, 0)));
  if (!type || !/^.+\.md$/.test(name)) {
    refuse(
      'LOCATION',
      `${relativePath} is not where the team folder keeps memories and skills (memory/<name>.md, skill/<name>.md).`,
      'Move the file into the memory/ or skill/ folder of the team folder, as a .md file.',
    );
  }
  return { type, stem: name.slice(0, -'.md'.length) };
}

function readType(front: FrontMatter, place: Place): TeamType {
  const value = front.values.type;
  if (value === undefined || value === null) {
    refuse('FRONT_MATTER', 'The front matter has no type.', `Add the line "type: ${place.type}" after the id.`, 1);
  }
  const type = TEAM_TYPES.find((known) => known === value);
  const line = front.keyLine('type');
  if (!type) {
    refuse(
      'INVALID',
      `The type "${shown(value)}" is not one the team folder holds: it holds memory and skill files.`,
      `Set the type to ${place.type}, the type of the folder the file is in.`,
      line,
    );
  }
  if (type !== place.type) {
    refuse(
      'TYPE_MISMATCH',
      `The file is in the ${place.type}/ folder but its type is ${type}.`,
      `Move the file to ${type}/${place.stem}.md, or set the type to ${place.type}.`,
      line,
    );
  }
  return type;
}

/** The name's words may be anything (content changes); its end must be the id's short id. */
function assertNamedAfterId(front: FrontMatter, place: Place, entity: { id: string; type: TeamType; content: string }) {
  const named = place.stem.slice(place.stem.lastIndexOf('-') + 1);
  const expected = shortId(entity.id);
  if (named === expected) return;
  refuse(
    'ID_MISMATCH',
    `The file name ends in "${named}" but the id ${entity.id} it holds has the short id "${expected}".`,
    `Rename the file to ${teamFilePath(entity)}.`,
    front.keyLine('id'),
  );
}

// ---------------------------------------------------------------- duplicates

/** The ids that more than one file holds, each with its files (sorted): none of them can be imported. */
export function findDuplicateIds(files: readonly { path: string; id?: string }[]): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const { path, id } of files) {
    if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), path]);
  }
  return new Map([...byId].filter(([, paths]) => paths.length > 1).map(([id, paths]) => [id, paths.sort()]));
}

/** The problem shown on each file of a duplicated id (see findDuplicateIds). */
export function duplicateIdProblem(id: string, paths: readonly string[]): TeamFileProblem {
  return {
    code: 'DUPLICATE_ID',
    message: `The id ${id} is in ${paths.length} files (${paths.join(', ')}), so none of them is imported.`,
    fix: 'Keep the file with the right version of it and delete the other copies.',
  };
}
