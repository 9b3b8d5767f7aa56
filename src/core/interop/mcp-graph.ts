import { jsonErrorReason } from '../text';
import { MEMORY_CATEGORIES, SKILL_CATEGORIES, SKILL_STATUSES, type SkillStatus } from '../types';
import { assertId } from '../validation';
import type { BlockEntry } from './generated-block';

/**
 * The knowledge graph of the MCP reference memory server: a JSONL file of
 * `{"type":"entity","name","entityType","observations":[]}` and
 * `{"type":"relation","from","to","relationType"}` lines. Read line by line,
 * so one broken line costs that line only.
 *
 * Memories and skills this store writes into a graph are entities of type
 * `memory` or `skill` named by their id: the first observation is the
 * content, then `category: <c>`, `status: <s>`, `tags: [...]` and
 * `appliesTo: [...]` (JSON lists, so a glob's comma stays in it). Read back,
 * they are the same items, under the same ids.
 */

export interface GraphEntity {
  name: string;
  entityType: string;
  observations: string[];
  /** 1-based line of the entity (its first, when a name repeats). */
  line: number;
}

export interface GraphRelation {
  from: string;
  to: string;
  relationType: string;
  line: number;
}

export interface GraphRead {
  entities: GraphEntity[];
  relations: GraphRelation[];
  problems: { line: number; message: string }[];
}

export function readGraph(text: string): GraphRead {
  const byName = new Map<string, GraphEntity>();
  const relations: GraphRelation[] = [];
  const problems: GraphRead['problems'] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push({ line, message: `Line ${line} is not JSON: ${jsonErrorReason(error)}.` });
      return;
    }
    const problem = (why: string) => problems.push({ line, message: `Line ${line} ${why}.` });
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return problem('is not a JSON object');
    const fields = value as Record<string, unknown>;
    if (fields.type === 'entity') {
      const { name, entityType, observations = [] } = fields;
      if (typeof name !== 'string' || name.trim() === '') return problem('is an entity without a name');
      if (typeof entityType !== 'string') return problem(`is an entity (${name}) without an entityType`);
      if (!Array.isArray(observations) || observations.some((item) => typeof item !== 'string')) {
        return problem(`is an entity (${name}) whose observations are not a list of text`);
      }
      const known = byName.get(name);
      // The server keeps one entity per name; a repeated one adds its observations.
      if (known) known.observations.push(...(observations as string[]).filter((o) => !known.observations.includes(o)));
      else byName.set(name, { name, entityType, observations: [...(observations as string[])], line });
    } else if (fields.type === 'relation') {
      const { from, to, relationType } = fields;
      if (![from, to, relationType].every((part) => typeof part === 'string' && part.trim() !== '')) {
        return problem('is a relation without from, to and relationType');
      }
      relations.push({ from: from as string, to: to as string, relationType: relationType as string, line });
    } else {
      problem(`has the type ${JSON.stringify(fields.type)}; a graph line is an "entity" or a "relation"`);
    }
  });
  return { entities: [...byName.values()], relations, problems };
}

const META = /^(category|status|tags|appliesTo): (.*)$/;

/** The memory or skill this store wrote as `entity`, or undefined for anyone else's entity. */
export function storeEntry(entity: GraphEntity): BlockEntry | undefined {
  const type = entity.entityType;
  if (type !== 'memory' && type !== 'skill') return undefined;
  try {
    assertId(entity.name);
  } catch {
    return undefined;
  }
  const [content, ...rest] = entity.observations;
  const extra: string[] = [];
  const meta = new Map<string, string>();
  for (const observation of rest) {
    const match = META.exec(observation);
    if (match && !meta.has(match[1]!)) meta.set(match[1]!, match[2]!);
    else extra.push(observation);
  }
  const category = meta.get('category');
  const categories: readonly string[] = type === 'memory' ? MEMORY_CATEGORIES : SKILL_CATEGORIES;
  // The category line is what this store always writes: without it, the entity is not one of its own.
  if (content === undefined || category === undefined || !categories.includes(category)) return undefined;
  const entry: BlockEntry = {
    id: entity.name,
    type,
    category: category as BlockEntry['category'],
    tags: textList(meta.get('tags')) ?? [],
    // Observations another client added since are kept, after the content.
    content: [content, ...extra].join('\n'),
  };
  const appliesTo = textList(meta.get('appliesTo'));
  if (appliesTo?.length) entry.appliesTo = appliesTo;
  const status = meta.get('status');
  if (type === 'skill' && (SKILL_STATUSES as readonly string[]).includes(status ?? '')) {
    entry.status = status as SkillStatus;
  }
  return entry;
}

function textList(json: string | undefined): string[] | undefined {
  if (json === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The graph line of a memory or skill, as the server itself writes entities. */
export function entityLine(entry: BlockEntry): string {
  const observations = [entry.content, `category: ${entry.category}`];
  if (entry.status) observations.push(`status: ${entry.status}`);
  if (entry.tags.length) observations.push(`tags: ${JSON.stringify(entry.tags)}`);
  if (entry.appliesTo?.length) observations.push(`appliesTo: ${JSON.stringify(entry.appliesTo)}`);
  return JSON.stringify({ type: 'entity', name: entry.id, entityType: entry.type, observations });
}

/** Whether a graph line is an entity this store wrote (what an export replaces). */
export function isStoreLine(raw: string): boolean {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    if (value?.type !== 'entity') return false;
    const { name, entityType, observations } = value;
    if (typeof name !== 'string' || typeof entityType !== 'string' || !Array.isArray(observations)) return false;
    if (!observations.every((item) => typeof item === 'string')) return false;
    return storeEntry({ name, entityType, observations: observations, line: 0 }) !== undefined;
  } catch {
    return false;
  }
}
