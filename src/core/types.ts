import type { CommitProvenance, Provenance } from './provenance';

/** The agent id whose skills, knowledge and profiles every agent may read. */
export const SHARED_AGENT_ID = '_shared';

export const ENTITY_TYPES = ['memory', 'skill', 'knowledge', 'session', 'profile'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** The types the shared scope holds; memories and sessions always belong to one agent. */
export const SHARED_TYPES: readonly EntityType[] = ['skill', 'knowledge', 'profile'];

/**
 * The agent id of the team scope: memories and skills kept as files in the
 * repository's team folder (see team/), shared by everyone who clones it and
 * read by every agent and user.
 */
export const TEAM_AGENT_ID = '_team';

/** The types the team scope holds, each in the team folder's folder of its name. */
export const TEAM_TYPES = ['memory', 'skill'] as const satisfies readonly EntityType[];
export type TeamType = (typeof TEAM_TYPES)[number];

/** Whether entities of `type` may be team memory. */
export const isTeamType = (type: EntityType): type is TeamType => (TEAM_TYPES as readonly EntityType[]).includes(type);

/**
 * The types search and recall look in, each with its own full-text index.
 * Profiles are fetched by user and sessions by conversation.
 */
export const SEARCHABLE_TYPES = ['memory', 'skill', 'knowledge'] as const;
export type SearchableType = (typeof SEARCHABLE_TYPES)[number];

export const MEMORY_CATEGORIES = ['fact', 'decision', 'issue', 'task', 'correction'] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

export const SKILL_CATEGORIES = ['procedure', 'configuration', 'troubleshooting', 'workflow'] as const;
export type SkillCategory = (typeof SKILL_CATEGORIES)[number];

export const SKILL_STATUSES = ['active', 'deprecated', 'draft'] as const;
export type SkillStatus = (typeof SKILL_STATUSES)[number];

export interface EntityBase {
  id: string;
  type: EntityType;
  agentId: string;
  userId?: string;
  createdAt: string;
  updatedAt: string;
}

/** Lines of a workspace file a memory or skill is about: a path and a line range (1-based, inclusive). */
export interface CitationRequest {
  /** Workspace-relative, `/`-separated; led by the folder's name in a multi-root workspace. */
  path: string;
  startLine: number;
  endLine: number;
  /** The symbol around the lines (a function, a class), where an editor knows it: `Rag.sync`. */
  symbol?: string;
}

/** A citation as stored: the lines and what they said when it was anchored (see anchors/citations.ts). */
export interface Citation extends CitationRequest {
  /** The cited lines as they were, at most 40 of them. */
  text: string;
  /** SHA-256 of all the cited lines with whitespace runs collapsed: what a check compares. */
  hash: string;
  /** The git commit the folder was at when the lines were cited, where it is a git repository. */
  commit?: string;
}

export interface MemoryEntity extends EntityBase {
  type: 'memory';
  content: string;
  tags: string[];
  category: MemoryCategory;
  sourceSession?: string;
  /** The memory this one corrects, which it retired (superseded). */
  supersedes?: string;
  citations?: Citation[];
  /** Globs of the files the memory is about (`src/**\/*.ts`), like Copilot's `applyTo`. */
  appliesTo?: string[];
}

export interface SkillEntity extends EntityBase {
  type: 'skill';
  content: string;
  tags: string[];
  category: SkillCategory;
  status: SkillStatus;
  citations?: Citation[];
  /** Globs of the files the skill is about. */
  appliesTo?: string[];
}

export interface KnowledgeEntity extends EntityBase, Omit<KnowledgeInput, 'tags'> {
  type: 'knowledge';
  tags: string[];
}

export interface SessionMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  /** Who spoke, where the role does not say (a person's name in a conversation between people). */
  name?: string;
  timestamp?: string;
}

export interface SessionEntity extends EntityBase {
  type: 'session';
  content: string;
  messages?: SessionMessage[];
  startedAt?: string;
  endedAt?: string;
  conversationId?: string;
  mined: boolean;
}

export interface ProfileEntity extends EntityBase {
  type: 'profile';
  content: string;
  metadata: Record<string, unknown>;
}

export type Entity = MemoryEntity | SkillEntity | KnowledgeEntity | SessionEntity | ProfileEntity;

export interface EntityByType {
  memory: MemoryEntity;
  skill: SkillEntity;
  knowledge: KnowledgeEntity;
  session: SessionEntity;
  profile: ProfileEntity;
}

/** What a caller supplies to create an entity: everything the store does not assign. */
export interface MemoryInput {
  content: string;
  tags?: string[];
  category?: MemoryCategory;
  sourceSession?: string;
  /** The id of the memory this one corrects: saving retires it (superseded) in the same transaction. */
  supersedes?: string;
  /** Code the memory is about: given as path and lines, stored with what the lines said. */
  citations?: (CitationRequest | Citation)[];
  /** Globs of the files the memory is about, workspace-relative (`src/**\/*.ts`, `*.md`). */
  appliesTo?: string[];
}
export interface SkillInput {
  content: string;
  tags?: string[];
  category?: SkillCategory;
  status?: SkillStatus;
  citations?: (CitationRequest | Citation)[];
  appliesTo?: string[];
}
export interface KnowledgeInput {
  content: string;
  tags?: string[];
  /** The document's title; searched with extra weight. */
  title?: string;
  source?: string;
  chunkIndex?: number;
  version?: string;
  questions?: string[];
  /** Document chunks: the headings above the chunk, its lines in the file, and the file's SHA-256. */
  headingPath?: string[];
  startLine?: number;
  endLine?: number;
  sourceHash?: string;
}
export interface SessionInput {
  content?: string;
  messages?: SessionMessage[];
  startedAt?: string;
  endedAt?: string;
  conversationId?: string;
  mined?: boolean;
}
export interface ProfileInput {
  content: string;
  metadata?: Record<string, unknown>;
}

export interface InputByType {
  memory: MemoryInput;
  skill: SkillInput;
  knowledge: KnowledgeInput;
  session: SessionInput;
  profile: ProfileInput;
}

/** The fields an update may change: the input fields, all optional. */
export type UpdateByType = { [T in EntityType]: Partial<InputByType[T]> };

export type CommitOp = 'create' | 'update' | 'delete' | 'import' | 'revert' | 'approve' | 'supersede' | 'reinstate';

/**
 * What a commit records besides its content, inside its hash: who made it,
 * and the review and correction links. Commits made before version 4 of the
 * store have none (their `by` is read back from the author).
 */
export interface CommitMeta {
  by: Provenance;
  /** Waiting for a person's approval (the entity is left out of search, recall and agent tools), or turned down. */
  review?: 'pending' | 'rejected';
  /** A pending proposal to change another entity, applied to it on approval. */
  proposes?: {
    action: 'update' | 'delete';
    target: string;
    /** The target's version (object hash) the proposal was made against: approval merges onto changes made since. */
    base?: string;
  };
  /** A proposal's change applied on approval: written as its writer's, approved by this person. */
  approvedBy?: Provenance;
  /** This version corrects that entity, which it retired. */
  supersedes?: string;
  /** This entity was retired by that correction. */
  supersededBy?: string;
}

export interface CommitInfo {
  /** SHA-256 of the commit's canonical serialization. */
  hash: string;
  entityId: string;
  parent: string | null;
  /** SHA-256 of the entity version; null on a tombstone (delete) commit. */
  object: string | null;
  time: string;
  author: string;
  message: string;
  op: CommitOp;
  /** Who made it; read back from `author` (and `legacy`) for commits older than provenance. */
  by: CommitProvenance;
  review?: CommitMeta['review'];
  proposes?: CommitMeta['proposes'];
  approvedBy?: Provenance;
  supersedes?: string;
  supersededBy?: string;
}

export interface HistoryEntry<E extends Entity = Entity> {
  commit: CommitInfo;
  /** The entity as of this commit; null for a delete. */
  entity: E | null;
}

export interface SaveItem<T extends EntityType> {
  agentId: string;
  userId?: string;
  input: InputByType[T];
}

export interface PageOptions {
  limit?: number;
  offset?: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface ConversationSummary {
  conversationId: string;
  count: number;
  latest: string;
}
