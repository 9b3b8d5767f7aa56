import type { Database } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import { storedBody } from '../store/object-body';
import { blob, countOf, num, text, textOrNull } from '../store/rows';
import type { EntityType } from '../types';
import { SEARCHABLE_TYPES } from '../types';
import type { IndexScope } from './fts-index';

/** The text an entity is embedded by: its title, content and tags, capped for the model's context. */
export function embeddingText(body: VersionBody): string {
  const tags = Array.isArray(body.tags) ? `\n${(body.tags as string[]).join(', ')}` : '';
  return [body.title, body.content]
    .filter((part) => typeof part === 'string' && part.length > 0)
    .join('\n')
    .concat(tags)
    .slice(0, 8000);
}

interface CachedVector {
  entityId: string;
  type: EntityType;
  agentId: string;
  userId: string | null;
  objectSeq: number;
  /** Unit length, so a dot product is the cosine similarity. */
  vector: Float32Array;
}

export interface VectorHit {
  entityId: string;
  similarity: number;
}

export interface PendingEmbedding {
  entityId: string;
  objectSeq: number;
  text: string;
}

function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  return vector.map((x) => x / norm);
}

function toBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

function fromBlob(blob: Uint8Array): Float32Array {
  // Copy: the blob's bytes may not be 4-byte aligned.
  return new Float32Array(new Uint8Array(blob).buffer);
}

/**
 * Embeddings in SQLite, one per entity version and model, searched by brute
 * force over an in-memory copy (reloaded only when another write changed
 * them). Brute force is exact and, for a workspace's few thousand entities,
 * faster than keeping an approximate index in step.
 */
export class VectorIndex {
  private cache: { model: string; generation: number; vectors: CachedVector[] } | undefined;

  constructor(private readonly db: Database) {}

  /** Stores the vector of an entity version. Must run in a transaction. */
  put(entityId: string, body: VersionBody, objectSeq: number, model: string, vector: Float32Array): void {
    this.db.run(
      `INSERT OR REPLACE INTO vectors (entity_id, type, agent_id, user_id, object_seq, model, dims, vector)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      entityId,
      body.type,
      body.agentId,
      body.userId ?? null,
      objectSeq,
      model,
      vector.length,
      toBlob(vector),
    );
    this.bump();
  }

  private bump(): void {
    this.db.run('UPDATE vector_generation SET generation = generation + 1 WHERE id = 1');
  }

  private generation(): number {
    return countOf(
      this.db.get('SELECT generation FROM vector_generation WHERE id = 1'),
      'vector_generation',
      'generation',
    );
  }

  /**
   * How many dimensions `model`'s stored vectors have (the most common, should
   * they differ); undefined when none is stored. A vector of another size
   * cannot be compared with them: the embedder changed under the same name.
   */
  dimensions(model: string): number | undefined {
    const row = this.db.get(
      'SELECT dims FROM vectors WHERE model = ? GROUP BY dims ORDER BY count(*) DESC LIMIT 1',
      model,
    );
    return row === undefined ? undefined : Number(row.dims);
  }

  /** The `k` entities in scope whose current version's vector is most similar to `query`. */
  nearest(scope: IndexScope, model: string, query: Float32Array, k: number): VectorHit[] {
    const generation = this.generation();
    if (!this.cache || this.cache.model !== model || this.cache.generation !== generation) {
      this.cache = { model, generation, vectors: this.load(model) };
    }
    const target = unit(query);
    const agents = new Set(scope.agentIds);
    const hits: VectorHit[] = [];
    for (const entry of this.cache.vectors) {
      if (entry.type !== scope.type || !agents.has(entry.agentId) || entry.vector.length !== target.length) continue;
      if (scope.userId !== undefined && entry.userId !== null && entry.userId !== scope.userId) continue;
      let dot = 0;
      for (let i = 0; i < target.length; i++) dot += target[i]! * entry.vector[i]!;
      hits.push({ entityId: entry.entityId, similarity: dot });
    }
    hits.sort((a, b) => b.similarity - a.similarity);
    // The cache may predate an update or a delete: keep only current versions.
    return this.current(hits.slice(0, k * 2)).slice(0, k);
  }

  private current(hits: VectorHit[]): VectorHit[] {
    if (hits.length === 0) return hits;
    const live = new Set(
      this.db
        .all(
          `SELECT v.entity_id FROM json_each(?) j JOIN vectors v ON v.entity_id = j.value
           JOIN refs r ON r.id = v.entity_id AND r.object_seq = v.object_seq AND r.deleted = 0`,
          JSON.stringify(hits.map((hit) => hit.entityId)),
        )
        .map((row) => text(row, 'vectors', 'entity_id')),
    );
    return hits.filter((hit) => live.has(hit.entityId));
  }

  private load(model: string): CachedVector[] {
    return this.db
      .all(
        `SELECT v.entity_id, v.type, v.agent_id, v.user_id, v.object_seq, v.vector FROM vectors v
         JOIN refs r ON r.id = v.entity_id AND r.object_seq = v.object_seq AND r.deleted = 0
         WHERE v.model = ?`,
        model,
      )
      .map((row) => ({
        entityId: text(row, 'vectors', 'entity_id'),
        type: text(row, 'vectors', 'type') as EntityType,
        agentId: text(row, 'vectors', 'agent_id'),
        userId: textOrNull(row, 'vectors', 'user_id'),
        objectSeq: num(row, 'vectors', 'object_seq'),
        vector: unit(fromBlob(blob(row, 'vectors', 'vector'))),
      }));
  }

  /** Live searchable entities without a vector of `model` for their current version. */
  pending(model: string, limit: number): PendingEmbedding[] {
    return this.db
      .all(
        `SELECT r.id, r.object_seq, o.data, o.hash FROM refs r JOIN objects o ON o.seq = r.object_seq
         LEFT JOIN vectors v ON v.entity_id = r.id AND v.model = ? AND v.object_seq = r.object_seq
         WHERE r.deleted = 0 AND v.entity_id IS NULL AND r.type IN (${SEARCHABLE_TYPES.map(() => '?').join(', ')})
         ORDER BY r.id LIMIT ?`,
        model,
        ...SEARCHABLE_TYPES,
        limit,
      )
      .flatMap((row) => {
        // A damaged version is left out of the backfill (verify lists it) rather than failing it.
        const body = storedBody(row.data, row.hash);
        if (!body) return [];
        return [
          { entityId: text(row, 'refs', 'id'), objectSeq: num(row, 'refs', 'object_seq'), text: embeddingText(body) },
        ];
      });
  }

  countPending(model: string): number {
    return countOf(
      this.db.get(
        `SELECT count(*) AS n FROM refs r
         LEFT JOIN vectors v ON v.entity_id = r.id AND v.model = ? AND v.object_seq = r.object_seq
         WHERE r.deleted = 0 AND v.entity_id IS NULL AND r.type IN (${SEARCHABLE_TYPES.map(() => '?').join(', ')})`,
        model,
        ...SEARCHABLE_TYPES,
      ),
      'refs',
    );
  }

  /** Drops vectors of other models and of deleted entities. Must run in a transaction. */
  prune(model: string): number {
    const removed =
      this.db.run('DELETE FROM vectors WHERE model <> ?', model).changes +
      this.db.run('DELETE FROM vectors WHERE entity_id NOT IN (SELECT id FROM refs WHERE deleted = 0)').changes;
    if (removed > 0) this.bump();
    return removed;
  }

  /** The body of an entity version, to store its vector with its scope. */
  bodyAt(objectSeq: number): VersionBody | undefined {
    const row = this.db.get('SELECT data, hash FROM objects WHERE seq = ?', objectSeq);
    return row ? storedBody(row.data, row.hash) : undefined;
  }
}
