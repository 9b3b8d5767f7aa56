import type { SQLInputValue } from 'node:sqlite';

import { MemoryError } from '../errors';
import type { EventBus } from '../events';
import { assertWriterKind, type WriterKind } from '../provenance';
import { REF_STATE } from '../store/commits';
import type { EntityStore, VersionBody } from '../store/entity-store';
import { decodeBody } from '../store/object-body';
import { num, text } from '../store/rows';
import { oneLine } from '../text';
import type { CommitInfo, EntityType } from '../types';

/** Whose writes to undo: a writer kind, narrowed by name, conversation and time. */
export interface RevertFilter {
  by: WriterKind;
  /** The person or MCP client's name, exactly as recorded. */
  name?: string;
  conversation?: string;
  /** ISO times: only commits made at or after `since`, before `until`. */
  since?: string;
  until?: string;
}

/** What undoing one entity's writes does. */
export interface RevertItem {
  id: string;
  type: EntityType;
  /** delete: the writer created it; restore: it gets its version from before the writer's first write. */
  action: 'delete' | 'restore';
  /** How many of its commits the writer made in the range. */
  commits: number;
  /** Someone else wrote to it after the writer: the revert undoes that too. */
  laterByOthers: boolean;
  /** The first words of the content it has now (or had, if deleted since). */
  preview: string;
}

export interface RevertReport {
  items: RevertItem[];
  /** The commits the revert made; empty for a dry run. */
  commits: CommitInfo[];
}

const ISO = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/;

function assertTime(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !ISO.test(value) || Number.isNaN(Date.parse(value))) {
    throw new MemoryError('INVALID_INPUT', `${name} must be an ISO date or time (got ${JSON.stringify(value)}).`);
  }
  return new Date(value).toISOString();
}

interface Touched {
  id: string;
  firstSeq: number;
  commits: number;
  lastSeq: number;
}

/**
 * Undoes everything one writer wrote: entities it created are deleted,
 * those it changed get back the version they had before its first change,
 * all as new commits (nothing is rewritten) in one transaction. A dry run
 * lists what would happen.
 */
export class Reverter {
  constructor(
    private readonly store: EntityStore,
    private readonly events: EventBus,
  ) {}

  async revert(filter: RevertFilter, options: { dryRun?: boolean } = {}): Promise<RevertReport> {
    const checked = this.check(filter);
    if (options.dryRun) {
      const items = this.store.db.transaction(() => this.plan(checked).map(({ item }) => item));
      if (items.length === 0) throw nothing(checked);
      return { items, commits: [] };
    }
    const done = this.store.db.transaction(() => {
      const planned = this.plan(checked);
      if (planned.length === 0) throw nothing(checked);
      const message = `revert writes ${describeFilter(checked)}`;
      const commits = planned.map(({ item, before }) => {
        const ref = this.store.readRef(item.id)!;
        if (item.action === 'delete') return this.store.tombstone(ref, message);
        return this.store.write({ id: item.id, body: before!, op: 'revert', message }).commit;
      });
      this.store.log.record(
        'revert',
        null,
        planned.map(({ item }) => item.id),
        { by: checked.by },
      );
      return { items: planned.map(({ item }) => item), commits };
    });
    done.commits.forEach((commit, index) => {
      const item = done.items[index]!;
      if (commit.object === null)
        this.events.emit('entity:delete', { entityId: item.id, entityType: item.type, commit });
      else this.events.emit('entity:state', { entityId: item.id, entityType: item.type, state: 'live', commit });
    });
    return done;
  }

  private check(filter: RevertFilter): RevertFilter {
    if (typeof filter !== 'object' || filter === null)
      throw new MemoryError('INVALID_INPUT', 'Say whose writes to revert.');
    const by = assertWriterKind(filter.by);
    for (const field of ['name', 'conversation'] as const) {
      const value = filter[field];
      if (value !== undefined && (typeof value !== 'string' || !value.trim())) {
        throw new MemoryError('INVALID_INPUT', `The ${field} to revert must be non-empty text.`);
      }
    }
    const since = filter.since ? assertTime(filter.since, 'since') : undefined;
    const until = filter.until ? assertTime(filter.until, 'until') : undefined;
    if (since && until && since >= until) {
      throw new MemoryError('INVALID_INPUT', `since (${since}) must be before until (${until}).`);
    }
    return {
      by,
      ...(filter.name ? { name: filter.name } : {}),
      ...(filter.conversation ? { conversation: filter.conversation } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
    };
  }

  /** The entities the writer touched, each with what undoing does and the version it goes back to. */
  private plan(filter: RevertFilter): { item: RevertItem; before?: VersionBody }[] {
    const clauses = ["json_extract(c.meta, '$.by.kind') = ?"];
    const params: SQLInputValue[] = [filter.by];
    if (filter.name) {
      clauses.push("json_extract(c.meta, '$.by.name') = ?");
      params.push(filter.name);
    }
    if (filter.conversation) {
      clauses.push("json_extract(c.meta, '$.by.conversation') = ?");
      params.push(filter.conversation);
    }
    if (filter.since) {
      clauses.push('c.time >= ?');
      params.push(filter.since);
    }
    if (filter.until) {
      clauses.push('c.time < ?');
      params.push(filter.until);
    }
    const touched = new Map<string, Touched>();
    for (const row of this.store.db.iterate(
      `SELECT c.seq, c.entity_id FROM commits c WHERE c.meta IS NOT NULL AND ${clauses.join(' AND ')} ORDER BY c.seq`,
      ...params,
    )) {
      const id = text(row, 'commits', 'entity_id');
      const seq = num(row, 'commits', 'seq');
      const entry = touched.get(id);
      if (entry) {
        entry.commits++;
        entry.lastSeq = seq;
      } else touched.set(id, { id, firstSeq: seq, commits: 1, lastSeq: seq });
    }
    const planned: { item: RevertItem; before?: VersionBody }[] = [];
    for (const entry of touched.values()) {
      const ref = this.store.readRef(entry.id);
      if (!ref) continue;
      const before = this.versionBefore(entry.firstSeq, entry.id);
      const current = this.store.getAny(entry.id);
      const content = current?.entity.content;
      const preview = typeof content === 'string' ? oneLine(content) : '';
      // An approval of the writer's own write is not someone else's change.
      const laterByOthers =
        this.store.db.get(
          "SELECT 1 AS later FROM commits WHERE entity_id = ? AND seq > ? AND op <> 'approve' LIMIT 1",
          entry.id,
          entry.lastSeq,
        ) !== undefined;
      const base = { id: entry.id, type: ref.type, commits: entry.commits, laterByOthers, preview };
      if (before === undefined) {
        // The writer created it (or wrote it back after a delete): it goes.
        if (ref.state !== REF_STATE.deleted) planned.push({ item: { ...base, action: 'delete' } });
        continue;
      }
      // Already as it was, and live: nothing to undo.
      if (ref.state === REF_STATE.live && ref.object === before.hash) continue;
      planned.push({ item: { ...base, action: 'restore' }, before: before.body });
    }
    return planned;
  }

  /** The content an entity had just before commit `seq`, or undefined if it had none (new, or deleted). */
  private versionBefore(seq: number, id: string): { hash: string; body: VersionBody } | undefined {
    const row = this.store.db.get(
      `SELECT o.hash, o.data FROM commits c JOIN commits p ON p.seq = c.parent_seq JOIN objects o ON o.seq = p.object_seq
       WHERE c.seq = ?`,
      seq,
    );
    if (!row) return undefined;
    const hash = text(row, 'objects', 'hash');
    return { hash, body: decodeBody(text(row, 'objects', 'data'), hash, id) };
  }
}

export function describeFilter(filter: RevertFilter): string {
  const parts = [`by ${filter.by}`];
  if (filter.name) parts.push(`named ${filter.name}`);
  if (filter.conversation) parts.push(`in ${filter.conversation}`);
  if (filter.since) parts.push(`since ${filter.since}`);
  if (filter.until) parts.push(`until ${filter.until}`);
  return parts.join(' ');
}

function nothing(filter: RevertFilter): MemoryError {
  return new MemoryError('NOTHING_TO_REVERT', `Nothing to revert: no writes ${describeFilter(filter)} are in effect.`);
}
