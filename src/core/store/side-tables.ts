import type { Database } from './database';
import { translateMissingTable } from './missing-table';
import { countOf } from './rows';

/**
 * Runs `work`, which reads or writes a table beside the history (read
 * counts, the audit log). Another tool may have dropped one: SQLite then
 * says only "no such table", with no code, so that becomes STORE_CORRUPT
 * naming the table and the rebuild that puts it back.
 */
export function sideTable<T>(db: Database, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw translateMissingTable(error, db.path);
  }
}

/** How often each entity was read: counted beside the history, so reading never makes a commit. */
export class AccessCounts {
  constructor(
    private readonly db: Database,
    private readonly timestamp: () => string,
  ) {}

  increment(ids: readonly string[]): void {
    const time = this.timestamp();
    sideTable(this.db, () => {
      for (const id of ids) {
        this.db.run(
          `INSERT INTO access (entity_id, count, last_access) VALUES (?, 1, ?)
         ON CONFLICT(entity_id) DO UPDATE SET count = count + 1, last_access = excluded.last_access`,
          id,
          time,
        );
      }
    });
  }

  of(id: string): number {
    return sideTable(this.db, () =>
      countOf(this.db.get('SELECT count FROM access WHERE entity_id = ?', id), 'access', 'count'),
    );
  }
}

/** The append-only log of operations; only cleanup({ maxAuditLines }) trims it. */
export class AuditLog {
  constructor(
    private readonly db: Database,
    private readonly timestamp: () => string,
  ) {}

  /**
   * One entry per operation (a saveMany of 5,000 is one entry, not 5,000):
   * the log says what was done, the commits say to what.
   */
  record(op: string, entityType: string | null, ids: readonly string[], detail: Record<string, unknown> = {}): void {
    if (ids.length > 1) detail = { count: ids.length, ...detail };
    const time = this.timestamp();
    sideTable(this.db, () =>
      this.db.run(
        'INSERT INTO audit (time, op, entity_id, entity_type, detail) VALUES (?, ?, ?, ?, ?)',
        time,
        op,
        ids.length === 1 ? (ids[0] ?? null) : null,
        entityType,
        Object.keys(detail).length ? JSON.stringify(detail) : null,
      ),
    );
  }
}
