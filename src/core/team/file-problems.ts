/**
 * The steps of reading a team file (see format.ts, which runs them in
 * order): bytes to text, merge conflicts, the front matter and its YAML,
 * then the fields one by one into a validated input. Each step returns what
 * it read or throws a TeamFileRefused carrying a problem for a person: what
 * is wrong, on which line, and one sentence on how to fix it.
 */
import { type Document, isMap, isScalar, LineCounter, type Node, type Pair, parseDocument } from 'yaml';

import { isMemoryError } from '../errors';
import { scanSecrets } from '../secrets/guard';
import {
  type Citation,
  MEMORY_CATEGORIES,
  type MemoryEntity,
  type MemoryInput,
  SKILL_CATEGORIES,
  SKILL_STATUSES,
  type SkillEntity,
  type SkillInput,
  type TeamType,
} from '../types';
import { assertId, LIMITS, validateInput } from '../validation';

export type TeamEntity = MemoryEntity | SkillEntity;

/** Who created a team file's entity and who changed it last, as the sync names them (a git author). */
export interface TeamPeople {
  createdBy?: string;
  updatedBy?: string;
}

/** An input read from a team file: citations always whole (with the text and hash they were made with). */
export type TeamMemoryInput = Omit<MemoryInput, 'citations'> & { citations?: Citation[] };
export type TeamSkillInput = Omit<SkillInput, 'citations'> & { citations?: Citation[] };

export type TeamFileProblemCode =
  /** The bytes are not UTF-8 text. */
  | 'NOT_UTF8'
  /** The file, or its content, is over the size a memory or skill may have. */
  | 'TOO_LARGE'
  /** Git's merge conflict markers are in the file. */
  | 'CONFLICT'
  /** The file is not `<memory|skill>/<name>.md` inside the team folder. */
  | 'LOCATION'
  /** No front matter, YAML that does not parse, a missing or unknown field. */
  | 'FRONT_MATTER'
  /** The front matter's `type` is not the type of the folder the file is in. */
  | 'TYPE_MISMATCH'
  /** The file name does not end in the short id of the `id` inside. */
  | 'ID_MISMATCH'
  /** A field's value is refused (by validateInput, or a citation's lines). */
  | 'INVALID'
  /** Another file holds the same id (see duplicateIdProblem in format.ts). */
  | 'DUPLICATE_ID'
  /** The file, or its type's folder, cannot be read (permissions). */
  | 'UNREADABLE';

export interface TeamFileProblem {
  code: TeamFileProblemCode;
  /** What is wrong, in words a person acts on. */
  message: string;
  /** 1-based line of the file the problem is on, where there is one. */
  line?: number;
  /** How to fix it, in one sentence. */
  fix: string;
}

/** Thrown by a reading step; parseTeamFile turns it into its result. */
export class TeamFileRefused extends Error {
  constructor(readonly problem: TeamFileProblem) {
    super(problem.message);
  }
}

export function refuse(code: TeamFileProblemCode, message: string, fix: string, line?: number): never {
  throw new TeamFileRefused({ code, message, ...(line === undefined ? {} : { line }), fix });
}

/**
 * The largest team file read: a whole input's bytes (1 MB of content and
 * up to 20 citations of 16 KB each fit with room to spare). Bigger files are
 * refused before YAML is parsed; a folder scanner can check the size first.
 */
export const TEAM_FILE_MAX_BYTES: number = LIMITS.maxInputBytes;

const megabytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2);

/**
 * The file as LF text: bytes decoded as strict UTF-8, a byte order mark
 * dropped, CRLF line ends made LF (an editor or git's autocrlf on Windows
 * writes them; the file is still the same file).
 */
export function fileText(source: string | Uint8Array): string {
  const bytes = typeof source === 'string' ? Buffer.byteLength(source, 'utf8') : source.byteLength;
  if (bytes > TEAM_FILE_MAX_BYTES) {
    refuse(
      'TOO_LARGE',
      `The file is ${megabytes(bytes)} MB; a team file may be at most ${megabytes(TEAM_FILE_MAX_BYTES)} MB.`,
      'Shorten the content or remove citations until the file is under the limit.',
    );
  }
  const text = typeof source === 'string' ? source : decodeUtf8(source);
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    // ignoreBOM keeps a BOM in the text, where fileText drops it for both strings and bytes.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return refuse(
      'NOT_UTF8',
      'The file is not UTF-8 text.',
      'Save the file with UTF-8 encoding (most editors offer it in "Save with Encoding").',
    );
  }
}

const CONFLICT_START = /^<{7}(?: |$)/;
const CONFLICT_END = /^>{7}(?: |$)/;

/**
 * Refuses a file git left mid-merge. A `=======` line alone is a Markdown
 * heading's underline, so only a `<<<<<<<` line followed by a `>>>>>>>`
 * line counts.
 */
export function assertNoConflict(lines: readonly string[]): void {
  const start = lines.findIndex((line) => CONFLICT_START.test(line));
  if (start === -1 || !lines.slice(start + 1).some((line) => CONFLICT_END.test(line))) return;
  refuse(
    'CONFLICT',
    `The file has unresolved merge conflict markers (<<<<<<< at line ${start + 1}).`,
    'Resolve the merge conflict in the file (keep the right text between <<<<<<< and >>>>>>>, delete the markers) and commit it.',
    start + 1,
  );
}

const FENCE = /^---[ \t]*$/;

/** The file split at its front matter: the YAML, the body, and the 1-based line the body starts on. */
export interface FileParts {
  yaml: string;
  body: string;
  bodyLine: number;
}

export function splitFrontMatter(lines: readonly string[]): FileParts {
  if (!FENCE.test(lines[0] ?? '')) {
    refuse(
      'FRONT_MATTER',
      'The file does not start with front matter: its first line must be "---".',
      'Start the file with a "---" line, the fields (id, type, category…), another "---" line, then the content.',
      1,
    );
  }
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (close === -1) {
    refuse(
      'FRONT_MATTER',
      'The front matter has no closing "---" line.',
      'Add a "---" line after the last field, before the content.',
      1,
    );
  }
  // The body starts on the line after the fence: past the end of a file that stops at the fence.
  return {
    yaml: lines.slice(1, close).join('\n'),
    body: lines.slice(close + 1).join('\n'),
    bodyLine: Math.min(close + 2, lines.length),
  };
}

/** The front matter's fields, with the line each field and each value within it is on. */
export class FrontMatter {
  private constructor(
    private readonly doc: Document.Parsed,
    private readonly counter: LineCounter,
    readonly values: Readonly<Record<string, unknown>>,
  ) {}

  static parse(yaml: string): FrontMatter {
    const counter = new LineCounter();
    const doc = parseDocument(yaml, { lineCounter: counter, prettyErrors: true });
    const error = doc.errors[0];
    if (error) {
      const line = error.linePos ? fileLine(error.linePos[0].line) : undefined;
      // "Map keys must be unique at line 2, column 1:" and a snippet: the place is given as `line`.
      const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
      refuse(
        'FRONT_MATTER',
        `The front matter is not valid YAML: ${reason}${line === undefined ? '' : ` (line ${line})`}.`,
        'Correct the YAML on that line; put a value holding ":", "#", quotes or brackets in double quotes.',
        line,
      );
    }
    if (!isMap(doc.contents)) {
      refuse(
        'FRONT_MATTER',
        'The front matter must be "field: value" lines (id, type, category…).',
        'Write the fields between the "---" lines as "field: value", one per line.',
        1,
      );
    }
    return new FrontMatter(doc, counter, readValues(doc));
  }

  /** The line a field's name is on, or undefined when it is not there. */
  keyLine(key: string): number | undefined {
    const pair = this.pair(key);
    return pair && isScalar(pair.key) ? this.nodeLine(pair.key) : undefined;
  }

  /** A field's value as written in the file (`1.0`, not the number 1), where it is a scalar. */
  written(key: string): string | undefined {
    const value = this.pair(key)?.value;
    return isScalar(value) ? value.source : undefined;
  }

  /**
   * The line of the value at `path` (`['citations', 0, 'lines']`), or of the
   * nearest enclosing value that is there.
   */
  lineAt(path: readonly (string | number)[]): number | undefined {
    for (let depth = path.length; depth > 0; depth--) {
      const node = this.doc.getIn(path.slice(0, depth), true);
      if (isNode(node)) return this.nodeLine(node);
    }
    return undefined;
  }

  private pair(key: string): Pair | undefined {
    if (!isMap(this.doc.contents)) return undefined;
    // A key YAML reads as a number (`1: x`) is the string "1" among the values.
    return this.doc.contents.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
  }

  private nodeLine(node: Node): number | undefined {
    return node.range ? fileLine(this.counter.linePos(node.range[0]).line) : undefined;
  }
}

/** The front matter's first line is the file's second (the opening "---" is the first). */
const fileLine = (frontMatterLine: number): number => frontMatterLine + 1;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}

function readValues(doc: Document.Parsed): Record<string, unknown> {
  let values: unknown;
  try {
    values = doc.toJS();
  } catch (error) {
    // An alias without its anchor, or too many aliases: the YAML parses but has no value.
    refuse(
      'FRONT_MATTER',
      `The front matter cannot be read: ${(error as Error).message}.`,
      'Write each value out instead of using YAML anchors (&) and aliases (*).',
    );
  }
  return values as Record<string, unknown>;
}

// -------------------------------------------------- the fields, one by one

/** The front matter's fields, in the order they are written. */
const FIELDS: Record<TeamType, readonly string[]> = {
  memory: ['id', 'type', 'category', 'tags', 'appliesTo', 'citations', 'createdBy', 'updatedBy'],
  skill: ['id', 'type', 'category', 'status', 'tags', 'appliesTo', 'citations', 'createdBy', 'updatedBy'],
};
const CITATION_FIELDS: readonly string[] = ['path', 'lines', 'symbol', 'commit', 'hash', 'text'];

/** A person's name as written: one line, like a git author. */
const MAX_PERSON = 200;

/**
 * What is wrong with a person's name, if anything. A name becomes the author
 * of the store's commits, which are never rewritten: a secret there could not
 * be redacted later, so it is refused like any other value that holds one.
 */
export function personProblem(person: unknown): string | undefined {
  if (typeof person !== 'string' || !person.trim()) return 'must be a name (text)';
  if (/[\r\n]/.test(person)) return 'must be one line';
  if (person.length > MAX_PERSON) return `must be at most ${MAX_PERSON} characters`;
  const [secret] = scanSecrets(person);
  return secret ? `holds what looks like a secret (${secret.kind})` : undefined;
}

/** A misspelt field is refused, never dropped: `tag: [x]` would otherwise clear the tags without a word. */
export function assertKnownFields(front: FrontMatter, type: TeamType): void {
  const allowed = FIELDS[type];
  const unknown = Object.keys(front.values).find((key) => !allowed.includes(key));
  if (unknown === undefined) return;
  const other = type === 'memory' ? 'skill' : 'memory';
  refuse(
    'FRONT_MATTER',
    `A ${type} file has no field "${unknown}"; its fields are ${allowed.join(', ')}.`,
    FIELDS[other].includes(unknown)
      ? `"${unknown}" is a field of ${other}s: remove it, or if this is a ${other}, move the file to ${other}/ and set its type.`
      : renameFix(unknown, allowed),
    front.keyLine(unknown),
  );
}

export function readId(front: FrontMatter): string {
  const value = front.values.id;
  const line = front.keyLine('id');
  const restore = 'Restore the id the file had (see its history in git): the store makes ids and they never change.';
  if (value === undefined || value === null) refuse('FRONT_MATTER', 'The front matter has no id.', restore, 1);
  if (typeof value !== 'string') {
    const written = front.written('id') ?? shown(value);
    refuse(
      'INVALID',
      `The id ${written} is read as a ${typeof value}, not text.`,
      `Write it in quotes: id: "${written}".`,
      line,
    );
  }
  try {
    return assertId(value);
  } catch (error) {
    if (isMemoryError(error)) refuse('INVALID', error.message, restore, line);
    throw error;
  }
}

/** The body is the content; the line break that ends the file is the file's, not the content's. */
export function readContent(parts: FileParts): string {
  const content = parts.body.replace(/\n$/, '');
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > LIMITS.maxContentBytes) {
    refuse(
      'TOO_LARGE',
      `The content is ${(bytes / 1024 / 1024).toFixed(2)} MB; a memory or skill may have at most 1 MB (UTF-8).`,
      'Shorten the content below the front matter to at most 1 MB.',
      parts.bodyLine,
    );
  }
  return content;
}

export function readPeople(front: FrontMatter): TeamPeople {
  const people: TeamPeople = {};
  for (const key of ['createdBy', 'updatedBy'] as const) {
    const value = front.values[key];
    if (value === undefined || value === null) continue;
    const problem = personProblem(value);
    if (problem) {
      refuse(
        'INVALID',
        `${key} ${problem}.`,
        `Write ${key} as one line of text: a name or an e-mail address${problem.includes('secret') ? ' (and rotate the secret: it is in git history)' : ''}.`,
        front.keyLine(key),
      );
    }
    people[key] = value as string;
  }
  return people;
}

/** The fields as an input, validated as a save would be; lists left empty are as good as absent. */
export function readInput(
  front: FrontMatter,
  type: TeamType,
  content: string,
  bodyLine: number,
): TeamMemoryInput | TeamSkillInput {
  const values = front.values;
  const draft: Record<string, unknown> = { content, tags: values.tags ?? [] };
  for (const key of ['category', 'status', 'appliesTo', 'citations'] as const) {
    const value = key === 'citations' ? readCitations(front) : values[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    draft[key] = value;
  }
  try {
    return validateInput(type, draft) as TeamMemoryInput | TeamSkillInput;
  } catch (error) {
    if (!isMemoryError(error)) throw error;
    const { field, path } = refusedField(error.message);
    const line = field === 'content' ? bodyLine : front.lineAt(path);
    return refuse('INVALID', error.message, FIXES[field]?.(type) ?? 'Correct the field as the message says.', line);
  }
}

/**
 * The field a refused input names, and the path to its value in the front
 * matter. validateInput names it as `Invalid memory: citations.0.path: …`,
 * or in words (`The memory content is empty.`, `A tag is longer…`).
 */
function refusedField(message: string): { field: string; path: (string | number)[] } {
  const named = /^Invalid [a-z]+: ([\w.]+): /.exec(message)?.[1];
  if (named) {
    // Never a citation's startLine or endLine: readCitation has checked its `lines` already.
    const path = named.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    return { field: String(path[0]), path };
  }
  const field = /\bcontent\b/.test(message) ? 'content' : /\btags?\b/.test(message) ? 'tags' : '';
  return { field, path: [field] };
}

const FIXES: Readonly<Record<string, (type: TeamType) => string>> = {
  content: (type) => `Write the ${type}'s text below the closing "---" line.`,
  category: (type) =>
    `Set the category to one of ${(type === 'memory' ? MEMORY_CATEGORIES : SKILL_CATEGORIES).join(', ')}.`,
  status: () => `Set the status to one of ${SKILL_STATUSES.join(', ')}.`,
  tags: () =>
    `Write the tags as a list of short words; quote one that reads as a number or yes/no: tags: [deploy, "1.0"].`,
  appliesTo: () => 'Write appliesTo as a list of workspace-relative globs: appliesTo: ["src/**/*.ts"].',
  citations: () =>
    'Correct the citation as the message says, or remove it: citations are made by citing lines in the editor.',
};

function readCitations(front: FrontMatter): unknown {
  const value = front.values.citations;
  // Not a list: validateInput says so, on the line of `citations`.
  return Array.isArray(value) ? value.map((item, index) => readCitation(front, item, index)) : value;
}

/** A citation as written (`lines: 10-24`, with its text and hash) as a stored one. */
function readCitation(front: FrontMatter, item: unknown, index: number): unknown {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const fields = Object.fromEntries(Object.entries(item).filter(([, value]) => value !== null && value !== undefined));
  const where = ['citations', index];
  const unknown = Object.keys(fields).find((key) => !CITATION_FIELDS.includes(key));
  if (unknown !== undefined) {
    refuse(
      'FRONT_MATTER',
      `Citation ${index + 1} has no field "${unknown}"; a citation's fields are ${CITATION_FIELDS.join(', ')}.`,
      renameFix(unknown, CITATION_FIELDS),
      front.lineAt([...where, unknown]),
    );
  }
  const { lines, ...rest } = fields;
  const range = lineRange(lines);
  if (!range) {
    refuse(
      'INVALID',
      lines === undefined
        ? `Citation ${index + 1} has no lines.`
        : `Citation ${index + 1}'s lines "${shown(lines)}" are neither a line number nor a range of lines.`,
      'Write the lines as one line number or a range, first line first: lines: 10-24.',
      front.lineAt([...where, 'lines']),
    );
  }
  if (rest.text === undefined || rest.hash === undefined) {
    refuse(
      'INVALID',
      `Citation ${index + 1} has no ${rest.text === undefined ? 'text' : 'hash'}: a team file keeps what the cited lines said.`,
      "Restore the citation's text and hash from the file's history in git, or remove the citation.",
      front.lineAt(where),
    );
  }
  return { ...rest, ...range };
}

/** `10` or `10-24` as lines 1-based and in order; undefined for anything else. */
function lineRange(value: unknown): { startLine: number; endLine: number } | undefined {
  const written = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(written);
  if (!match) return undefined;
  const startLine = Number(match[1]);
  const endLine = Number(match[2] ?? match[1]);
  return startLine >= 1 && endLine >= startLine ? { startLine, endLine } : undefined;
}

/**
 * "Rename tag to tags." for a likely typo. Otherwise the field may be one a
 * newer Workspace Memory writes: the file is still left alone (this version
 * would drop the field when it next writes the file), and the fix says so.
 */
function renameFix(unknown: string, allowed: readonly string[]): string {
  const near = allowed.find((field) => looksLike(unknown, field));
  return near
    ? `Rename "${unknown}" to "${near}".`
    : `If a newer Workspace Memory wrote it, update this one; otherwise remove "${unknown}" or rename it to one of the fields listed.`;
}

/** The same name but for case, `-`/`_`, or up to two letters added, dropped or changed. */
function looksLike(typed: string, field: string): boolean {
  const bare = (name: string): string => name.toLowerCase().replace(/[-_\s]/g, '');
  return editDistance(bare(typed), bare(field)) <= Math.min(2, field.length / 3);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** A value as a message quotes it: text as it is, anything else as JSON (`true`, `[1,2]`). */
export function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
