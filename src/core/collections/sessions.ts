import type { ConversationSummary, Page, PageOptions, SessionEntity } from '../types';
import { assertId, assertPage } from '../validation';
import { Collection } from './collection';

export class SessionCollection extends Collection<'session'> {
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
