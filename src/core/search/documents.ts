import { sha256 } from '../store/hashing';
import type { VersionBody } from '../store/entity-store';
import type { EntityType } from '../types';
import { tokenize } from './tokenizer';

/** The terms one entity contributes to the full-text index, column by column. */
export interface SearchDocument {
  /** Type, agent and user tokens; only ever matched in this column. */
  scope: string[];
  content: string[];
  /** Distinct stemmed tag terms. */
  tags: string[];
  /** Category, status, source path, questions, conversation. */
  meta: string[];
}

/** Profiles are fetched by user, never searched; everything else is indexed. */
export const SEARCHABLE_TYPES: readonly EntityType[] = ['memory', 'skill', 'knowledge', 'session'];

// Scope tokens go in their own column and are only ever matched there, so
// they cannot collide with content terms. Ids are hashed because they may
// contain characters the FTS tokenizer would split on.
export const typeToken = (type: EntityType): string => `t${type}`;
export const agentToken = (agentId: string): string => `a${sha256(agentId).slice(0, 16)}`;
export const userToken = (userId: string): string => `u${sha256(userId).slice(0, 16)}`;
/** Marks entities without a user, so "this user's or nobody's" can be asked. */
export const NO_USER_TOKEN = 'unone';

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((item) => typeof item === 'string').join('\n');
  return '';
}

export function documentFor(body: VersionBody): SearchDocument | null {
  if (!SEARCHABLE_TYPES.includes(body.type)) return null;
  const messages = Array.isArray(body.messages)
    ? (body.messages as { content?: unknown }[]).map((message) => text(message.content))
    : [];
  const meta = [body.category, body.status, body.source, text(body.questions), body.conversationId].map(text);
  return {
    scope: [
      typeToken(body.type),
      agentToken(body.agentId),
      body.userId === undefined ? NO_USER_TOKEN : userToken(body.userId),
    ],
    content: tokenize([text(body.content), ...messages].join('\n')),
    tags: [...new Set(tokenize(text(body.tags)))],
    meta: tokenize(meta.join('\n')),
  };
}

/** A document's length for BM25: its searchable terms (scope tokens excluded). */
export function documentLength(doc: SearchDocument): number {
  return doc.content.length + doc.tags.length + doc.meta.length;
}
