// fs.promises, not node:fs/promises: Node loads it on first use, not when the worker starts.
import { promises as fs } from 'node:fs';

import type { Memory } from '../../core/memory';
import {
  type CommitInfo,
  type Entity,
  ENTITY_TYPES,
  type EntityType,
  type HistoryEntry,
  SHARED_AGENT_ID,
  SHARED_TYPES,
  TEAM_AGENT_ID,
} from '../../core/types';

/** An import's JSON must fit in one string to be parsed at all. */
const IMPORT_MAX_BYTES = bufferConstants.MAX_STRING_LENGTH;

import { constants as bufferConstants } from 'node:buffer';

import type { AiProvider } from '../../core/ai/provider';
import { isNoSpace, writeFileAtomicSync } from '../../core/atomic-file';
import { readBoundedSync } from '../../core/bounded-read';
import type { CategorizedType } from '../../core/collections/groups';
import { type Found, searchEverything } from '../../core/collections/search-all';
import { isMemoryError, MemoryError, type MemoryErrorCode } from '../../core/errors';
import type * as InteropModule from '../../core/interop';
import type {
  DetectedSource,
  ImportFormat,
  ImportFromReport,
  ImportProgress,
  ToolExportOptions,
  ToolExportReport,
} from '../../core/interop';
import { lazy } from '../../core/lazy';
// A type only: erased, so the catalogue is still required on first use (below), not when the worker starts.
import type * as CatalogueModule from '../../core/operations/catalogue';
import type { OperationResult, OperationScope } from '../../core/operations/types';
import { assertOutsideStore } from '../../core/paths';
import type { RestorePreview } from '../../core/snapshots/preview';

type Catalogue = typeof CatalogueModule;
type Interop = typeof InteropModule;
// Required on first use, not imported: the catalogue builds every operation's
// schema when it loads, and the worker should not wait for that before the
// store opens.
const loadCatalogue = lazy(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): Catalogue => require('../../core/operations/catalogue') as Catalogue,
);

// Required on first use too: the worker opens the store without loading every other tool's file format.
const loadInterop = lazy(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): Interop => require('../../core/interop') as Interop,
);

/** What other agent tools keep in each workspace folder, and what detection looks for (for "nothing found"). */
export interface DetectedSources {
  folders: { root: string; sources: DetectedSource[] }[];
  looksFor: { format: ImportFormat; label: string; reads: string; detectable: boolean }[];
}

/** One source to import: a format's file or folder, workspace-relative, in the workspace folder `root`. */
export interface SourceRequest {
  root: string;
  format: ImportFormat;
  path: string;
}

/** An import's progress through several sources: which one (from 0), of how many, and how far in it. */
export interface SourcesProgress extends ImportProgress {
  source: number;
  sources: number;
}

/** What became of one source: its report, or why it could not be imported at all (the others still were). */
export type SourceOutcome =
  | { request: SourceRequest; report: ImportFromReport }
  | { request: SourceRequest; error: { message: string; code?: MemoryErrorCode } };

export interface SourcesImport {
  outcomes: SourceOutcome[];
  /** Stopped by its signal: the sources before the one it stopped in were imported, that one and the rest not. */
  cancelled: boolean;
}

/** How many of what an export can select there are, by category and by tag. */
export interface ExportChoices {
  categories: { name: string; count: number }[];
  tags: { name: string; count: number }[];
  /** The team folder's memories and skills. */
  team: number;
}

/** A folder of documents (its path, '' for the top level) with how many documents and chunks it holds. */
export interface DocumentFolder {
  folder: string;
  documents: number;
  chunks: number;
}

/** One page of a group, and how many the group holds in all. */
export interface GroupPage<T> {
  items: T[];
  total: number;
}

/** The folder part of a document's path ('' at the top level). */
export function folderOf(source: string): string {
  const slash = source.lastIndexOf('/');
  return slash < 0 ? '' : source.slice(0, slash);
}

/** Live entities by id, in the order given (one missing since the ids were read is left out). */
async function entitiesOf(memory: Memory, ids: readonly string[]): Promise<Entity[]> {
  const entities: Entity[] = [];
  for (const id of ids) {
    const entity = await memory.get(id);
    if (entity) entities.push(entity);
  }
  return entities;
}

/**
 * Methods the worker offers beyond the facade's own: each runs next to the
 * database so that bulky data (an export, a search across collections) never
 * has to cross the thread boundary in pieces.
 */
export function workerMethods(memory: Memory) {
  return {
    /** The entity as of one commit of its history, by hash or hash prefix (entity null for a delete commit). */
    async entityAt(id: string, commitHash: string): Promise<HistoryEntry | null> {
      const history = await memory.history(id);
      return history.find((entry) => entry.commit.hash.startsWith(commitHash)) ?? null;
    },

    /**
     * How many live entities of each type the agent has, and how many the
     * shared scope holds (skills, knowledge, profiles): the views' and the
     * status bar's counts in one round trip, from the scope index, without
     * the table scans of stats().
     */
    async scopeCounts(agentId: string): Promise<Record<EntityType, { own: number; shared: number }>> {
      const counts = {} as Record<EntityType, { own: number; shared: number }>;
      for (const type of ENTITY_TYPES) {
        const collection = memory.collection(type);
        counts[type] = {
          own: await collection.count(agentId),
          shared: SHARED_TYPES.includes(type) ? await collection.count(SHARED_AGENT_ID) : 0,
        };
      }
      return counts;
    },

    /**
     * An entity's commits, newest first, with whether each made a version
     * (a delete does not), and its latest version: what the History view
     * shows, without shipping every version of a long session to the host.
     */
    async historyOutline(
      id: string,
    ): Promise<{ commits: { commit: CommitInfo; hasVersion: boolean }[]; latest: Entity | null }> {
      const history = await memory.history(id);
      return {
        commits: history.map((entry) => ({ commit: entry.commit, hasVersion: entry.entity !== null })),
        latest: history.find((entry) => entry.entity)?.entity ?? null,
      };
    },

    /**
     * Memories, skills, knowledge and turns of past conversations matching
     * `query`, best first, in one round trip and without counting an access
     * (this serves a picker that searches as you type).
     */
    async searchAll(agentId: string, userId: string | undefined, query: string, limit: number): Promise<Found[]> {
      return searchEverything(memory, agentId, userId, query, limit);
    },

    /** Live memories or skills per category and user: the Collections view's groups. */
    async categoryGroups(type: CategorizedType, agentId: string) {
      return memory.groups.categoryCounts(type, agentId);
    },

    /** One page of a category's entities (for one user, or those without one), newest first. */
    async categoryEntities(
      type: CategorizedType,
      agentId: string,
      category: string,
      userId: string | null,
      offset: number,
      limit: number,
    ): Promise<Entity[]> {
      return entitiesOf(memory, memory.groups.categoryPage(type, agentId, category, userId, offset, limit));
    },

    /**
     * The folders of the agent's documents, with how many documents and
     * chunks each holds, by path, plus the knowledge without a document:
     * twenty thousand chunks become a few hundred rows here, not on the host.
     */
    async documentFolders(agentId: string): Promise<{ folders: DocumentFolder[]; loose: number }> {
      const byFolder = new Map<string, DocumentFolder>();
      for (const { source, chunks } of memory.groups.documentCounts(agentId)) {
        const folder = folderOf(source);
        const entry = byFolder.get(folder) ?? { folder, documents: 0, chunks: 0 };
        entry.documents += 1;
        entry.chunks += chunks;
        byFolder.set(folder, entry);
      }
      const folders = [...byFolder.values()].sort((a, b) => a.folder.localeCompare(b.folder));
      return { folders, loose: memory.groups.looseKnowledgeCount(agentId) };
    },

    /** One page of the documents directly in `folder`, by path, with their chunk counts. */
    async folderDocuments(
      agentId: string,
      folder: string,
      offset: number,
      limit: number,
    ): Promise<GroupPage<{ source: string; chunks: number }>> {
      const documents = memory.groups.documentCounts(agentId).filter((doc) => folderOf(doc.source) === folder);
      return { items: documents.slice(offset, offset + limit), total: documents.length };
    },

    /** One page of a document's chunks, in chunk order. */
    async documentChunks(agentId: string, source: string, offset: number, limit: number): Promise<Entity[]> {
      return entitiesOf(memory, memory.groups.documentChunkPage(agentId, source, offset, limit));
    },

    /** One page of the agent's knowledge without a document, newest first. */
    async looseKnowledge(agentId: string, offset: number, limit: number): Promise<Entity[]> {
      return entitiesOf(memory, memory.groups.looseKnowledgePage(agentId, offset, limit));
    },

    /** What restoring a snapshot would change, counted next to the database (see Snapshots.compare). */
    async restorePreview(snapshotId: string): Promise<RestorePreview> {
      return memory.restorePreview(snapshotId);
    },

    /**
     * Runs a catalogue operation offered as a language model tool, in the
     * host's scope; with the host's model when the call was made with one
     * (see MODEL_METHODS), for the reasoning an agent asks for.
     */
    async operation(
      name: string,
      scope: OperationScope,
      args: unknown,
      options: { ai?: AiProvider; signal?: AbortSignal } = {},
    ): Promise<OperationResult> {
      return loadCatalogue().runOperation({ store: memory, scope, ...options }, name, args, 'tool');
    },

    /**
     * Writes the portable export to a file; returns how many entities it holds.
     * Written beside the file and renamed over it, so a full disk leaves the
     * previous export whole (see writeFileAtomicSync). The user picked the
     * path in a save dialog, so a symlink there is followed: its target is
     * replaced and the link kept, as writing through it used to do.
     */
    async exportTo(file: string): Promise<{ entities: number; bytes: number }> {
      assertOutsideStore(memory.dir, file);
      const data = await memory.export();
      const text = JSON.stringify(data);
      let target = file;
      try {
        target = await fs.realpath(file);
      } catch {
        // Not there yet: written under the name given.
      }
      try {
        writeFileAtomicSync(target, text);
      } catch (error) {
        if (isNoSpace(error)) {
          throw new MemoryError(
            'STORE_FULL',
            `Cannot write ${file}: the disk holding it is full; nothing was changed there. Free some space, or pick a file on another disk, and try again.`,
            { cause: error },
          );
        }
        throw error;
      }
      const entities = Object.values(data.entities).reduce((sum, list) => sum + list.length, 0);
      return { entities, bytes: Buffer.byteLength(text) };
    },

    /** What other agent tools keep in each folder (see detectSources); a long operation (TASK_METHODS). */
    async detectSources(roots: string[], options: { signal?: AbortSignal } = {}): Promise<DetectedSources> {
      const interop = loadInterop();
      const folders: DetectedSources['folders'] = [];
      for (const root of roots) folders.push({ root, sources: await interop.detectSources(root, options) });
      return { folders, looksFor: interop.describeFormats() };
    },

    /**
     * Imports the sources one after another into the scope's memory (see
     * importFrom); a long operation (TASK_METHODS). One that cannot be
     * imported at all (gone since it was detected) is reported and the rest
     * still are; a cancel stops at the source it happens in.
     */
    async importSources(
      requests: SourceRequest[],
      scope: { agentId: string; userId?: string },
      options: {
        dryRun?: boolean;
        prune?: boolean;
        signal?: AbortSignal;
        onProgress?: (progress: SourcesProgress) => void;
      } = {},
    ): Promise<SourcesImport> {
      const interop = loadInterop();
      const outcomes: SourceOutcome[] = [];
      for (const [index, request] of requests.entries()) {
        if (options.signal?.aborted) return { outcomes, cancelled: true };
        try {
          const report = await interop.importFrom(memory, {
            format: request.format,
            path: request.path,
            workspaceRoot: request.root,
            ...scope,
            dryRun: options.dryRun,
            prune: options.prune,
            signal: options.signal,
            onProgress: (progress) => options.onProgress?.({ ...progress, source: index, sources: requests.length }),
          });
          outcomes.push({ request, report });
        } catch (error) {
          if (isMemoryError(error, 'CANCELLED')) return { outcomes, cancelled: true };
          if (!isMemoryError(error)) throw error;
          outcomes.push({ request, error: { message: error.message, code: error.code } });
        }
      }
      return { outcomes, cancelled: false };
    },

    /** Writes (or, dry, previews) memories and skills where another tool reads them (see exportForTool). */
    async exportForTool(options: ToolExportOptions): Promise<ToolExportReport> {
      return loadInterop().exportForTool(memory, options);
    },

    /**
     * The categories and tags of the agent's workspace-wide memories and
     * skills and the team's (what an export offers to pick from), counted
     * here rather than by sending every entity to the host.
     */
    async exportChoices(agentId: string): Promise<ExportChoices> {
      const categories = new Map<string, number>();
      const tags = new Map<string, number>();
      let team = 0;
      for (const agent of [agentId, TEAM_AGENT_ID]) {
        const entities = [...(await memory.memories.list(agent)), ...(await memory.skills.list(agent))];
        for (const entity of entities.filter((candidate) => candidate.userId === undefined)) {
          if (agent === TEAM_AGENT_ID) team++;
          categories.set(entity.category, (categories.get(entity.category) ?? 0) + 1);
          for (const tag of entity.tags) tags.set(tag, (tags.get(tag) ?? 0) + 1);
        }
      }
      const counts = (map: Map<string, number>) =>
        [...map]
          .map(([name, count]) => ({ name, count }))
          .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
      return { categories: counts(categories), tags: counts(tags), team };
    },

    async importFrom(file: string, options: { skipExisting?: boolean }) {
      let data: unknown;
      try {
        // Bounded, regular files only: a device or FIFO picked by mistake must not hang the store's thread.
        const read = readBoundedSync(file, IMPORT_MAX_BYTES);
        if (read.kind === 'not-a-file') throw new Error('it is not a regular file');
        if (read.kind === 'too-large') throw new Error('it is larger than the largest text that can be parsed');
        data = JSON.parse(read.bytes.toString('utf8'));
      } catch (error) {
        throw new MemoryError('IMPORT_INVALID', `${file} is not a readable JSON export: ${(error as Error).message}`);
      }
      return memory.import(data, options);
    },
  };
}

export type WorkerMethods = ReturnType<typeof workerMethods>;
