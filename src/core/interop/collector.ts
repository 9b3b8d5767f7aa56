import { oneLine, plainMarkdown } from '../text';
import type { MemoryCategory, SkillCategory } from '../types';
import { MarkdownProblem, type MarkdownRead, readMarkdown } from './markdown-source';
import type { FoundItem, ImportedType, SkippedFind, SourceProblem } from './types';

/**
 * What the readers of every format hand back: the items found, the files
 * read, what could not be read and what is deliberately left out. A group
 * (a file) read whole without a problem is `complete`: only for those may an
 * import remove what it imported before and the file no longer holds.
 */
export class SourceCollector {
  readonly items: FoundItem[] = [];
  readonly problems: SourceProblem[] = [];
  readonly skipped: SkippedFind[] = [];
  readonly files: string[] = [];
  readonly complete = new Set<string>();

  read(file: string): void {
    if (!this.files.includes(file)) this.files.push(file);
  }

  problem(path: string, message: string, line?: number): void {
    this.problems.push({ path, message, ...(line === undefined ? {} : { line }) });
  }

  skip(path: string, title: string, reason: string, line?: number): void {
    this.skipped.push({ path, title, reason, ...(line === undefined ? {} : { line }) });
  }

  add(item: FoundItem): void {
    this.items.push(item);
  }
}

/** How a Markdown file's sections become items: one type, category, tags and scope for the whole file. */
export interface SectionMapping {
  type: ImportedType;
  category: MemoryCategory | SkillCategory;
  tags?: string[];
  appliesTo?: string[];
  /** Text that leads the first section (a rule's `description`, which says when it applies). */
  lead?: string;
}

/** A one-line name for an item: its heading, else its first line, as plain text. */
export function titleOf(headingPath: readonly string[], content: string): string {
  const heading = headingPath.at(-1);
  if (heading) return oneLine(plainMarkdown(heading));
  const first = content.split('\n').find((line) => plainMarkdown(line).trim() !== '') ?? content;
  return oneLine(plainMarkdown(first));
}

/**
 * Reads one Markdown file into `into`: each section an item mapped by
 * `mapping` (which sees the front matter), and the items of a generated
 * block with the ids they carry. A file whose front matter or block markers
 * cannot be read gives a problem and no items; the read is returned
 * otherwise (CLAUDE.md's imports are found in it).
 */
export function collectMarkdown(
  into: SourceCollector,
  file: string,
  text: string,
  mapping: (front: Record<string, unknown>) => SectionMapping,
): MarkdownRead | undefined {
  into.read(file);
  let read: MarkdownRead;
  let map: SectionMapping;
  try {
    read = readMarkdown(text);
    map = mapping(read.front);
  } catch (error) {
    if (!(error instanceof MarkdownProblem)) throw error;
    into.problem(file, `${error.message} Nothing of ${file} was imported.`, error.line);
    return undefined;
  }
  read.sections.forEach((section, index) => {
    const content = index === 0 && map.lead ? `${map.lead}\n\n${section.text}` : section.text;
    into.add({
      type: map.type,
      content,
      tags: map.tags ?? [],
      category: map.category,
      ...(map.type === 'skill' ? { status: 'active' as const } : {}),
      ...(map.appliesTo?.length ? { appliesTo: map.appliesTo } : {}),
      path: file,
      line: section.startLine,
      endLine: section.endLine,
      group: file,
      key: section.key,
      title: titleOf(section.headingPath, section.text),
    });
  });
  for (const entry of read.block?.items ?? []) {
    const { id, line, endLine, ...fields } = entry;
    into.add({
      ...fields,
      path: file,
      line,
      endLine,
      group: file,
      key: id,
      storeId: id,
      title: titleOf([], entry.content),
    });
  }
  for (const problem of read.problems) into.problem(file, problem.message, problem.line);
  if (read.problems.length === 0) into.complete.add(file);
  return read;
}

/** A file's stem as a tag: `react.instructions.md` → `react`, `systemPatterns.md` → `system-patterns`. */
export function stemTag(file: string): string {
  const name = file.slice(file.lastIndexOf('/') + 1).replace(/(\.instructions)?\.(mdc|md|markdown)$/i, '');
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The folder of a workspace-relative file ('' at the top). */
export function folderOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash === -1 ? '' : file.slice(0, slash);
}
