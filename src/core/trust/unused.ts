import { MemoryError } from '../errors';
import type { Database } from '../store/database';
import { ENTITY_SELECT, rowToEntity } from '../store/entity-queries';
import { countOf, text, textOrNull } from '../store/rows';
import { type MemoryEntity, SHARED_AGENT_ID, type SkillEntity } from '../types';
import { assertId, assertOptionalId } from '../validation';

/*
 * Memories and skills no one has used for a while: never handed to a model
 * by recall or read by a tool (the access counts) in the last N days, nor
 * written since. Listed for a person to review (keep, edit or forget); never
 * deleted by this. A memory that no one needs may still be right; one that
 * is wrong and never used costs nothing until the day it is recalled.
 */

export interface UnusedEntity {
  entity: MemoryEntity | SkillEntity;
  /** When recall or a tool last used it; undefined when nothing ever did. */
  lastUsed?: string;
}

export interface UnusedReport {
  /** The longest unused first: the page asked for (100 from the first by default). */
  items: UnusedEntity[];
  /** How many there are in all. */
  total: number;
}

/** The longest the setting may ask for: ten years. */
export const MAX_UNUSED_DAYS = 3650;

/** The memories and skills an agent (and a user) can see that nothing used or changed for `days` days. */
export function unusedEntities(
  db: Database,
  now: Date,
  scope: { agentId: string; userId?: string },
  days: number,
  page: { limit?: number; offset?: number } = {},
): UnusedReport {
  const { limit = 100, offset = 0 } = page;
  assertId(scope.agentId, 'agent id');
  assertOptionalId(scope.userId, 'user id');
  if (!Number.isInteger(days) || days < 1 || days > MAX_UNUSED_DAYS) {
    throw new MemoryError('INVALID_INPUT', `Unused for how long: a whole number of days from 1 to ${MAX_UNUSED_DAYS}.`);
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) {
    throw new MemoryError('INVALID_INPUT', 'A page of unused items: a limit from 1 to 1000 and an offset from 0.');
  }
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  // The last sign of use: a read counted in `access`, else the last write (a fresh memory is not unused).
  const lastSign = "MAX(r.updated_at, COALESCE(a.last_access, ''))";
  const where = `WHERE r.type IN ('memory', 'skill') AND r.deleted = 0
      AND (r.agent_id = ? OR (r.type = 'skill' AND r.agent_id = '${SHARED_AGENT_ID}'))
      AND (r.user_id IS NULL OR r.user_id = ?)
      AND ${lastSign} < ?`;
  const params = [scope.agentId, scope.userId ?? null, cutoff];
  const join = 'LEFT JOIN access a ON a.entity_id = r.id';
  const total = countOf(db.get(`SELECT COUNT(*) AS count FROM refs r ${join} ${where}`, ...params), 'refs', 'count');
  const select = ENTITY_SELECT.replace(' FROM refs r', ', a.last_access AS last_used FROM refs r');
  const rows = db.all(
    `${select} ${join} ${where} ORDER BY ${lastSign}, r.id LIMIT ? OFFSET ?`,
    ...params,
    limit,
    offset,
  );
  return {
    total,
    items: rows.map((row) => {
      const lastUsed = textOrNull(row, 'access', 'last_used');
      return {
        entity: rowToEntity(row) as MemoryEntity | SkillEntity,
        ...(lastUsed === null ? {} : { lastUsed: text(row, 'access', 'last_used') }),
      };
    }),
  };
}
