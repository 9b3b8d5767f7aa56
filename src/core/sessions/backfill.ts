import { isMemoryError } from '../errors';
import type { Database } from '../store/database';
import type { EntityStore } from '../store/entity-store';
import { bodyOf } from '../store/object-body';
import { SESSION_TURNS_BACKFILL } from '../store/schema';
import type { TurnIndex } from './turn-index';

/**
 * Indexes the turns of every live session once, when a store upgraded to
 * schema 6 is first opened (the upgrade asks for it in index_backfill: the
 * terms come from code, which a migration in SQL cannot run). One
 * transaction; a process that finds the request gone does nothing. A
 * read-only store leaves it to the next process that can write.
 */
export function backfillTurns(db: Database, store: EntityStore, turns: TurnIndex): void {
  const asked = () =>
    db.get('SELECT 1 AS asked FROM index_backfill WHERE name = ?', SESSION_TURNS_BACKFILL) !== undefined;
  try {
    if (!asked()) return;
    db.transaction(() => {
      if (!asked()) return;
      const sessions = store.list({ type: 'session' });
      turns.indexAll(sessions.map((session) => ({ id: session.id, body: bodyOf(session) })));
      db.run('DELETE FROM index_backfill WHERE name = ?', SESSION_TURNS_BACKFILL);
    });
  } catch (error) {
    if (!isMemoryError(error, 'STORE_READONLY')) throw error;
  }
}
