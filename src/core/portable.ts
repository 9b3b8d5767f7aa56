import type { z } from 'zod';

import { MemoryError } from './errors';
import type { JsonBounds } from './json-guard';
import { lazy } from './lazy';
import type { Database } from './store/database';
import { type RefRow, rowToEntity } from './store/entity-queries';
import type { EntityStore, VersionBody } from './store/entity-store';
import { num, text } from './store/rows';
import type { Entity, EntityType } from './types';
import { ENTITY_TYPES } from './types';
import { assertAgentFor, assertId, assertJsonInput, assertOptionalId, LIMITS, validateInput } from './validation';
import { loadZod } from './zod-loader';

/** Collection names as they appear in an export, keyed by entity type. */
export const COLLECTION_OF: Record<EntityType, CollectionName> = {
  memory: 'memories',
  skill: 'skills',
  knowledge: 'knowledge',
  session: 'sessions',
  profile: 'profiles',
};
export type CollectionName = 'memories' | 'skills' | 'knowledge' | 'sessions' | 'profiles';

export const EXPORT_VERSION = 1;
export const EXPORT_FORMAT = 'workspace-memory';

export interface ExportData {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  entities: { [K in CollectionName]: Entity[] };
  accessCounts: Record<string, number>;
}

export interface ImportOptions {
  /** Keep entities that already exist instead of writing the imported version over them. */
  skipExisting?: boolean;
}

export interface ImportReport {
  imported: number;
  overwritten: number;
  /** Existing entities left as they were (skipExisting, or identical content). */
  skipped: number;
  byType: Record<CollectionName, number>;
}

// Built on first use (see zod-loader.ts).
const exportSchema = lazy(() => {
  const { z } = loadZod();
  const isoDate = z.iso.datetime({ offset: true });
  // Strict at the top and in `entities`: an unknown collection or field would otherwise be dropped without a word.
  return z.strictObject({
    // Optional: hand-written documents may leave it out; one that names another format is refused.
    format: z.literal(EXPORT_FORMAT, { error: `expected "${EXPORT_FORMAT}"` }).optional(),
    version: z.literal(EXPORT_VERSION, { error: `Only export version ${EXPORT_VERSION} is supported.` }),
    exportedAt: isoDate.optional(),
    entities: z.strictObject(
      Object.fromEntries(
        Object.values(COLLECTION_OF).map((name) => [
          name,
          z
            .array(
              z.looseObject({
                id: z.string(),
                type: z.string(),
                agentId: z.string(),
                userId: z.string().optional(),
                createdAt: isoDate.optional(),
                updatedAt: isoDate.optional(),
              }),
            )
            .optional(),
        ]),
      ),
    ),
    accessCounts: z.record(z.string(), z.number().int().nonnegative()).optional(),
  });
});

const META_FIELDS = new Set(['id', 'type', 'agentId', 'userId', 'createdAt', 'updatedAt']);

/** An entity is an input plus its id, agent, user and times: a little more room than an input. */
const ENTITY_BOUNDS = { maxDepth: LIMITS.maxJsonDepth, maxBytes: LIMITS.maxInputBytes + 4096 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.path.join('.') === 'entities') {
    const names = issue.keys.map((key) => `"${key}"`).join(', ');
    return `entities: unknown collection ${names}; the collections are ${Object.values(COLLECTION_OF).join(', ')}`;
  }
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return `${where}unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
  }
  // The caller ends the sentence.
  return `${issue.path.join('.') || 'document'}: ${issue.message.replace(/\.$/, '')}`;
}

/**
 * A JSON object with none of an export's fields is some other document: it
 * is refused as such, rather than for the first field the schema misses.
 */
function assertExportShaped(data: unknown): void {
  if (!isRecord(data) || ['format', 'version', 'entities'].some((key) => key in data)) return;
  throw new MemoryError(
    'IMPORT_INVALID',
    `Not a Workspace Memory export: it has no "format": "${EXPORT_FORMAT}" (nor the "version" and "entities" of an export).`,
  );
}

/**
 * Checks what the schema passes on unchecked, on the raw document: zod drops
 * a `__proto__` key of an entity or of accessCounts without a word, and
 * hands nested values on as they are, however deep.
 */
function assertRawJson(data: unknown): void {
  if (!isRecord(data)) return;
  const checks: [string, unknown, JsonBounds][] = [];
  if (isRecord(data.entities)) {
    for (const [collection, list] of Object.entries(data.entities)) {
      if (!Array.isArray(list)) continue;
      list.forEach((entity: unknown, index) =>
        checks.push([`entities.${collection}[${index}]`, entity, ENTITY_BOUNDS]),
      );
    }
  }
  if (data.accessCounts !== undefined) checks.push(['accessCounts', data.accessCounts, { maxDepth: 1 }]);
  for (const [where, value, bounds] of checks) {
    try {
      assertJsonInput(value, where, bounds);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new MemoryError('IMPORT_INVALID', message, { cause: error });
    }
  }
}

/** Every live entity, oldest first, plus access counts: a portable, versioned JSON document. */
export function exportState(db: Database, now: string): ExportData {
  const entities = Object.fromEntries(
    Object.values(COLLECTION_OF).map((name) => [name, [] as Entity[]]),
  ) as ExportData['entities'];
  for (const row of db.iterate(
    `SELECT r.id, r.created_at, r.updated_at, r.place, o.data, o.hash FROM refs r JOIN objects o ON o.seq = r.object_seq
     WHERE r.deleted = 0 ORDER BY r.created_at, r.id`,
  )) {
    // A damaged object fails the export with STORE_CORRUPT naming it, not a raw SyntaxError.
    const entity = rowToEntity(row);
    entities[COLLECTION_OF[entity.type]].push(entity);
  }
  const accessCounts: Record<string, number> = {};
  for (const row of db.iterate(
    'SELECT a.entity_id, a.count FROM access a JOIN refs r ON r.id = a.entity_id WHERE r.deleted = 0',
  )) {
    accessCounts[text(row, 'access', 'entity_id')] = num(row, 'access', 'count');
  }
  return { format: 'workspace-memory', version: EXPORT_VERSION, exportedAt: now, entities, accessCounts };
}

interface PlannedImport {
  id: string;
  body: VersionBody;
  createdAt?: string;
  updatedAt?: string;
  collection: CollectionName;
}

/**
 * Timestamps are compared and sorted as text (cleanup's age, lists' order),
 * which only works when all are UTC in one format: an offset such as
 * `-10:00` is converted.
 */
function utc(time: string | undefined): string | undefined {
  return time === undefined ? undefined : new Date(time).toISOString();
}

/** Live profiles of the plan's agent and user under another id than the plan's. */
function otherProfiles(store: EntityStore, plan: PlannedImport): RefRow[] {
  const { type, agentId, userId } = plan.body;
  if (type !== 'profile') return [];
  // null: the agent's profile without a user, which is one per agent too.
  return store
    .list({ type: 'profile', agentId, userId: userId ?? null })
    .filter((profile) => profile.id !== plan.id)
    .flatMap((profile) => store.readRef(profile.id) ?? []);
}

/**
 * Validates the whole document before writing anything, then imports it in
 * one transaction with ids and timestamps preserved, so a refused document
 * writes nothing. Each imported version is a commit (op `import`) on the
 * entity's chain.
 */
export function importState(store: EntityStore, data: unknown, options: ImportOptions = {}): ImportReport {
  assertExportShaped(data);
  assertRawJson(data);
  const parsed = exportSchema().safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MemoryError(
      'IMPORT_INVALID',
      `Not a Workspace Memory export: ${issue ? describeIssue(issue) : 'invalid'}.`,
    );
  }
  const plans: PlannedImport[] = [];
  const seen = new Set<string>();
  for (const type of ENTITY_TYPES) {
    const collection = COLLECTION_OF[type];
    (parsed.data.entities[collection] ?? []).forEach((raw, index) => {
      const where = `entities.${collection}[${index}]`;
      try {
        const id = assertId(raw.id);
        if (raw.type !== type)
          throw new MemoryError(
            'IMPORT_INVALID',
            `type is "${raw.type}" but the entity is listed under ${collection}.`,
          );
        if (seen.has(id)) throw new MemoryError('IMPORT_INVALID', `id ${id} appears more than once.`);
        seen.add(id);
        const input: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(raw)) if (!META_FIELDS.has(key)) input[key] = value;
        const agentId = assertAgentFor(type, assertId(raw.agentId, 'agent id'));
        const userId = assertOptionalId(raw.userId, 'user id');
        const body = {
          type,
          agentId,
          ...(userId === undefined ? {} : { userId }),
          ...validateInput(type, input),
        } as VersionBody;
        plans.push({ id, body, createdAt: utc(raw.createdAt), updatedAt: utc(raw.updatedAt), collection });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new MemoryError('IMPORT_INVALID', `${where}: ${message}`, { cause: error });
      }
    });
  }
  const report: ImportReport = {
    imported: 0,
    overwritten: 0,
    skipped: 0,
    byType: Object.fromEntries(Object.values(COLLECTION_OF).map((name) => [name, 0])) as Record<CollectionName, number>,
  };
  const counts = parsed.data.accessCounts ?? {};
  store.db.transaction(() => {
    for (const plan of plans) {
      const ref = store.readRef(plan.id);
      // A user has one profile per agent: one under another id is this one's earlier self.
      const replaced = otherProfiles(store, plan);
      const exists = (ref !== undefined && !ref.deleted) || replaced.length > 0;
      if (exists && options.skipExisting) {
        report.skipped++;
        continue;
      }
      for (const other of replaced) store.tombstone(other, `import: replaced by profile ${plan.id}`);
      const result = store.write({
        id: plan.id,
        body: plan.body,
        op: 'import',
        message: `import ${plan.body.type}`,
        createdAt: plan.createdAt ?? plan.updatedAt,
        time: plan.updatedAt,
      });
      if (!result.changed) {
        report.skipped++;
        continue;
      }
      if (exists) report.overwritten++;
      else report.imported++;
      report.byType[plan.collection]++;
      const count = counts[plan.id];
      if (count !== undefined) {
        store.db.run(
          `INSERT INTO access (entity_id, count, last_access) VALUES (?, ?, ?)
           ON CONFLICT(entity_id) DO UPDATE SET count = excluded.count`,
          plan.id,
          count,
          store.timestamp(),
        );
      }
    }
    store.log.record('import', null, [], {
      imported: report.imported,
      overwritten: report.overwritten,
      skipped: report.skipped,
    });
  });
  return report;
}
