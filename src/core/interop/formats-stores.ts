import { MemoryError } from '../errors';
import { jsonErrorReason } from '../text';
import { MEMORY_CATEGORIES, type MemoryCategory, SKILL_CATEGORIES, SKILL_STATUSES } from '../types';
import { type SourceCollector, titleOf } from './collector';
import { filesIn, type FormatHandler, join, realOf } from './format-handler';
import type { FoundItem } from './types';
import type { Workspace } from './workspace';

/**
 * Other memory stores' own files, whose entries carry ids: an entry keeps
 * its place in this store however its file is renamed (a newer export of
 * the same store updates what an older one imported).
 *
 * RepoMemory's export (`repomemory export <file.json>`, its README's
 * Export / Import): `{ version: 1, exportedAt, entities: { memories, skills,
 * knowledge, sessions, profiles }, accessCounts }`. Memories and skills keep
 * their category, status and tags; knowledge saved by hand is a fact, while a
 * chunk of a document is left to document sync; sessions and profiles are
 * not memories.
 *
 * aipack-memory's MemoryEntry (its README's API): `{ id, content, concepts,
 * confidence, source, createdAt, updatedAt, expiresAt?, … }`, concepts as
 * tags. Its README does not say how FileMemoryStore lays entries out in its
 * folder (`.aipack/memory`), so a JSON list of entries, an object holding
 * one, one entry, or JSON lines of entries are all read.
 */

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MemoryError('IMPORT_INVALID', `${file} is not JSON: ${jsonErrorReason(error)}.`);
  }
}

function entryItem(
  file: string,
  group: string,
  key: string,
  fields: Omit<FoundItem, 'path' | 'group' | 'key' | 'title'>,
) {
  return { ...fields, path: file, group, key, title: titleOf([], fields.content) } satisfies FoundItem;
}

export const repomemory: FormatHandler = {
  label: 'RepoMemory export',
  looksFor: 'JSON exports of RepoMemory (`repomemory export <file.json>`)',
  detectable: true,
  async locate(ws, folder) {
    // Exports are named by whoever made them: the folder's own JSON files are looked into.
    return ws.listFolder(folder, (file) => file.endsWith('.json'), 0).filter((file) => isExport(ws, file));
  },
  collect(ws, file, into) {
    const real = realOf(ws, file);
    const data = parseJson(file, ws.readText(real));
    if (isRecord(data) && data.format === 'workspace-memory') {
      throw new MemoryError(
        'IMPORT_INVALID',
        `${file} is a Workspace Memory export, not RepoMemory's: import it whole with \`workspace-memory import ${file}\`.`,
      );
    }
    if (!isRecord(data) || !isRecord(data.entities)) {
      throw new MemoryError('IMPORT_INVALID', `${file} is not a RepoMemory export: it has no "entities".`);
    }
    if (data.version !== 1) {
      throw new MemoryError(
        'IMPORT_INVALID',
        `${file} is a RepoMemory export of version ${JSON.stringify(data.version)}; version 1 is the one documented.`,
      );
    }
    into.read(real);
    const entities = data.entities;
    for (const collection of ['memories', 'skills', 'knowledge', 'sessions', 'profiles']) {
      const list = entities[collection];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        into.problem(real, `entities.${collection} is not a list.`);
        continue;
      }
      list.forEach((raw: unknown, index) => repoEntity(into, real, collection, index, raw));
    }
  },
};

function isExport(ws: Workspace, file: string): boolean {
  try {
    const data: unknown = JSON.parse(ws.readText(file));
    return isRecord(data) && isRecord(data.entities) && data.format === undefined;
  } catch {
    return false;
  }
}

function repoEntity(into: SourceCollector, file: string, collection: string, index: number, raw: unknown): void {
  const where = `entities.${collection}[${index}]`;
  if (!isRecord(raw) || typeof raw.content !== 'string' || raw.content.trim() === '') {
    into.problem(file, `${where} has no content.`);
    return;
  }
  const key = typeof raw.id === 'string' && raw.id !== '' ? raw.id : where;
  const tags = strings(raw.tags);
  const title = titleOf([], raw.content);
  if (collection === 'sessions' || collection === 'profiles') {
    into.skip(file, title, `${collection === 'sessions' ? 'a session' : 'a profile'} is not a memory or skill`);
  } else if (collection === 'knowledge' && typeof raw.chunkIndex === 'number' && typeof raw.source === 'string') {
    into.skip(file, title, `a chunk of ${raw.source}: sync that document instead`);
  } else if (collection === 'skills') {
    const category = SKILL_CATEGORIES.find((known) => known === raw.category) ?? 'procedure';
    const status = SKILL_STATUSES.find((known) => known === raw.status) ?? 'active';
    into.add(entryItem(file, 'repomemory', key, { type: 'skill', content: raw.content, tags, category, status }));
  } else {
    const category: MemoryCategory = MEMORY_CATEGORIES.find((known) => known === raw.category) ?? 'fact';
    into.add(entryItem(file, 'repomemory', key, { type: 'memory', content: raw.content, tags, category }));
  }
}

const ENTRY_FILE = /\.(json|jsonl)$/i;

export const aipack: FormatHandler = {
  label: 'aipack-memory',
  looksFor: 'the JSON or JSON lines files of its memory folder (.aipack/memory)',
  detectable: true,
  async locate(ws, folder) {
    return filesIn(ws, folder, (base) => [
      ...ws.listFolder(join(base, '.aipack/memory'), (file) => ENTRY_FILE.test(file), 2),
      // A folder given by name is such a memory folder.
      ...(base === folder && folder !== '' ? ws.listFolder(folder, (file) => ENTRY_FILE.test(file), 2) : []),
    ]);
  },
  collect(ws, file, into) {
    const real = realOf(ws, file);
    const text = ws.readText(real);
    const records: { raw: unknown; where: string; line?: number }[] = /\.jsonl$/i.test(file)
      ? text
          .split('\n')
          .flatMap((line, index) =>
            line.trim() === '' ? [] : [{ raw: lineValue(line), where: `line ${index + 1}`, line: index + 1 }],
          )
      : listOf(parseJson(file, text)).map((raw, index) => ({ raw, where: `entry ${index + 1}` }));
    if (!records.some(({ raw }) => isRecord(raw) && typeof raw.content === 'string')) {
      throw new MemoryError(
        'IMPORT_INVALID',
        `${file} holds no aipack-memory entries (objects with an id and content).`,
      );
    }
    into.read(real);
    for (const { raw, where, line } of records) aipackEntry(into, real, raw, where, line);
  },
};

/** A JSON line's value, or the error it gives, for the entry check to report. */
function lineValue(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    return new Error(`not JSON: ${jsonErrorReason(error)}`);
  }
}

function listOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  if (isRecord(data)) {
    const list = [data.memories, data.entries, data.items].find(Array.isArray);
    return list ?? [data];
  }
  return [data];
}

function aipackEntry(into: SourceCollector, file: string, raw: unknown, where: string, line?: number): void {
  if (raw instanceof Error) return into.problem(file, `${where} is ${raw.message}.`, line);
  if (!isRecord(raw) || typeof raw.content !== 'string' || raw.content.trim() === '' || typeof raw.id !== 'string') {
    return into.problem(file, `${where} is not an entry with an id and content.`, line);
  }
  const item = entryItem(file, 'aipack', raw.id, {
    type: 'memory',
    content: raw.content,
    tags: strings(raw.concepts),
    category: 'fact',
  });
  if (typeof raw.expiresAt === 'number' && raw.expiresAt < Date.now()) {
    return into.skip(file, item.title, 'expired in aipack-memory', line);
  }
  into.add(line === undefined ? item : { ...item, line });
}
