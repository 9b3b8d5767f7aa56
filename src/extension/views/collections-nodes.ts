import type { StaleNote } from '../../core/anchors/staleness';
import type { CategorizedType } from '../../core/collections/groups';
import type { TeamFileProblem } from '../../core/team/format';
import type { TeamGitState } from '../../core/team/git';
import type { PendingItem } from '../../core/trust/review';
import type { Entity, EntityType } from '../../core/types';
import type { RemoteMemory } from '../store/client';

/* The rows of the Collections view (see collections-tree.ts), and the key each paged group goes by. */

/** A group whose rows are paged: its "Show more" row names it by this key. */
export type Paged = Extract<
  CollectionNode,
  { kind: 'pending' | 'superseded' | 'unused' | 'scope' | 'category' | 'user' | 'folder' | 'document' | 'loose' }
>;

/** A memory a correction retired, and the id of the correction. */
type Retired = Awaited<ReturnType<RemoteMemory['memories']['superseded']>>[number];

export type CollectionNode =
  /** The writes waiting for review, at the top while there are any. */
  | { kind: 'pending'; agentId: string; count: number }
  /** One write waiting for review: what it would store, who wrote it, what it would change. */
  | ({ kind: 'pendingItem' } & PendingItem)
  /** The memories and skills whose cited code changed or is gone, after Pending Review while there are any. */
  | { kind: 'stale'; count: number }
  /** Memories and skills nothing used for `days` days (workspaceMemory.review.unusedDays), listed for review. */
  | { kind: 'unused'; agentId: string; days: number; count: number }
  /** One of them, and when it was last used (never, when undefined). */
  | { kind: 'unusedItem'; entity: Entity; lastWritten: string; lastUsed?: string }
  /** The team folder's memories and skills (`count`), and the files it did not take in (`problems`). */
  | { kind: 'team'; count: number; problems: number }
  /** A team memory or skill: its file (relative to the team folder) and the file's git state. */
  | { kind: 'teamItem'; entity: Entity; file: string; folder: string; state: TeamGitState }
  /** A team file the store did not take in, with why and how to fix it. */
  | { kind: 'teamProblem'; file: string; folder: string; problem: TeamFileProblem }
  /** The memories and skills that cite the file in the active editor or whose appliesTo globs match it. */
  | { kind: 'thisFile'; path: string; entities: Entity[] }
  /** One of them, with which citations changed. */
  | { kind: 'staleItem'; entity: Entity; note: StaleNote }
  | { kind: 'type'; type: EntityType; count: number }
  | { kind: 'scope'; type: EntityType; agentId: string; count: number }
  /** What an empty type group shows instead of a lone "0" row: how to add the first one. */
  | { kind: 'empty'; type: EntityType }
  /** Memories or skills of one category; `users` are the users it has items for (null: none). */
  | {
      kind: 'category';
      type: CategorizedType;
      agentId: string;
      category: string;
      count: number;
      users: (string | null)[];
    }
  /** The items of a category for one user, or those without a user (null). */
  | { kind: 'user'; type: CategorizedType; agentId: string; category: string; userId: string | null; count: number }
  /** A folder of documents (its path; '' is the top level). */
  | { kind: 'folder'; agentId: string; folder: string; documents: number; chunks: number }
  | { kind: 'document'; agentId: string; source: string; chunks: number }
  /** Knowledge without a document (saved by hand). */
  | { kind: 'loose'; agentId: string; count: number }
  /** The memories of a scope that corrections retired, after its categories while there are any. */
  | { kind: 'superseded'; agentId: string; items: Retired[] }
  /**
   * A retired memory: `version` is the commit that wrote the content it
   * keeps (its document opens there, read-only), `correction` the memory
   * that retired it, as last stored (null: no longer in this store).
   */
  | { kind: 'supersededItem'; entity: Entity; version: string; correction: { id: string; entity: Entity | null } }
  | { kind: 'entity'; entity: Entity }
  | { kind: 'more'; key: string; shown: number; total: number };

/** The key a group's "Show more" row and its page size go by. */
export function groupKey(node: Paged): string {
  switch (node.kind) {
    case 'pending':
      return `pending/${node.agentId}`;
    case 'superseded':
      return `superseded/${node.agentId}`;
    case 'unused':
      return `unused/${node.agentId}`;
    case 'scope':
      return `scope/${node.type}/${node.agentId}`;
    case 'category':
      return `category/${node.type}/${node.agentId}/${node.category}`;
    case 'user':
      return `user/${node.type}/${node.agentId}/${node.category}/${node.userId ?? ''}`;
    case 'folder':
      return `folder/${node.agentId}/${node.folder}`;
    case 'document':
      return `document/${node.agentId}/${node.source}`;
    case 'loose':
      return `loose/${node.agentId}`;
  }
}
