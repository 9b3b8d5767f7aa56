import { MemoryError } from '../errors';
import { type QueryTime, timeInQuery, withoutTime } from '../sessions/time-query';
import type { TurnIndex, TurnRow, TurnScope, TurnWeights } from '../sessions/turn-index';
import { type SessionTurn, turnsOf } from '../sessions/turns';
import type { VersionBody } from '../store/entity-store';
import type { ConversationSummary, Page, PageOptions, SessionEntity } from '../types';
import { assertId, assertLimit, assertOptionalId, assertPage, assertQuery, isoDateOrUndefined } from '../validation';
import { Collection, type CollectionContext } from './collection';

/** A turn of a past conversation that a search found: what was said, by whom, when, and in which session. */
export interface TurnHit {
  session: Pick<SessionEntity, 'id' | 'agentId' | 'userId' | 'conversationId' | 'startedAt'>;
  turn: SessionTurn;
  /**
   * Relevance, 0..1: BM25 measured against a turn of average length that has
   * each query word once, as a memory's (relevanceOf), so turns and memories
   * can be ranked together. 0 for a turn found only by the time the query named.
   */
  score: number;
  /** Where the query named a time ("last week"): whether the turn was said then. Those that were come first. */
  inQueryTime?: boolean;
}

export interface TurnSearchOptions {
  /** Only this conversation's sessions. */
  conversationId?: string;
  /** ISO times: only turns said at or after `from` and before `to`. */
  from?: string;
  to?: string;
  /** BM25 weights of a turn's words, its speaker's name and its neighbours' words (DEFAULT_TURN_WEIGHTS). */
  weights?: TurnWeights;
  /**
   * A time the query names ("last week", "in March") puts the turns said then first (default true;
   * not when `from` or `to` is given). It is relative to `now`, or with a conversation, to its last turn.
   */
  timeFromQuery?: boolean;
  now?: Date;
}

export class SessionCollection extends Collection<'session'> {
  constructor(
    ctx: CollectionContext,
    type: 'session',
    private readonly turns: TurnIndex,
  ) {
    super(ctx, type);
  }

  /**
   * A session saved without a start time started when it was saved: its
   * turns then have a time, which questions such as "what did we decide
   * today" need (a message's own timestamp still comes first).
   */
  protected override defaultsAt(time: string): Partial<VersionBody> {
    return { startedAt: time };
  }

  /**
   * The turns of past conversations that best answer `query`, best first:
   * each with its session, speaker and time. Keyword search over every turn
   * of the agent's (and user's) live sessions.
   */
  async search(
    agentId: string,
    userId: string | undefined,
    query: string,
    limit: number,
    options: TurnSearchOptions = {},
  ): Promise<TurnHit[]> {
    assertQuery(query);
    const agent = assertId(agentId, 'agent id');
    const scope: TurnScope = {
      agentIds: [agent],
      userId: assertOptionalId(userId, 'user id'),
      ...(options.conversationId === undefined ? {} : { conversationId: String(options.conversationId) }),
      ...timeBounds(options),
    };
    const count = assertLimit(limit);
    return this.ctx.store.db.read(() => {
      const named =
        scope.from || scope.to || options.timeFromQuery === false ? undefined : this.queryTime(scope, query, options);
      if (!named) return this.hitsOf(this.turns.search(scope, query, count, options.weights));
      // The turns said in the time named first, then the others: a question may date an event by when it
      // was talked about, or not; the rest still answer when that time holds too few.
      const words = withoutTime(query, named);
      const bounded = { ...scope, from: named.from, to: named.to };
      // Nothing said then matches the words ("what did we talk about last week"): what was said then, newest first.
      let within = this.turns.search(bounded, words, count, options.weights);
      if (within.length === 0) within = this.turns.saidWithin(bounded, count);
      const seen = new Set(within.map((row) => `${row.entityId}#${row.turn}`));
      const others = this.turns
        .search(scope, words, count, options.weights)
        .filter((row) => !seen.has(`${row.entityId}#${row.turn}`));
      return [
        ...this.hitsOf(within).map((hit) => ({ ...hit, inQueryTime: true })),
        ...this.hitsOf(others).map((hit) => ({ ...hit, inQueryTime: false })),
      ].slice(0, count);
    });
  }

  /** The time the query names, relative to now, or to the conversation's last turn when one is searched. */
  private queryTime(scope: TurnScope, query: string, options: TurnSearchOptions): QueryTime | undefined {
    const last = scope.conversationId === undefined ? undefined : this.turns.lastTime(scope);
    return timeInQuery(query, last ? new Date(last) : (options.now ?? new Date()));
  }

  /** Each row's session (read once per session) and turn. */
  private hitsOf(rows: readonly TurnRow[]): TurnHit[] {
    const sessions = new Map<string, SessionEntity | undefined>();
    return rows.flatMap((row) => {
      if (!sessions.has(row.entityId)) sessions.set(row.entityId, this.ctx.store.get(row.entityId) as SessionEntity);
      const session = sessions.get(row.entityId);
      const turn = session && turnsOf(session).find((each) => each.index === row.turn);
      if (!session || !turn) return [];
      const { id, agentId, userId, conversationId, startedAt } = session;
      return [
        {
          session: { id, agentId, userId, conversationId, startedAt },
          turn,
          score: row.relevance,
        },
      ];
    });
  }

  async listByConversation(
    agentId: string,
    userId: string | undefined,
    conversationId: string,
  ): Promise<SessionEntity[]> {
    const sessions = this.ctx.store.list({ ...this.filter(agentId, userId), conversationId: String(conversationId) });
    // Oldest first: a conversation reads in the order it happened.
    return (sessions as SessionEntity[]).reverse();
  }

  /** Conversations of an agent (and user), most recent first, with their session counts. */
  async listConversations(
    agentId: string,
    userId: string | undefined,
    options: PageOptions = {},
  ): Promise<Page<ConversationSummary>> {
    const page = assertPage(options);
    const filter = this.filter(agentId, userId);
    const userClause = filter.userId === undefined ? '' : ' AND user_id = ?';
    const params = filter.userId === undefined ? [filter.agentId] : [filter.agentId, filter.userId];
    const where = `type = 'session' AND deleted = 0 AND conversation_id IS NOT NULL AND agent_id = ?${userClause}`;
    const db = this.ctx.store.db;
    const total = Number(
      db.get(`SELECT count(DISTINCT conversation_id) AS n FROM refs WHERE ${where}`, ...params)?.n ?? 0,
    );
    const items = db
      .all(
        `SELECT conversation_id, count(*) AS n, max(created_at) AS latest FROM refs WHERE ${where}
         GROUP BY conversation_id ORDER BY latest DESC, conversation_id LIMIT ? OFFSET ?`,
        ...params,
        page.limit,
        page.offset,
      )
      .map((row) => ({
        conversationId: String(row.conversation_id),
        count: Number(row.n),
        latest: String(row.latest),
      }));
    return { items, total, limit: page.limit, offset: page.offset, hasMore: page.offset + items.length < total };
  }

  /** Marks a session as mined so the AI pipeline does not extract it twice. */
  async markMined(id: string) {
    return this.update(assertId(id), { mined: true });
  }
}

function timeBounds(options: TurnSearchOptions): { from?: string; to?: string } {
  const from = isoDateOrUndefined(options.from, 'from');
  const to = isoDateOrUndefined(options.to, 'to');
  if (from && to && from >= to) throw new MemoryError('INVALID_INPUT', `from (${from}) must be before to (${to}).`);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}
