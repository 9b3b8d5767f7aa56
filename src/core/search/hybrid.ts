import type { Embedder } from '../ai/embedder';
import { MemoryError } from '../errors';
import type { Database } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import type { FusionExplanation, ScoreExplanation } from './scoring';
import type { EntityReader, Searcher, SearchOptions, SearchResult, SearchScope } from './searcher';
import { embeddingText, type VectorIndex } from './vectors';

/** Reciprocal Rank Fusion's constant: ranks past about 60 barely matter. */
export const RRF_K = 60;

export interface BackfillOptions {
  signal?: AbortSignal;
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Entities per embedding request and transaction. Default 32. */
  batchSize?: number;
}

export interface BackfillReport {
  model: string;
  embedded: number;
  /** Vectors of other models or of deleted entities that were removed. */
  pruned: number;
  remaining: number;
  cancelled: boolean;
}

/**
 * The embedding side of the store: vectors for writes, backfill for what
 * has none (or a stale one, or another model's), and hybrid search, which
 * fuses the BM25 list and an independently retrieved vector list by RRF.
 */
export class Embeddings {
  constructor(
    private readonly db: Database,
    private readonly vectors: VectorIndex,
    readonly embedder: Embedder,
    private readonly warn: (message: string) => void,
  ) {}

  get model(): string {
    return this.embedder.model;
  }

  /**
   * Vectors for entities about to be written. Never throws: if the embedder
   * fails, the write goes ahead without vectors (backfill adds them later)
   * and a warning says so.
   */
  async forBodies(bodies: readonly VersionBody[]): Promise<(Float32Array | undefined)[]> {
    if (bodies.length === 0) return [];
    try {
      const vectors = await this.embedder.embed(bodies.map(embeddingText));
      this.checkSize(vectors);
      return vectors;
    } catch (error) {
      this.warn(`Saved without embeddings (run a backfill later): ${(error as Error).message}`);
      return bodies.map(() => undefined);
    }
  }

  /**
   * Refuses vectors that cannot be compared with the stored ones: of another
   * size than theirs (the model changed under the same name), or all zero.
   */
  checkSize(vectors: readonly Float32Array[]): void {
    const stored = this.vectors.dimensions(this.model);
    for (const vector of vectors) {
      if (stored !== undefined && vector.length !== stored) {
        throw new MemoryError(
          'AI_UNAVAILABLE',
          `The embedder returned vectors of ${vector.length} dimensions; those stored for model "${this.model}" have ${stored}. Another model answers under that name: name the model it is (WORKSPACE_MEMORY_EMBED_MODEL) and run a backfill to embed everything again.`,
        );
      }
      if (!vector.some((value) => value !== 0)) {
        throw new MemoryError('AI_UNAVAILABLE', 'The embedder returned a vector of zeros, which matches nothing.');
      }
    }
  }

  /** Stores a vector made for the version just written. Must run in the write's transaction. */
  store(entityId: string, body: VersionBody, objectSeq: number, vector: Float32Array): void {
    this.vectors.put(entityId, body, objectSeq, this.model, vector);
  }

  /** Entities that still need a vector from the current model. */
  pending(): number {
    return this.vectors.countPending(this.model);
  }

  /**
   * Embeds every entity whose current version has no vector from the current
   * model, in batches (one request and one transaction each), and removes
   * vectors of other models and deleted entities. A model change therefore
   * re-embeds everything; vectors of two models are never mixed in a search.
   */
  async backfill(options: BackfillOptions = {}): Promise<BackfillReport> {
    const batchSize = options.batchSize ?? 32;
    const pruned = this.db.transaction(() => this.vectors.prune(this.model));
    const total = this.vectors.countPending(this.model);
    let embedded = 0;
    const failed = new Set<string>();
    options.onProgress?.({ done: 0, total });
    while (!options.signal?.aborted) {
      const batch = this.vectors
        .pending(this.model, batchSize + failed.size)
        .filter((item) => !failed.has(item.entityId))
        .slice(0, batchSize);
      if (batch.length === 0) break;
      let vectors: Float32Array[];
      try {
        vectors = await this.embedder.embed(
          batch.map((item) => item.text),
          options.signal,
        );
        this.checkSize(vectors);
      } catch (error) {
        if (options.signal?.aborted) break;
        throw error;
      }
      this.db.transaction(() => {
        batch.forEach((item, index) => {
          const body = this.vectors.bodyAt(item.objectSeq);
          const vector = vectors[index];
          if (body && vector) this.vectors.put(item.entityId, body, item.objectSeq, this.model, vector);
          else failed.add(item.entityId);
        });
      });
      embedded += batch.length;
      options.onProgress?.({ done: embedded, total });
    }
    return {
      model: this.model,
      embedded,
      pruned,
      remaining: this.vectors.countPending(this.model),
      cancelled: options.signal?.aborted ?? false,
    };
  }
}

/** Search that fuses BM25 with vector similarity when an embedder is configured. */
export class HybridSearch {
  constructor(
    private readonly searcher: Searcher,
    private readonly vectors: VectorIndex,
    private readonly reader: EntityReader,
    private readonly embeddings: Embeddings | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  async search(scope: SearchScope, query: string, limit: number, options: SearchOptions = {}): Promise<SearchResult[]> {
    if (!this.embeddings) return this.searcher.search(scope, query, limit, options);
    const depth = Math.max(limit * 2, 20);
    const lexical = this.searcher.search(scope, query, depth, { ...options, explain: true });
    let queryVector: Float32Array | undefined;
    try {
      [queryVector] = await this.embeddings.embedder.embed([query]);
      if (queryVector) this.embeddings.checkSize([queryVector]);
    } catch (error) {
      queryVector = undefined;
      if (error instanceof MemoryError && error.code === 'CANCELLED') throw error;
      this.warn(`Searched by keywords only: ${(error as Error).message}`);
    }
    const keywordsOnly = () =>
      lexical
        .slice(0, limit)
        .map((result) => (options.explain ? result : { entity: result.entity, score: result.score }));
    if (!queryVector) return keywordsOnly();
    const semantic = this.vectors.nearest(scope, this.embeddings.model, queryVector, depth);
    // No vector in scope yet (before the first backfill): the keyword list as it is, not fused with nothing.
    if (semantic.length === 0) return keywordsOnly();
    return this.fuse(lexical, semantic, limit, options.explain ?? false);
  }

  private fuse(
    lexical: SearchResult[],
    semantic: { entityId: string; similarity: number }[],
    limit: number,
    explain: boolean,
  ): SearchResult[] {
    const fused = new Map<string, { keyword?: ScoreExplanation; fusion: FusionExplanation }>();
    lexical.forEach((result, index) => {
      fused.set(result.entity.id, {
        keyword: result.explain,
        fusion: { bm25Rank: index + 1, rrf: 1 / (RRF_K + index + 1) },
      });
    });
    semantic.forEach((hit, index) => {
      const entry = fused.get(hit.entityId) ?? { fusion: { rrf: 0 } };
      entry.fusion.vectorRank = index + 1;
      entry.fusion.similarity = hit.similarity;
      entry.fusion.rrf += 1 / (RRF_K + index + 1);
      fused.set(hit.entityId, entry);
    });
    const ranked = [...fused.entries()].sort((a, b) => b[1].fusion.rrf - a[1].fusion.rrf).slice(0, limit);
    const known = new Map(lexical.map((result) => [result.entity.id, result.entity]));
    const fetched = this.reader.getWithAccess(ranked.map(([id]) => id).filter((id) => !known.has(id)));
    // Scores stay on 0..1: first in both lists is 1.
    const best = 2 / (RRF_K + 1);
    return ranked.flatMap(([id, { keyword, fusion }]) => {
      const entity = known.get(id) ?? fetched.get(id)?.entity;
      if (!entity) return [];
      const score = fusion.rrf / best;
      if (!explain) return [{ entity, score }];
      const base = keyword ?? { bm25: 0, relevance: 0, tagOverlap: 0, recency: 1, access: 1, score: 0 };
      return [{ entity, score, explain: { ...base, score, fusion } }];
    });
  }
}
