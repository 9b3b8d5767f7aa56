import type { SQLInputValue } from 'node:sqlite';

import type { EntityIndexer } from '../search/fts-index';
import { tokenize } from '../search/tokenizer';
import type { Database, Row } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import { num, text } from '../store/rows';
import { turnsOf, type TurnSource } from './turns';

/*
 * The turn index: every turn of every live session as a row of
 * session_turns (see schema.ts), its stemmed terms in three columns, kept in
 * step with the sessions inside each write's transaction. FTS5 finds and
 * ranks the turns (its BM25, with a weight per column).
 */

/** BM25 weights of a turn's columns: what was said counts most, the turns either side least. */
export interface TurnWeights {
  text: number;
  speaker: number;
  context: number;
}

export const DEFAULT_TURN_WEIGHTS: TurnWeights = { text: 1, speaker: 0.5, context: 0.4 };

/** Which turns a search may return. */
export interface TurnScope {
  agentIds: readonly string[];
  /** Undefined: any user's. A string: that user's sessions and those without a user. */
  userId?: string;
  conversationId?: string;
  /** ISO times: only turns said at or after `from`, before `to` (a turn without a time is kept out). */
  from?: string;
  to?: string;
}

/** A turn the index found: which session, which message, its time and FTS5's rank (lower is better). */
export interface TurnRow {
  entityId: string;
  turn: number;
  time?: string;
  rank: number;
}

/** How many turns the words a search matches on may be in, together (see rarest). */
const MATCH_BUDGET = 500;

/** How many of the best-ranked turns a search reads at most, whatever the limit. */
const MAX_POOL = 1000;

/** A turn's time as UTC ISO 8601, so that times with different offsets compare as text. */
function utc(time: string | undefined): string | null {
  const parsed = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
}

const joined = (terms: readonly string[]): string => terms.join(' ');
const quote = (term: string): string => `"${term.replace(/"/g, '""')}"`;

export class TurnIndex {
  constructor(private readonly db: Database) {}

  /** Indexes a version of an entity: a session's turns replace those it had; other types have none. */
  index(entityId: string, body: VersionBody, fresh: boolean): void {
    if (body.type !== 'session') return;
    if (!fresh) this.remove(entityId);
    const turns = turnsOf(body as TurnSource);
    const terms = turns.map((turn) => tokenize(turn.text));
    turns.forEach((turn, position) => {
      const context = [...(terms[position - 1] ?? []), ...(terms[position + 1] ?? [])];
      const columns = [joined(terms[position]!), joined(tokenize(turn.speaker)), joined(context)];
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO session_turns (entity_id, turn, agent_id, user_id, conversation_id, time, text, speaker, context)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        entityId,
        turn.index,
        body.agentId,
        body.userId ?? null,
        typeof body.conversationId === 'string' ? body.conversationId : null,
        utc(turn.time),
        ...columns,
      );
      this.db.run(
        'INSERT INTO fts_session_turns (rowid, text, speaker, context) VALUES (?, ?, ?, ?)',
        lastInsertRowid,
        ...columns,
      );
    });
  }

  /** Takes an entity's turns out of the index (none for an entity that is not a session). */
  remove(entityId: string): void {
    const rows = this.db.all('SELECT rowid, text, speaker, context FROM session_turns WHERE entity_id = ?', entityId);
    for (const row of rows) {
      // An external-content FTS5 table forgets a row only when told what it held.
      this.db.run(
        `INSERT INTO fts_session_turns (fts_session_turns, rowid, text, speaker, context) VALUES ('delete', ?, ?, ?, ?)`,
        num(row, 'session_turns', 'rowid'),
        text(row, 'session_turns', 'text'),
        text(row, 'session_turns', 'speaker'),
        text(row, 'session_turns', 'context'),
      );
    }
    if (rows.length) this.db.run('DELETE FROM session_turns WHERE entity_id = ?', entityId);
  }

  /** The best turns in scope for the query's terms, best first; none when the query has no searchable word. */
  search(scope: TurnScope, query: string, limit: number, weights: TurnWeights = DEFAULT_TURN_WEIGHTS): TurnRow[] {
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0 || scope.agentIds.length === 0) return [];
    const matched = this.rarest(terms);
    if (matched.length === 0) return [];
    const { clause, params } = scopeConditions(scope);
    const rows = this.db.all(
      `SELECT t.entity_id, t.turn, t.time, bm25(fts_session_turns, ?, ?, ?) AS rank
       FROM fts_session_turns JOIN session_turns t ON t.rowid = fts_session_turns.rowid
       WHERE fts_session_turns MATCH ? AND ${clause}
       ORDER BY rank LIMIT ?`,
      weights.text,
      weights.speaker,
      weights.context,
      // The rarer words find the turns; every word counts in their rank (BM25 over all of the expression's words).
      `(${matched.map(quote).join(' OR ')}) AND (${terms.map(quote).join(' OR ')})`,
      ...params,
      Math.min(Math.max(limit, 1), MAX_POOL),
    );
    return rows.map(toTurnRow);
  }

  /** The turns in scope (bounded in time) newest first, whatever they say; each ranked 0 (no words matched). */
  saidWithin(scope: TurnScope, limit: number): TurnRow[] {
    const { clause, params } = scopeConditions(scope);
    return this.db
      .all(
        `SELECT t.entity_id, t.turn, t.time, 0 AS rank FROM session_turns t
         WHERE ${clause} AND t.time IS NOT NULL ORDER BY t.time DESC, t.rowid LIMIT ?`,
        ...params,
        Math.min(Math.max(limit, 1), MAX_POOL),
      )
      .map(toTurnRow);
  }

  /**
   * The words that find the turns: the rarest first, while the turns they
   * are in add up to at most MATCH_BUDGET (always the rarest one). FTS5
   * ranks every turn a search matches, about 7 µs each: a question whose
   * words are all common would rank most of the store. The common words
   * still count in the rank of the turns found (as Lucene's "common terms"
   * query does, and the memory search here).
   */
  private rarest(terms: readonly string[]): string[] {
    const counts = terms
      .map((term) => ({
        term,
        turns: Number(this.db.get('SELECT doc FROM fts_vocab_session_turns WHERE term = ?', term)?.doc ?? 0),
      }))
      .filter(({ turns }) => turns > 0)
      .sort((a, b) => a.turns - b.turns);
    const chosen: string[] = [];
    let postings = 0;
    for (const { term, turns } of counts) {
      if (chosen.length > 0 && postings + turns > MATCH_BUDGET) break;
      chosen.push(term);
      postings += turns;
    }
    return chosen;
  }

  /** When the last turn in scope was said (a conversation's last day), if any turn has a time. */
  lastTime(scope: Pick<TurnScope, 'agentIds' | 'userId' | 'conversationId'>): string | undefined {
    const { clause, params } = scopeConditions(scope);
    const row = this.db.get(`SELECT max(t.time) AS last FROM session_turns t WHERE ${clause}`, ...params);
    return typeof row?.last === 'string' ? row.last : undefined;
  }

  /** Sessions to index when the store opens after an upgrade: every live one's turns, from its head version. */
  indexAll(bodies: Iterable<{ id: string; body: VersionBody }>): number {
    let count = 0;
    for (const { id, body } of bodies) {
      this.index(id, body, false);
      count++;
    }
    return count;
  }
}

/** The scope as a condition on the session_turns row `t`. */
function scopeConditions(scope: TurnScope): { clause: string; params: SQLInputValue[] } {
  const conditions = [`t.agent_id IN (${scope.agentIds.map(() => '?').join(', ')})`];
  const params: SQLInputValue[] = [...scope.agentIds];
  const add = (condition: string, value: string | undefined) => {
    if (value === undefined) return;
    conditions.push(condition);
    params.push(value);
  };
  add('(t.user_id = ? OR t.user_id IS NULL)', scope.userId);
  add('t.conversation_id = ?', scope.conversationId);
  add('t.time >= ?', scope.from);
  add('t.time < ?', scope.to);
  return { clause: conditions.join(' AND '), params };
}

function toTurnRow(row: Row): TurnRow {
  const time = row.time;
  return {
    entityId: text(row, 'session_turns', 'entity_id'),
    turn: num(row, 'session_turns', 'turn'),
    ...(typeof time === 'string' ? { time } : {}),
    rank: Number(row.rank),
  };
}

/** The store's indexer with the turn index beside it: every write keeps both in step. */
export function withTurnIndex(entities: EntityIndexer, turns: TurnIndex): EntityIndexer {
  return {
    index: (entityId, body, fresh) => {
      turns.index(entityId, body, fresh);
      return entities.index(entityId, body, fresh);
    },
    remove: (entityId) => {
      turns.remove(entityId);
      entities.remove(entityId);
    },
    // Dropping the index drops session_turns with it (see SEARCH_INDEX_TABLES); the rebuild's index() calls refill it.
    clear: () => entities.clear(),
  };
}
