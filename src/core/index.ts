/**
 * The Workspace Memory library: everything the extension, the CLI and the
 * MCP server build on, usable from plain Node.js 22.13+.
 */
export { Memory, STORE_FILE, type MemoryOptions } from './memory';
export { MemoryError, isMemoryError, type MemoryErrorCode } from './errors';
export type { MemoryEvents, MemoryEventName, MemoryEventHandler } from './events';
export type { Middleware } from './middleware';
export type { SnapshotInfo } from './snapshots';
export type { VerifyReport, VerifyError, VerifyErrorCode } from './verify';
export type { ExportData, ImportOptions, ImportReport, CollectionName } from './portable';
export type { CleanupOptions, CleanupReport, StoreStats } from './maintenance';
export type { Collection } from './collections/collection';
export type { AgentScopedCollection, MemoryCollection, DedupResult } from './collections/searchable';
export type { SearchOptions, SearchResult } from './search/searcher';
export type { ScoringOptions, ScoreExplanation } from './search/scoring';
export { DEFAULT_SCORING } from './search/scoring';
export type { SynonymMap } from './search/synonyms';
export type { SessionCollection } from './collections/sessions';
export type { ProfileCollection } from './collections/profiles';
export type { RecallOptions, RecallResult, RecallItem, RecallCollection } from './recall/recall';
export { OpenAiCompatibleEmbedder, type Embedder, type OpenAiCompatibleEmbedderOptions } from './ai/embedder';
export type { Embeddings, BackfillOptions, BackfillReport } from './search/hybrid';
export type { FusionExplanation } from './search/scoring';
export type { AiProvider, ChatMessage, OpenAiCompatibleChatOptions } from './ai/provider';
export { OpenAiCompatibleChat } from './ai/provider';
export type { Rag, SyncOptions, SyncReport, RagQueryResult, RagStatus } from './rag/rag';
export { LIMITS } from './validation';
export { sqliteAvailable } from './sqlite';
export * from './types';
export { askStructured, extractJson, type StructuredRequest, type ReplyCheck } from './ai/structured';
export {
  mineSession,
  planMining,
  applyMiningPlan,
  type MiningStore,
  type MiningOptions,
  type MiningPlan,
  type MiningReport,
  type MiningSkip,
  type PlannedItem,
  type MinedEntity,
  type MinedUpdate,
} from './ai/mining';
export {
  consolidate,
  planConsolidation,
  applyConsolidationPlan,
  type ConsolidationStore,
  type ConsolidationCollection,
  type ConsolidationOptions,
  type ConsolidationPlan,
  type ConsolidationReport,
  type ConsolidationTarget,
  type PlannedMerge,
  type PlannedDeletion,
  type RejectedAction,
  type AppliedMerge,
} from './ai/consolidation';
// The operations the chat tools, the MCP server and the CLI's `call` share: other hosts can offer the same.
export * from './operations';
