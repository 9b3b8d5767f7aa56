import type { SQLInputValue } from 'node:sqlite';

import { bm25, countTerms, meanVerboseness, referenceScore, slotsOf, termGroups } from '../search/bm25';
import type { EntityIndexer } from '../search/fts-index';
import { MAX_QUERY_TERMS, relevanceOf } from '../search/searcher';
import { tokenize } from '../search/tokenizer';
import type { Database, Row } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import { num, text } from '../store/rows';
import { turnsOf, type TurnSource } from './turns';

/*
 * The turn index: every turn of every live session as a row of
 * session_turns (see schema.ts), its stemmed terms in three columns, kept in
 * step with the sessions inside each write's transaction, with the count of
 * turns and terms in search_stats. FTS5 finds the turns by the query's rarer
 * words; they are ranked from their stored terms with the memory search's
 * BM25 (bm25.ts), so a turn's score is relevance on the same 0..1 scale as a
 * memory's, and no search reads a common word's whole posting list.
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

/** A turn the index found: which session, which message, its time and its relevance (0..1, see relevanceOf). */
export interface TurnRow {
  entityId: string;
  turn: number;
  time?: string;
  relevance: number;
}

/** How many turns the words a search matches on may be in, together (see rarest). */
const MATCH_BUDGET = 500;

/** How many matching turns a search ranks at most (the newest, past the match budget). */
const MAX_POOL = 1000;

/**
 * How many turns a search bounded in time reads whole, by the time index,
 * rather than through FTS5: a month of a busy conversation. FTS5 walks a
 * word's turns newest first whatever their time, so a common word in an old
 * month would have it read most of the store; reading the month's turns
 * costs a few milliseconds.
 */
const RANGE_SCAN = 5000;

/** search_stats' row for the turns (the other rows are entity types). */
const STATS_ROW = 'session_turn';

/** BM25's term-frequency saturation, as the memory search's (scoring.ts). */
const K1 = 1.2;

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
    let length = 0;
    turns.forEach((turn, position) => {
      const context = [...(terms[position - 1] ?? []), ...(terms[position + 1] ?? [])];
      const speaker = tokenize(turn.speaker);
      length += terms[position]!.length + speaker.length + context.length;
      const columns = [joined(terms[position]!), joined(speaker), joined(context)];
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
    if (turns.length) this.countChange(turns.length, length);
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
    if (rows.length) {
      this.db.run('DELETE FROM session_turns WHERE entity_id = ?', entityId);
      const length = rows.reduce(
        (sum, row) => sum + ['text', 'speaker', 'context'].reduce((n, column) => n + words(row[column]), 0),
        0,
      );
      this.countChange(-rows.length, -length);
    }
  }

  /**
   * Keeps the count of turns and of their terms. A store indexed before the
   * count was kept (a development build of schema 6) is counted once, here,
   * after this change: its rows are all in session_turns.
   */
  private countChange(turns: number, terms: number): void {
    const known = this.db.get('SELECT 1 AS known FROM search_stats WHERE type = ?', STATS_ROW) !== undefined;
    if (known) {
      this.db.run('UPDATE search_stats SET docs = docs + ?, terms = terms + ? WHERE type = ?', turns, terms, STATS_ROW);
      return;
    }
    const { docs, length } = this.countAll();
    this.db.run('INSERT INTO search_stats (type, docs, terms) VALUES (?, ?, ?)', STATS_ROW, docs, length);
  }

  /** Turns and terms counted from the rows themselves: for a store that has no count yet. */
  private countAll(): { docs: number; length: number } {
    const row = this.db.get(
      `SELECT count(*) AS docs, coalesce(sum(${['text', 'speaker', 'context'].map(wordCount).join(' + ')}), 0) AS length
       FROM session_turns`,
    );
    return { docs: Number(row?.docs ?? 0), length: Number(row?.length ?? 0) };
  }

  /** How many turns there are and their average length in terms, for BM25's idf and length normalization. */
  private stats(): { docs: number; averageLength: number } {
    const row = this.db.get('SELECT docs, terms FROM search_stats WHERE type = ?', STATS_ROW);
    const { docs, length } = row ? { docs: Number(row.docs), length: Number(row.terms) } : this.countAll();
    return { docs, averageLength: docs > 0 ? length / docs : 0 };
  }

  /**
   * The best turns in scope for the query's terms, best first; none when the
   * query has no word the turns have. The rarer words find the turns (see
   * rarest); every word ranks them, from the terms stored with each turn.
   */
  search(scope: TurnScope, query: string, limit: number, weights: TurnWeights = DEFAULT_TURN_WEIGHTS): TurnRow[] {
    const terms = [...new Set(tokenize(query))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || scope.agentIds.length === 0) return [];
    const frequencies = this.frequencies(terms);
    if (frequencies.size === 0) return [];
    const stats = this.stats();
    // One group per word; words no turn has stay in, so the reference (and relevance) says they are missing.
    const groups = termGroups(
      terms.map((term) => [term]),
      frequencies,
      stats.docs,
    );
    const pool = this.candidates(scope, frequencies, limit);
    const slots = slotsOf(groups);
    const columns = { content: weights.text, tags: weights.speaker, meta: weights.context };
    const counts = pool.map((row) =>
      countTerms(
        { content: split(row.text), tags: split(row.speaker), meta: split(row.context) },
        slots,
        groups.length,
        columns,
      ),
    );
    const collection = { averageLength: stats.averageLength, verboseness: meanVerboseness(counts) };
    const reference = referenceScore(groups);
    return pool
      .map((row, index) => ({
        ...row.found,
        relevance: relevanceOf(bm25(counts[index]!, groups, collection, { k1: K1 }), reference),
      }))
      .sort((a, b) => b.relevance - a.relevance)
      .slice(0, limit);
  }

  /**
   * The turns to rank: those with the rarer words (within MATCH_BUDGET, so at
   * most that many). When even the rarest word is in more turns than that,
   * the turns with every word, then the turns with the rarest, the newest
   * MAX_POOL of each. Counts are store-wide, but the scope may be a small
   * corner of it (one conversation): when the rarer words are in no turn of
   * the scope, the turns that have any of the words, newest first.
   */
  private candidates(scope: TurnScope, frequencies: ReadonlyMap<string, number>, limit: number): PooledTurn[] {
    if ((scope.from !== undefined || scope.to !== undefined) && this.inScope(scope, RANGE_SCAN + 1) <= RANGE_SCAN) {
      return this.readWithin(scope).filter((row) => hasAny(row, frequencies));
    }
    const byRarity = [...frequencies.keys()].sort((a, b) => frequencies.get(a)! - frequencies.get(b)!);
    const rarest = frequencies.get(byRarity[0]!)!;
    const pool = new Map<number, PooledTurn>();
    const add = (expression: string) => {
      for (const row of this.matching(scope, expression, MAX_POOL)) if (!pool.has(row.rowid)) pool.set(row.rowid, row);
    };
    if (rarest <= MATCH_BUDGET || byRarity.length === 1) add(anyOf(rarestWithin(byRarity, frequencies)));
    else {
      add(byRarity.map(quote).join(' AND '));
      if (pool.size < limit) add(quote(byRarity[0]!));
    }
    if (pool.size === 0) add(anyOf(byRarity));
    return [...pool.values()];
  }

  /** How many turns are in scope, counting up to `most`. */
  private inScope(scope: TurnScope, most: number): number {
    const { clause, params } = scopeConditions(scope);
    const row = this.db.get(
      `SELECT count(*) AS n FROM (SELECT 1 FROM session_turns t WHERE ${clause} LIMIT ?)`,
      ...params,
      most,
    );
    return Number(row?.n ?? 0);
  }

  /** Every turn in scope with its stored terms (for a scope bounded in time, by the time index). */
  private readWithin(scope: TurnScope): PooledTurn[] {
    const { clause, params } = scopeConditions(scope);
    return this.db
      .all(`SELECT t.rowid, ${TURN_COLUMNS} FROM session_turns t WHERE ${clause}`, ...params)
      .map(toPooledTurn);
  }

  /** Turns in scope matching an FTS5 expression, newest first (FTS5 walks its rowids backwards and stops). */
  private matching(scope: TurnScope, expression: string, limit: number): PooledTurn[] {
    const { clause, params } = scopeConditions(scope);
    return this.db
      .all(
        `SELECT t.rowid, ${TURN_COLUMNS}
         FROM fts_session_turns JOIN session_turns t ON t.rowid = fts_session_turns.rowid
         WHERE fts_session_turns MATCH ? AND ${clause}
         ORDER BY fts_session_turns.rowid DESC LIMIT ?`,
        expression,
        ...params,
        limit,
      )
      .map(toPooledTurn);
  }

  /** How many turns have each term, for the terms some turn has. */
  private frequencies(terms: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    for (const term of terms) {
      const turns = Number(this.db.get('SELECT doc FROM fts_vocab_session_turns WHERE term = ?', term)?.doc ?? 0);
      if (turns > 0) found.set(term, turns);
    }
    return found;
  }

  /** The turns in scope (bounded in time) newest first, whatever they say; each of relevance 0 (no words matched). */
  saidWithin(scope: TurnScope, limit: number): TurnRow[] {
    const { clause, params } = scopeConditions(scope);
    return this.db
      .all(
        `SELECT t.entity_id, t.turn, t.time FROM session_turns t
         WHERE ${clause} AND t.time IS NOT NULL ORDER BY t.time DESC, t.rowid LIMIT ?`,
        ...params,
        Math.min(Math.max(limit, 1), MAX_POOL),
      )
      .map(toTurnRow);
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
    relevance: 0,
  };
}

/** A turn found for ranking, with its stored terms. */
interface PooledTurn {
  rowid: number;
  found: TurnRow;
  text: string;
  speaker: string;
  context: string;
}

const TURN_COLUMNS = 't.entity_id, t.turn, t.time, t.text, t.speaker, t.context';

function toPooledTurn(row: Row): PooledTurn {
  return {
    rowid: num(row, 'session_turns', 'rowid'),
    found: toTurnRow(row),
    text: text(row, 'session_turns', 'text'),
    speaker: text(row, 'session_turns', 'speaker'),
    context: text(row, 'session_turns', 'context'),
  };
}

/** Whether a turn has any of the terms, in any column: what an FTS5 match of them would say. */
function hasAny(turn: PooledTurn, terms: ReadonlyMap<string, number>): boolean {
  return [turn.text, turn.speaker, turn.context].some((column) => split(column).some((term) => terms.has(term)));
}

/**
 * The words that find the turns: the rarest first, while the turns they are
 * in add up to at most MATCH_BUDGET (always the rarest one). FTS5 reads each
 * matched word's postings: a question whose words are all common would read
 * most of the store. The common words still count in the ranking of the
 * turns found (as Lucene's "common terms" query does, and the memory search).
 */
function rarestWithin(byRarity: readonly string[], frequencies: ReadonlyMap<string, number>): string[] {
  const chosen: string[] = [];
  let postings = 0;
  for (const term of byRarity) {
    const turns = frequencies.get(term)!;
    if (chosen.length > 0 && postings + turns > MATCH_BUDGET) break;
    chosen.push(term);
    postings += turns;
  }
  return chosen;
}

const anyOf = (terms: readonly string[]): string => terms.map(quote).join(' OR ');
const split = (terms: string): string[] => (terms ? terms.split(' ') : []);

/** Terms in a stored column: words separated by single spaces. */
const words = (value: unknown): number => (typeof value === 'string' && value ? value.split(' ').length : 0);

/** The same count in SQL, for a column of session_turns. */
const wordCount = (column: string): string =>
  `(CASE WHEN ${column} = '' THEN 0 ELSE length(${column}) - length(replace(${column}, ' ', '')) + 1 END)`;

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
