import { MemoryError } from '../errors';
import type { Database } from '../store/database';
import { ENTITY_SELECT, rowToEntity } from '../store/entity-queries';
import { countOf, num, numOrNull, type Row, text, textOrNull } from '../store/rows';
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
  /** When its content was last written (a re-anchoring of its citations does not count). */
  lastWritten: string;
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
  const join = 'LEFT JOIN access a ON a.entity_id = r.id';
  const scoped = `WHERE r.type IN ('memory', 'skill') AND r.deleted = 0
      AND (r.agent_id = ? OR (r.type = 'skill' AND r.agent_id = '${SHARED_AGENT_ID}'))
      AND (r.user_id IS NULL OR r.user_id = ?)`;
  const params = [scope.agentId, scope.userId ?? null];
  const select = ENTITY_SELECT.replace(' FROM refs r', ', a.last_access AS last_used, r.head_seq FROM refs r');
  // The last sign of use: a read counted in `access`, else the last write (a fresh memory is not unused).
  const lastSign = "MAX(r.updated_at, COALESCE(a.last_access, ''))";
  const plain = `${scoped} AND r.cites IS NULL AND ${lastSign} < ?`;
  const plainTotal = countOf(
    db.get(`SELECT COUNT(*) AS count FROM refs r ${join} ${plain}`, ...params, cutoff),
    'refs',
    'count',
  );
  const plainRows = db.all(
    `${select} ${join} ${plain} ORDER BY ${lastSign}, r.id LIMIT ?`,
    ...params,
    cutoff,
    offset + limit,
  );
  // Those citing code may carry a re-anchoring, which moved lines and wrote nothing of their own: their last
  // write is the last one before such commits. They are few (the refs_cites index), so each is looked at.
  const citing = db
    .all(`${select} ${join} ${scoped} AND r.cites = 1 AND COALESCE(a.last_access, '') < ?`, ...params, cutoff)
    .map((row) => unusedItem(row, contentWrittenAt(db, num(row, 'refs', 'head_seq'))))
    .filter((item) => item.lastWritten < cutoff);
  const items = [...plainRows.map((row) => unusedItem(row, text(row, 'refs', 'updated_at'))), ...citing].sort(
    (a, b) => lastSignOf(a).localeCompare(lastSignOf(b)) || a.entity.id.localeCompare(b.entity.id),
  );
  return { total: plainTotal + citing.length, items: items.slice(offset, offset + limit) };
}

function unusedItem(row: Row, lastWritten: string): UnusedEntity {
  const lastUsed = textOrNull(row, 'access', 'last_used');
  return {
    entity: rowToEntity(row) as MemoryEntity | SkillEntity,
    lastWritten,
    ...(lastUsed === null ? {} : { lastUsed }),
  };
}

/** The later of an item's last use and last write: what "unused for N days" counts from. */
const lastSignOf = (item: UnusedEntity): string =>
  item.lastUsed && item.lastUsed > item.lastWritten ? item.lastUsed : item.lastWritten;

/** When the version at `headSeq` was written, going back past commits by the citation check (see KEEPS_WRITER). */
function contentWrittenAt(db: Database, headSeq: number): string {
  let seq: number | null = headSeq;
  let time = '';
  // Bounded: a chain of re-anchorings is as long as the times its code moved; a damaged chain ends it.
  for (let step = 0; seq !== null && step < 1000; step++) {
    const row = db.get('SELECT time, meta, parent_seq FROM commits WHERE seq = ?', seq);
    if (!row) break;
    time = text(row, 'commits', 'time');
    const meta = textOrNull(row, 'commits', 'meta');
    if (!meta || !/"kind":"anchoring"/.test(meta)) break;
    seq = numOrNull(row, 'commits', 'parent_seq');
  }
  return time;
}
