import { sha256 } from '../store/hashing';
import {
  MEMORY_CATEGORIES,
  type MemoryCategory,
  SKILL_CATEGORIES,
  SKILL_STATUSES,
  type SkillCategory,
  type SkillStatus,
} from '../types';
import { assertId } from '../validation';
import type { ImportedType } from './types';

/**
 * The block an export writes into AGENTS.md, CLAUDE.md or Copilot's
 * instructions: between a begin and an end marker, so the rest of the file
 * stays the person's own. The begin marker holds the SHA-256 of what was
 * written between the markers: a block whose text no longer hashes to it
 * was edited by hand, and is never written over (the edit would be lost).
 *
 * Each item is a list item led by a comment line that carries its id, type,
 * category and tags: what lets an import recognise the items it wrote (no
 * duplicates) and a fresh store take them back whole. Item text is indented
 * under its `- `, so no line of it can pass for a marker.
 *
 * Claude Code reads `@path` in a CLAUDE.md (and in any file one imports:
 * AGENTS.md, Copilot's instructions) as an import of that file, so a stored
 * "Credentials live in @~/.aws/credentials" would load the credentials into
 * the chat. Every target's block writes such a token in a code span, where
 * no import is read; the item's comment then carries its content exactly,
 * which is what an import takes back.
 */

const BEGIN = /^<!-- workspace-memory:begin sha256=([0-9a-f]{64}) -->$/;
/** Anything that starts like a begin marker: one with a damaged hash is still one, and refused. */
const BEGIN_LIKE = /^<!-- workspace-memory:begin\b/;
const END = /^<!-- workspace-memory:end -->$/;
const ITEM = /^<!-- wm:item (\{.*\}) -->$/;
/** A fenced code block's opening (or closing) line: its backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

const BLOCK_END = '<!-- workspace-memory:end -->';
const NOTE =
  '<!-- Written by Workspace Memory from its memories and skills, and replaced on the next export: an edit made here is refused then, so change the memories instead. -->';

/** A line as markers are matched: a trailing CR (a CRLF file) or spaces do not count. */
const bare = (line: string): string => line.replace(/\s+$/, '');

export type BlockFind =
  | { kind: 'none' }
  /** 0-based line indexes of the begin and end markers; `edited` when the text between no longer has the recorded hash. */
  | { kind: 'block'; begin: number; end: number; edited: boolean }
  /** Markers that do not make one block: two begins, a begin without an end, an end without a begin. */
  | { kind: 'broken'; line: number; message: string };

export function findBlock(lines: readonly string[]): BlockFind {
  const begins: number[] = [];
  const ends: number[] = [];
  // A marker shown in a fenced code block (a doc about the block) is no marker. Fences are followed
  // outside a block only: an item's text, indented under its `- `, may hold one left open.
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const text = bare(line);
    if (fence !== undefined) {
      if (closesFence(text, fence)) fence = undefined;
    } else if (BEGIN_LIKE.test(text)) begins.push(index);
    else if (END.test(text)) ends.push(index);
    else if (begins.length === ends.length) fence = FENCE.exec(text)?.[1];
  });
  if (begins.length === 0 && ends.length === 0) return { kind: 'none' };
  const [begin] = begins;
  const [end] = ends;
  const numbers = (indexes: number[]) => indexes.map((at) => at + 1).join(', ');
  if (begins.length > 1) {
    return broken(begins[1]!, `holds a second Workspace Memory block (begin markers on lines ${numbers(begins)})`);
  }
  if (ends.length > 1) {
    return broken(ends[1]!, `has more than one Workspace Memory end marker (lines ${numbers(ends)})`);
  }
  if (begin === undefined)
    return broken(end!, `has a Workspace Memory end marker without a begin marker (line ${end! + 1})`);
  if (end === undefined || end < begin) {
    return broken(begin, `has a Workspace Memory block that is not terminated (line ${begin + 1})`);
  }
  const recorded = BEGIN.exec(bare(lines[begin]!))?.[1];
  if (recorded === undefined) {
    return broken(begin, `has a Workspace Memory begin marker without its hash (line ${begin + 1})`);
  }
  return { kind: 'block', begin, end, edited: bodyHash(lines.slice(begin + 1, end)) !== recorded };
}

/** Whether `line` closes a fence opened by `opener`: the same character, at least as many, nothing after. */
function closesFence(line: string, opener: string): boolean {
  const close = FENCE.exec(line)?.[1];
  return close !== undefined && close[0] === opener[0] && close.length >= opener.length && line.trim() === close;
}

/** Each message names its line(s) once: the caller adds none. */
function broken(line: number, message: string): BlockFind {
  return { kind: 'broken', line: line + 1, message };
}

function bodyHash(body: readonly string[]): string {
  return sha256(body.map((line) => line.replace(/\r$/, '')).join('\n'));
}

/** An item of a block, as it was written or read back. */
export interface BlockEntry {
  id: string;
  type: ImportedType;
  category: MemoryCategory | SkillCategory;
  tags: string[];
  appliesTo?: string[];
  status?: SkillStatus;
  content: string;
}

export interface BlockItemRead extends BlockEntry {
  /** 1-based lines of the item's text. */
  line: number;
  endLine: number;
}

/** The items between the markers; an item whose comment cannot be read is a problem, the others still come. */
export function blockItems(
  lines: readonly string[],
  begin: number,
  end: number,
): { items: BlockItemRead[]; problems: { line: number; message: string }[] } {
  const items: BlockItemRead[] = [];
  const problems: { line: number; message: string }[] = [];
  for (let index = begin + 1; index < end; index++) {
    const marker = ITEM.exec(bare(lines[index]!));
    if (!marker) continue;
    const first = lines[index + 1];
    if (first === undefined || index + 1 >= end || !first.startsWith('- ')) {
      problems.push({ line: index + 1, message: 'An item of the generated block has no "- " line after its comment.' });
      continue;
    }
    const text = [first.slice(2)];
    let last = index + 1;
    for (let next = index + 2; next < end; next++) {
      const line = lines[next]!.replace(/\r$/, '');
      if (line.trim() !== '' && !line.startsWith('  ')) break;
      text.push(line.slice(2));
      if (line.trim() !== '') last = next;
    }
    const content = text
      .slice(0, last - index)
      .join('\n')
      .trimEnd();
    try {
      const raw = JSON.parse(marker[1]!) as unknown;
      // The exact content, when the text shown was changed (see inertImports).
      const exact = (raw as { content?: unknown } | null)?.content;
      const entry = { ...entryOf(raw), content: typeof exact === 'string' ? exact : content };
      items.push({ ...entry, line: index + 2, endLine: last + 1 });
    } catch (error) {
      problems.push({
        line: index + 1,
        message: `An item comment of the generated block cannot be read: ${(error as Error).message}`,
      });
    }
    index = last;
  }
  return { items, problems };
}

function entryOf(raw: unknown): Omit<BlockEntry, 'content'> {
  if (typeof raw !== 'object' || raw === null) throw new Error('not an object.');
  const { id, type, category, tags, appliesTo, status } = raw as Record<string, unknown>;
  assertId(id);
  if (type !== 'memory' && type !== 'skill') throw new Error(`type ${JSON.stringify(type)} is not memory or skill.`);
  const categories: readonly string[] = type === 'memory' ? MEMORY_CATEGORIES : SKILL_CATEGORIES;
  if (typeof category !== 'string' || !categories.includes(category)) {
    throw new Error(`category ${JSON.stringify(category)} is not a ${type} category.`);
  }
  const strings = (value: unknown, what: string): string[] => {
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
      throw new Error(`${what} must be a list of text.`);
    return value as string[];
  };
  const entry: Omit<BlockEntry, 'content'> = {
    id: id as string,
    type,
    category: category as MemoryCategory | SkillCategory,
    tags: tags === undefined ? [] : strings(tags, 'tags'),
  };
  if (appliesTo !== undefined) entry.appliesTo = strings(appliesTo, 'appliesTo');
  if (status !== undefined) {
    if (type !== 'skill' || !(SKILL_STATUSES as readonly unknown[]).includes(status)) {
      throw new Error(`status ${JSON.stringify(status)} is not a skill status.`);
    }
    entry.status = status as SkillStatus;
  }
  return entry;
}

const HEADINGS: Record<string, string> = {
  fact: 'Facts',
  decision: 'Decisions',
  issue: 'Known issues',
  task: 'Tasks',
  correction: 'Corrections',
  procedure: 'Procedures',
  configuration: 'Configuration',
  troubleshooting: 'Troubleshooting',
  workflow: 'Workflows',
};

/**
 * The whole block for `entries` (in the order given: the caller sorts),
 * markers included, each line ended by `eol`. The same entries give the
 * same bytes, so an export with nothing new leaves the file alone.
 */
export function renderBlock(entries: readonly BlockEntry[], title: string, eol: '\n' | '\r\n'): string {
  const body = [`## ${title.replace(/\s+/g, ' ').trim()}`, '', NOTE];
  let heading: string | undefined;
  for (const entry of entries) {
    const group = HEADINGS[entry.category] ?? entry.category;
    if (group !== heading) body.push('', `### ${group}`);
    heading = group;
    const shown = inertImports(entry.content);
    const exact = shown === entry.content ? undefined : entry.content;
    body.push('', `<!-- wm:item ${markerJson(entry, exact)} -->`, ...itemLines(shown));
  }
  const lines = [`<!-- workspace-memory:begin sha256=${bodyHash(body)} -->`, ...body, BLOCK_END];
  return lines.join(eol) + eol;
}

/** The comment's JSON, with `<` and `>` escaped so that no value can close the comment. */
function markerJson(entry: BlockEntry, exact: string | undefined): string {
  const meta: Omit<BlockEntry, 'content'> & { content?: string } = {
    id: entry.id,
    type: entry.type,
    category: entry.category,
    tags: entry.tags,
  };
  if (entry.appliesTo?.length) meta.appliesTo = entry.appliesTo;
  if (entry.status) meta.status = entry.status;
  if (exact !== undefined) meta.content = exact;
  return JSON.stringify(meta).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

/** Content as a list item: leading blank lines and trailing space dropped, following lines indented two spaces. */
function itemLines(content: string): string[] {
  const [first = '', ...rest] = content
    .replace(/\r\n?/g, '\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd()
    .split('\n');
  return [`- ${first}`, ...rest.map((line) => (line === '' ? '' : `  ${line}`))];
}

const AT_TOKEN = /(^|\s)(@[^\s`]+)/g;

/**
 * `content` with each `@token` outside code written as a code span, where
 * Claude Code reads no import. Code spans are matched within a line (a span
 * across lines is taken for text: its token gets backticks it did not need,
 * never an import left live).
 */
export function inertImports(content: string): string {
  let fence: string | undefined;
  return content
    .split('\n')
    .map((line) => {
      const opener = FENCE.exec(line)?.[1];
      if (fence !== undefined) {
        if (closesFence(line, fence)) fence = undefined;
        return line;
      }
      if (opener) {
        fence = opener;
        return line;
      }
      return outsideCodeSpans(line, (text) => text.replace(AT_TOKEN, '$1`$2`'));
    })
    .join('\n');
}

/** `line` with `change` applied to what is not in a code span (a backtick run closed by one as long). */
function outsideCodeSpans(line: string, change: (text: string) => string): string {
  let out = '';
  let at = 0;
  let text = '';
  const runs = /`+/g;
  for (let match = runs.exec(line); match; match = runs.exec(line)) {
    const closing = exactRun(line, match.index + match[0].length, match[0].length);
    if (closing === -1) continue;
    text += line.slice(at, match.index);
    out += change(text) + line.slice(match.index, closing + match[0].length);
    text = '';
    at = closing + match[0].length;
    runs.lastIndex = at;
  }
  return out + change(text + line.slice(at));
}

/** The first index from `from` where a backtick run of exactly `length` starts, or -1. */
function exactRun(line: string, from: number, length: number): number {
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let match = runs.exec(line); match; match = runs.exec(line)) {
    if (match[0].length === length) return match.index;
  }
  return -1;
}
