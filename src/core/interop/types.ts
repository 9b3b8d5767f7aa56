import type { MemoryErrorCode } from '../errors';
import type { MemoryCategory, SkillCategory, SkillStatus } from '../types';

/**
 * The shapes interop's parts pass to each other and to callers: what other
 * agent tools remember, read as memories and skills (issue #15), and what an
 * import did with each.
 */

/** The tools and files an import reads, by the name `import --from` takes. */
export const IMPORT_FORMATS = [
  'copilot',
  'copilot-memory',
  'claude',
  'claude-memory',
  'cursor',
  'windsurf',
  'cline',
  'mcp-memory',
  'repomemory',
  'aipack',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Memories and skills are what other tools' rules and notes become; nothing else is imported. */
export type ImportedType = 'memory' | 'skill';

/** Whose memory an import writes to (or an export reads from). */
export interface InteropScope {
  agentId: string;
  /** Left out: the agent's workspace-wide memory, which every user sees (what a repository's rules are). */
  userId?: string;
}

/** One memory or skill found in a source, before it is compared with the store. */
export interface FoundItem {
  type: ImportedType;
  content: string;
  tags: string[];
  category: MemoryCategory | SkillCategory;
  status?: SkillStatus;
  appliesTo?: string[];
  /** The file it was read from, workspace-relative with `/`. */
  path: string;
  /** 1-based lines in that file, where the source has lines. */
  line?: number;
  endLine?: number;
  /**
   * What its id is derived from, with `key`: the file for Markdown and graphs
   * (a moved file is another source), the format for stores whose entries
   * carry ids of their own (an export renamed is the same entries).
   */
  group: string;
  /** Its place within the group: a heading path and occurrence, an entity's name, an entry's id. */
  key: string;
  /** An id of this store the source carries (a generated block, a graph this store wrote): kept as it is. */
  storeId?: string;
  /** How a report names it: a heading, a name, the first words. */
  title: string;
}

/** A file, line or entry that could not be read; the rest of the source still imports. */
export interface SourceProblem {
  path: string;
  line?: number;
  message: string;
}

/** Something a source holds that is deliberately not imported, and why. */
export interface SkippedFind {
  path: string;
  line?: number;
  title: string;
  reason: string;
}

/** What an import does, or in a dry run would do, with one item. */
export type ItemAction = 'create' | 'update' | 'unchanged' | 'skip' | 'error' | 'remove';

export interface ItemOutcome {
  /** Left out for what a source holds that is not an item (a session of a RepoMemory export, an import leading outside). */
  id?: string;
  type?: ImportedType;
  title: string;
  /** `path:line`, or the path alone. */
  source: string;
  action: ItemAction;
  /** Why it is skipped, refused or removed, or what else there is to know (a secret in it). */
  reason?: string;
}

/** A problem of the import, per item or per file, never holding a secret. */
export interface ImportProblem {
  source: string;
  line?: number;
  message: string;
  /** The MemoryError code when the store refused the item (SECRET_DETECTED, INVALID_INPUT…). */
  code?: MemoryErrorCode;
  id?: string;
}

export interface ImportProgress {
  phase: 'reading' | 'planning' | 'writing';
  done: number;
  total: number;
}

export interface ImportFromReport {
  format: ImportFormat;
  /** The path imported, workspace-relative ('' for the workspace folder itself). */
  path: string;
  dryRun: boolean;
  created: number;
  updated: number;
  unchanged: number;
  /** Found but not written: already there under another version, deleted here, a duplicate, not a memory. */
  skipped: number;
  /** Imported before from a file read whole this time, and no longer in it: deleted (in a dry run, would be). */
  removed: number;
  errors: ImportProblem[];
  /** Every item found, with what was done with it, in the order of the sources. */
  items: ItemOutcome[];
  /** The files read, workspace-relative. */
  files: string[];
}

/** One place in a workspace that holds something an import takes, for a person to pick from. */
export interface DetectedSource {
  format: ImportFormat;
  /** Workspace-relative: a file, or a folder for stores kept as several files. */
  path: string;
  /** How many memories and skills importing it would give. */
  items: number;
  /** Lines, entries or files of it that cannot be read (the first is in `problem`). */
  problems: number;
  problem?: string;
}
