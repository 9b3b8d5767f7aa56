// fs.promises, not node:fs/promises: Node loads it on first use, not when the worker starts.
import { promises as fs } from 'node:fs';
import type { Memory } from '../../core/memory';
import {
  ENTITY_TYPES,
  SHARED_AGENT_ID,
  SHARED_TYPES,
  type CommitInfo,
  type Entity,
  type EntityType,
  type HistoryEntry,
} from '../../core/types';

/** An import's JSON must fit in one string to be parsed at all. */
const IMPORT_MAX_BYTES = bufferConstants.MAX_STRING_LENGTH;

import { constants as bufferConstants } from 'node:buffer';
import { readBoundedSync } from '../../core/bounded-read';
import { MemoryError } from '../../core/errors';
import type { SearchResult } from '../../core/search/searcher';
import type { OperationResult, OperationScope } from '../../core/operations/types';
import { lazy } from '../../core/lazy';

type Catalogue = typeof import('../../core/operations/catalogue');
// Required on first use, not imported: the catalogue builds every operation's
// schema when it loads, and the worker should not wait for that before the
// store opens.
const loadCatalogue = lazy(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): Catalogue => require('../../core/operations/catalogue') as Catalogue,
);

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
     * Memories, skills and knowledge matching `query`, best first, without
     * counting an access (this serves a picker that searches as you type).
     */
    async searchAll(agentId: string, userId: string | undefined, query: string, limit: number) {
      const lists: SearchResult<Entity>[][] = await Promise.all([
        memory.memories.search(agentId, userId, query, limit),
        memory.skills.search(agentId, query, limit, { includeShared: true }),
        memory.knowledge.search(agentId, query, limit, { includeShared: true }),
      ]);
      return lists
        .flat()
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    },

    /** Runs a catalogue operation offered as a language model tool, in the host's scope. */
    async operation(name: string, scope: OperationScope, args: unknown): Promise<OperationResult> {
      return loadCatalogue().runOperation({ store: memory, scope }, name, args, 'tool');
    },

    /** Writes the portable export to a file; returns how many entities it holds. */
    async exportTo(file: string): Promise<{ entities: number; bytes: number }> {
      const data = await memory.export();
      const text = JSON.stringify(data);
      await fs.writeFile(file, text, 'utf8');
      const entities = Object.values(data.entities).reduce((sum, list) => sum + list.length, 0);
      return { entities, bytes: Buffer.byteLength(text) };
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
