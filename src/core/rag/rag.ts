import { resolve } from 'node:path';

import type { AiProvider } from '../ai/provider';
import { MemoryError } from '../errors';
import type { SearchResult } from '../search/searcher';
import type { SecretPolicy } from '../secrets/guard';
import { quoteEntity, STORED_DATA_NOTICE } from '../trust/framing';
import type { KnowledgeEntity, KnowledgeInput } from '../types';
import { assertId, assertLimit } from '../validation';
import { planChunks, type StoredChunk } from './chunk-matching';
import { checkChunkOptions, chunkDocument, type ChunkOptions } from './chunkers';
import {
  listDocuments,
  type ListedFile,
  type ListResult,
  type LoadedFile,
  type LoadOptions,
  probeDocuments,
  readDocument,
  type SkippedFile,
} from './loader';
import type { DocumentScope, FileStamp } from './state';
import { type SyncProgress, SyncProgressCounter } from './sync-progress';

export type { SyncProgress } from './sync-progress';

/** What RAG needs from the store, and nothing more. */
export interface RagStore {
  saveChunks(agentId: string, inputs: KnowledgeInput[]): Promise<void>;
  /** Gives a chunk new content; false when it already had exactly that (no version is made). */
  updateChunk(id: string, input: KnowledgeInput): Promise<boolean>;
  deleteChunks(ids: string[]): Promise<void>;
  /** The document's current chunk ids, in chunk order. */
  chunksOf(agentId: string, source: string): string[];
  /** The document's current chunks with what they hold, in chunk order (see chunk-matching.ts). */
  storedChunks(agentId: string, source: string): StoredChunk[];
  /** Chunks of the document that repeat a place another one holds, given how many it should have (see state.ts). */
  surplusChunks(agentId: string, source: string, expected: number): string[];
  /** Live chunks per document sync knows. */
  chunkCounts(agentId: string): Map<string, number>;
  /** The documents sync knows (all, or those in `scope`) that have a live chunk. */
  liveDocuments(agentId: string, scope?: DocumentScope): Set<string>;
  stamps(agentId: string, scope?: DocumentScope): Map<string, FileStamp>;
  saveStamps(agentId: string, stamps: FileStamp[], removed: string[]): void;
  search(agentId: string, query: string, limit: number): Promise<SearchResult<KnowledgeEntity>[]>;
}

export interface SyncOptions extends LoadOptions, ChunkOptions {
  /** Follows the whole sync, reading and writing (see SyncProgress). */
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Names the documents `prefix/relative/path` instead of `relative/path`
   * (chunk sources and sync stamps alike), so several folders (a multi-root
   * workspace) share one agent without mixing: a sync with a prefix only
   * ever touches documents under that prefix.
   */
  sourcePrefix?: string;
  /**
   * Reads and chunks every listed file again, even unchanged ones: after a
   * change of `strategy`, `maxChars` or `overlap`, which a sync by content
   * hash would otherwise apply only to files that change.
   */
  rechunk?: boolean;
}

export interface SyncReport {
  root: string;
  /** Relative paths, POSIX style. */
  added: string[];
  updated: string[];
  removed: string[];
  renamed: { from: string; to: string }[];
  unchanged: number;
  chunks: { added: number; updated: number; removed: number };
  /** Files that could not be ingested, each with the reason; the others went ahead. */
  skipped: SkippedFile[];
  cancelled: boolean;
}

export interface RagQueryResult {
  chunks: { entity: KnowledgeEntity; score: number; citation: string }[];
  /** The chunks as a Markdown block, each headed by its number and citation. */
  context: string;
  /** Present when an AiProvider was given: an answer grounded in the context, citing it. */
  answer?: string;
}

export interface RagStatus {
  agentId: string;
  files: number;
  chunks: number;
  documents: { path: string; chunks: number; sha256: string }[];
}

const SAVE_BATCH = 400;

function emptyReport(root: string): SyncReport {
  return {
    root,
    added: [],
    updated: [],
    removed: [],
    renamed: [],
    unchanged: 0,
    chunks: { added: 0, updated: 0, removed: 0 },
    skipped: [],
    cancelled: false,
  };
}

/** How the files of a synced folder are named in the store. */
interface DocumentNames {
  /** The document name of a path relative to the folder ('' names the folder itself). */
  of: (relative: string) => string;
}

function documentNames(sourcePrefix: string | undefined): DocumentNames {
  const prefix = sourcePrefix === undefined ? '' : checkPrefix(sourcePrefix);
  return { of: (relative) => (prefix && relative ? `${prefix}/${relative}` : prefix || relative) };
}

function checkPrefix(prefix: unknown): string {
  const trimmed = typeof prefix === 'string' ? prefix.trim().replace(/^\/+|\/+$/g, '') : '';
  if (!trimmed || trimmed.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new MemoryError(
      'INVALID_INPUT',
      `sourcePrefix must be a folder name such as "docs", got ${JSON.stringify(prefix)}.`,
    );
  }
  return trimmed;
}

/** Where a chunk came from, as `path:line`. */
export function citation(entity: KnowledgeEntity): string {
  return `${entity.source ?? entity.id}${entity.startLine ? `:${entity.startLine}` : ''}`;
}

function stampOf(file: LoadedFile): FileStamp {
  return { path: file.relativePath, sha256: file.sha256, bytes: file.bytes, mtimeMs: file.mtimeMs };
}

function chunkInputs(file: LoadedFile, options: ChunkOptions): KnowledgeInput[] {
  const document = chunkDocument(file.text, file.relativePath, options);
  return document.chunks.map((chunk) => ({
    content: chunk.text,
    // Always set, so a chunk updated in place never keeps an old title.
    title: document.title ?? '',
    source: file.relativePath,
    chunkIndex: chunk.index,
    headingPath: chunk.headingPath,
    startLine: chunk.startLine,
    endLine: chunk.endLine,
    sourceHash: file.sha256,
  }));
}

/**
 * Retrieval over a workspace's documents: files become knowledge chunks
 * (versioned and searchable like any entity), kept in step with the disk by
 * content hash.
 */
export class Rag {
  constructor(
    private readonly store: RagStore,
    /** The store's secret policy: under `block`, documents holding a secret are skipped rather than failing their writes. */
    private readonly secrets: SecretPolicy = 'redact',
  ) {}

  /** Adds or refreshes the documents under `path`; never removes anything. */
  async ingest(path: string, agentId: string, options: SyncOptions = {}): Promise<SyncReport> {
    assertId(agentId, 'agent id');
    const names = documentNames(options.sourcePrefix);
    return this.run(await listDocuments(path, options), agentId, options, names, {
      scope: [names.of('')],
      mirror: false,
    });
  }

  /**
   * Mirrors `path` into the agent's document knowledge: new files added,
   * changed files' chunks replaced, deleted files' chunks deleted, renamed
   * files moved without duplicates, unchanged files untouched (no commits).
   * A second sync with nothing changed on disk changes nothing.
   */
  async sync(path: string, agentId: string, options: SyncOptions = {}): Promise<SyncReport> {
    assertId(agentId, 'agent id');
    const names = documentNames(options.sourcePrefix);
    const listing = await listDocuments(path, options);
    // A lone file is listed from its folder under its bare name: mirroring
    // that folder's scope would delete every other document, and the name
    // would miss the file's document if it was synced as part of a tree.
    if (listing.root !== resolve(path)) {
      throw new MemoryError(
        'INVALID_INPUT',
        `${path} is a file; sync mirrors a folder. Sync the folder it belongs to, use syncFiles(folder, [file]) for one file of it, or ingest to add the file on its own.`,
      );
    }
    return this.run(listing, agentId, options, names, { scope: [names.of('')], mirror: true });
  }

  /**
   * Sync limited to some paths of the folder `root` (relative to it, or
   * absolute inside it), as a file watcher reports them: each is added,
   * updated, removed if it is gone (or now excluded), or left alone if
   * unchanged, by the same rules as `sync`, without listing the rest of the
   * tree. A folder among them is synced whole (a deleted folder removes
   * everything under it). A rename is a delete and a create of the same
   * content: given together, the chunks move with their history.
   */
  async syncFiles(
    root: string,
    agentId: string,
    paths: readonly string[],
    options: SyncOptions = {},
  ): Promise<SyncReport> {
    assertId(agentId, 'agent id');
    const names = documentNames(options.sourcePrefix);
    const listing = await probeDocuments(root, paths, options);
    return this.run(listing, agentId, options, names, { scope: listing.paths.map(names.of), mirror: true });
  }

  /**
   * Drops documents from the agent's knowledge by the names `status` lists
   * (chunks tombstoned, stamps removed), whatever is on disk: for a folder
   * that left the workspace.
   */
  async forget(agentId: string, documents: readonly string[]): Promise<SyncReport> {
    const stamps = this.store.stamps(assertId(agentId, 'agent id'));
    const report = emptyReport('');
    const wanted = new Set(documents);
    await this.remove(
      [...stamps.values()].filter((stamp) => wanted.has(stamp.path)),
      agentId,
      report,
    );
    report.removed.sort();
    return report;
  }

  /**
   * The one sync: reads the listed files that changed since their stamp,
   * then writes renames, updates, additions and, when mirroring, removals of
   * the documents in `scope` (those the listing speaks for) it did not list.
   */
  private async run(
    listing: ListResult,
    agentId: string,
    options: SyncOptions,
    names: DocumentNames,
    { scope, mirror }: { scope: string[]; mirror: boolean },
  ): Promise<SyncReport> {
    checkChunkOptions(options);
    const stamps = this.store.stamps(agentId, scope);
    // A file counts as synced only while its chunks are alive: cleanup or a
    // hand-made delete may have removed them since, and then it is re-added.
    const live = this.store.liveDocuments(agentId, scope);
    const report = emptyReport(listing.root);
    report.skipped.push(...listing.skipped);
    const seen = new Set<string>();
    const fresh: LoadedFile[] = [];
    const changed: LoadedFile[] = [];
    const touched: FileStamp[] = [];
    const progress = new SyncProgressCounter(listing.files.length, options.onProgress);
    for (const listed of listing.files) {
      if (options.signal?.aborted) break;
      // From here on a file is known by its document name, the key of its stamp and chunks.
      const entry: ListedFile = { ...listed, relativePath: names.of(listed.relativePath) };
      seen.add(entry.relativePath);
      const stamp = stamps.get(entry.relativePath);
      progress.checked(entry.relativePath);
      // Same size and time as when it was last synced: not even read.
      const alive = live.has(entry.relativePath);
      if (!options.rechunk && stamp && alive && stamp.bytes === entry.bytes && stamp.mtimeMs === entry.mtimeMs) {
        report.unchanged++;
        continue;
      }
      let file: LoadedFile | SkippedFile;
      try {
        file = await readDocument(entry, {
          root: listing.root,
          signal: options.signal,
          secrets: options.secrets ?? this.secrets,
        });
      } catch (error) {
        // Cancelled mid-read: stop here; what was synced so far stays, and the next sync goes on from it.
        if (error instanceof MemoryError && error.code === 'CANCELLED') break;
        throw error;
      }
      if (!('sha256' in file)) {
        report.skipped.push(file);
        continue;
      }
      const same = stamp?.sha256 === file.sha256;
      // A file that gives no chunks (empty, or blank lines only) has none alive: unchanged all the same.
      const empty = same && !alive && chunkInputs(file, options).length === 0;
      if (stamp && same && (empty || (alive && !options.rechunk))) {
        // Touched but not changed: remember the new time, make no commit.
        touched.push(stampOf(file));
        report.unchanged++;
      } else {
        (stamp && alive ? changed : fresh).push(file);
        progress.expect(1);
      }
    }
    report.cancelled = options.signal?.aborted ?? false;
    this.store.saveStamps(agentId, touched, []);

    // Files gone from disk; a new file with the same content is their new name.
    const gone = mirror && !report.cancelled ? [...stamps.values()].filter((stamp) => !seen.has(stamp.path)) : [];
    // Several deleted files may share content: each rename takes one of them.
    const goneByHash = new Map<string, FileStamp[]>();
    for (const stamp of gone) goneByHash.set(stamp.sha256, [...(goneByHash.get(stamp.sha256) ?? []), stamp]);
    const renamedFrom = new Set<string>();
    const renames: { file: LoadedFile; previous: FileStamp }[] = [];
    const added: LoadedFile[] = [];
    for (const file of fresh) {
      const previous = goneByHash.get(file.sha256)?.find((stamp) => !renamedFrom.has(stamp.path));
      if (!previous) {
        added.push(file);
        continue;
      }
      renamedFrom.add(previous.path);
      renames.push({ file, previous });
    }
    const removals = gone.filter((stamp) => !renamedFrom.has(stamp.path));
    progress.expect(removals.length);

    /** The documents this sync writes, with how many chunks each gets. */
    const written = new Map<string, number>();
    for (const { file, previous } of renames) {
      await this.replace(this.store.storedChunks(agentId, previous.path), file, agentId, options, report, written);
      this.store.saveStamps(agentId, [stampOf(file)], [previous.path]);
      report.renamed.push({ from: previous.path, to: file.relativePath });
      progress.wrote(1, file.relativePath);
    }
    for (const file of changed) {
      await this.replace(this.store.storedChunks(agentId, file.relativePath), file, agentId, options, report, written);
      this.store.saveStamps(agentId, [stampOf(file)], []);
      report.updated.push(file.relativePath);
      progress.wrote(1, file.relativePath);
    }
    await this.addAll(added, agentId, options, report, written, progress);
    await this.remove(removals, agentId, report, progress);
    // Another process may have written the same documents meanwhile; each place keeps one chunk.
    for (const [document, expected] of written) {
      const surplus = this.store.surplusChunks(agentId, document, expected);
      if (surplus.length === 0) continue;
      await this.store.deleteChunks(surplus);
      report.chunks.removed += surplus.length;
    }
    for (const list of [report.added, report.updated, report.removed]) list.sort();
    return report;
  }

  /** Tombstones the documents' chunks and forgets their stamps. */
  private async remove(
    documents: FileStamp[],
    agentId: string,
    report: SyncReport,
    progress?: SyncProgressCounter,
  ): Promise<void> {
    for (const stamp of documents) {
      const ids = this.store.chunksOf(agentId, stamp.path);
      if (ids.length) await this.store.deleteChunks(ids);
      this.store.saveStamps(agentId, [], [stamp.path]);
      report.chunks.removed += ids.length;
      report.removed.push(stamp.path);
      progress?.wrote(1, stamp.path);
    }
  }

  /**
   * New files' chunks, many files per transaction (never one file across
   * two), each batch's stamps written after it. A file whose chunks an
   * interrupted sync already wrote is replaced rather than added twice.
   */
  private async addAll(
    files: LoadedFile[],
    agentId: string,
    options: ChunkOptions,
    report: SyncReport,
    written: Map<string, number>,
    progress: SyncProgressCounter,
  ): Promise<void> {
    let batch: KnowledgeInput[] = [];
    let stamped: FileStamp[] = [];
    const flush = async () => {
      if (batch.length) await this.store.saveChunks(agentId, batch);
      this.store.saveStamps(agentId, stamped, []);
      report.chunks.added += batch.length;
      progress.wrote(stamped.length, stamped.at(-1)?.path ?? '');
      batch = [];
      stamped = [];
    };
    for (const file of files) {
      report.added.push(file.relativePath);
      const leftovers = this.store.storedChunks(agentId, file.relativePath);
      if (leftovers.length) {
        await this.replace(leftovers, file, agentId, options, report, written);
        this.store.saveStamps(agentId, [stampOf(file)], []);
        progress.wrote(1, file.relativePath);
        continue;
      }
      const inputs = chunkInputs(file, options);
      written.set(file.relativePath, inputs.length);
      if (batch.length + inputs.length > SAVE_BATCH) await flush();
      batch.push(...inputs);
      stamped.push(stampOf(file));
    }
    await flush();
  }

  /**
   * Writes a file's new chunks over its stored ones (see planChunks): a chunk
   * whose text is unchanged keeps its id, and its version too unless its
   * place or lines moved; an edited one gets a new version; extra new chunks
   * are added, stored ones left over deleted. Deletions go first and
   * additions last, so no place holds two chunks of this sync, even for a
   * moment, unless chunks swapped places (see planChunks).
   */
  private async replace(
    stored: StoredChunk[],
    file: LoadedFile,
    agentId: string,
    options: ChunkOptions,
    report: SyncReport,
    written: Map<string, number>,
  ): Promise<void> {
    const inputs = chunkInputs(file, options);
    written.set(file.relativePath, inputs.length);
    const plan = planChunks(stored, inputs);
    if (plan.removed.length) await this.store.deleteChunks(plan.removed);
    report.chunks.removed += plan.removed.length;
    for (const { id, input } of plan.updates) if (await this.store.updateChunk(id, input)) report.chunks.updated++;
    if (plan.added.length) await this.store.saveChunks(agentId, plan.added);
    report.chunks.added += plan.added.length;
  }

  /**
   * The chunks that best answer `query`, a context block citing each as
   * `path:line`, and, with an AiProvider, an answer grounded in that context.
   */
  async query(
    agentId: string,
    query: string,
    options: { limit?: number; ai?: AiProvider; signal?: AbortSignal } = {},
  ): Promise<RagQueryResult> {
    const results = await this.store.search(assertId(agentId, 'agent id'), query, assertLimit(options.limit ?? 5));
    const chunks = results.map((result) => ({
      entity: result.entity,
      score: result.score,
      citation: citation(result.entity),
    }));
    // Each chunk quoted as data under its number and place (see trust/framing.ts): a document
    // that says "ignore your instructions" is something the workspace holds, not an order.
    const context = chunks.length
      ? [
          STORED_DATA_NOTICE,
          ...chunks.map((chunk, index) => quoteEntity(chunk.entity, { lead: `[${index + 1}]` })),
        ].join('\n\n')
      : '';
    if (!options.ai) return { chunks, context };
    if (chunks.length === 0) return { chunks, context, answer: 'The workspace documents have nothing on this.' };
    const answer = await options.ai.chat(
      [
        {
          role: 'system',
          content:
            'Answer the question using only the numbered sources below. Cite every claim with the source number and path, like [2] docs/setup.md:14. If the sources do not contain the answer, say so instead of guessing.',
        },
        { role: 'user', content: `Sources:\n\n${context}\n\nQuestion: ${query}` },
      ],
      { signal: options.signal },
    );
    return { chunks, context, answer };
  }

  status(agentId: string): RagStatus {
    const stamps = this.store.stamps(assertId(agentId, 'agent id'));
    const counts = this.store.chunkCounts(agentId);
    const documents = [...stamps.values()]
      .map((stamp) => ({ path: stamp.path, chunks: counts.get(stamp.path) ?? 0, sha256: stamp.sha256 }))
      .sort((a, b) => a.path.localeCompare(b.path));
    return { agentId, files: documents.length, chunks: documents.reduce((sum, d) => sum + d.chunks, 0), documents };
  }
}
