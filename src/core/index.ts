/**
 * The Workspace Memory library: everything the extension, the CLI and the
 * MCP server build on, usable from plain Node.js 22.13+.
 */
export {
  type AppliedMerge,
  applyConsolidationPlan,
  consolidate,
  type ConsolidationCollection,
  type ConsolidationOptions,
  type ConsolidationPlan,
  type ConsolidationReport,
  type ConsolidationStore,
  type ConsolidationTarget,
  planConsolidation,
  type PlannedDeletion,
  type PlannedMerge,
  type RejectedAction,
} from './ai/consolidation';
export { type Embedder, OpenAiCompatibleEmbedder, type OpenAiCompatibleEmbedderOptions } from './ai/embedder';
export {
  applyMiningPlan,
  type MinedEntity,
  type MinedUpdate,
  mineSession,
  type MiningOptions,
  type MiningPlan,
  type MiningReport,
  type MiningSkip,
  type MiningStore,
  planMining,
  type PlannedItem,
} from './ai/mining';
export type { AiProvider, ChatMessage, OpenAiCompatibleChatOptions } from './ai/provider';
export { OpenAiCompatibleChat } from './ai/provider';
export { askStructured, extractJson, type ReplyCheck, type StructuredRequest } from './ai/structured';
export { anchorCitation, checkCitation, type CitationCheck, type CitationState, CitedFiles } from './anchors/citations';
export type {
  CitationCheckOptions,
  CitationReport,
  CitationStatus,
  CitedEntityReport,
  CitingEntity,
} from './anchors/staleness';
export type { WorkspaceFolder } from './anchors/workspace-paths';
export type { Collection } from './collections/collection';
export type { ProfileCollection } from './collections/profiles';
export type { AgentScopedCollection, DedupResult, MemoryCollection } from './collections/searchable';
export type { SessionCollection } from './collections/sessions';
export { isMemoryError, MemoryError, type MemoryErrorCode } from './errors';
export type { MemoryEventHandler, MemoryEventName, MemoryEvents } from './events';
// Import from and export to other agent tools' files (issue #15).
export * from './interop';
export type { CleanupOptions, CleanupReport, StoreStats } from './maintenance';
export { Memory, type MemoryOptions, STORE_FILE } from './memory';
export type { Middleware } from './middleware';
export type { CollectionName, ExportData, ImportOptions, ImportReport } from './portable';
export {
  type CommitProvenance,
  describeProvenance,
  type LegacyProvenance,
  type Provenance,
  withProvenance,
  WRITER_KINDS,
  type WriterKind,
} from './provenance';
export type { Rag, RagQueryResult, RagStatus, SyncOptions, SyncProgress, SyncReport } from './rag/rag';
export type { RecallCollection, RecallItem, RecallOptions, RecallResult } from './recall/recall';
export type { BackfillOptions, BackfillReport, Embeddings } from './search/hybrid';
export type { ScoreExplanation, ScoringOptions } from './search/scoring';
export type { FusionExplanation } from './search/scoring';
export { DEFAULT_SCORING } from './search/scoring';
export type { SearchOptions, SearchResult } from './search/searcher';
export type { SynonymMap } from './search/synonyms';
export type { RestoredSnapshot, SnapshotInfo } from './snapshots/manifests';
export { RESTORE_PREVIEW_IDS, type RestoreChange, type RestorePreview } from './snapshots/preview';
export { restoreUnopenableStore } from './snapshots/rebuild';
export { sqliteAvailable } from './sqlite';
export type { RevertFilter, RevertItem, RevertReport } from './trust/revert';
export type { PendingItem, ReviewFilter, ReviewOutcome } from './trust/review';
export type { Review } from './trust/review';
export { DEFAULT_REVIEW, type ReviewMode, type ReviewPolicy } from './trust/review-policy';
export type { UnusedEntity, UnusedReport } from './trust/unused';
export * from './types';
export { LIMITS } from './validation';
export type { VerifyError, VerifyErrorCode, VerifyReport } from './verify';
// The operations the chat tools, the MCP server and the CLI's `call` share: other hosts can offer the same.
export * from './operations';
