import { isDeepStrictEqual } from 'node:util';

import type { Database } from '../store/database';
import type { VersionBody } from '../store/entity-store';
import { PLACE_FIELDS, withPlace } from '../store/place';
import { text, textOrNull } from '../store/rows';
import type { KnowledgeInput } from '../types';
import { chunksOf } from './state';

/** One of a document's chunks as the store holds it: its id and the fields sync wrote. */
export interface StoredChunk {
  id: string;
  fields: Record<string, unknown>;
}

/**
 * A document's live sync chunks, in chunk order, with what they hold. The
 * chunks are the ones state.ts's chunksOf names (one definition of a sync
 * chunk); their objects are then read by id, one document's worth.
 */
export function storedChunks(db: Database, agentId: string, source: string): StoredChunk[] {
  const ids = chunksOf(db, agentId, source);
  if (ids.length === 0) return [];
  const fields = new Map<string, Record<string, unknown>>();
  for (const row of db.all(
    `SELECT r.id, r.place, o.data FROM refs r JOIN objects o ON o.seq = r.object_seq
     WHERE r.id IN (SELECT value FROM json_each(?))`,
    JSON.stringify(ids),
  )) {
    // chunksOf only names chunks whose object is valid JSON.
    const body = JSON.parse(text(row, 'objects', 'data')) as VersionBody;
    fields.set(text(row, 'refs', 'id'), withPlace(body, textOrNull(row, 'refs', 'place')));
  }
  // One deleted in between (another process) is left out.
  return ids.filter((id) => fields.has(id)).map((id) => ({ id, fields: fields.get(id)! }));
}

/** How a file's new chunks are written over its stored ones. */
export interface ChunkPlan {
  /** Stored chunks given a new chunk's fields, in an order that frees a place before it is taken. */
  updates: { id: string; input: KnowledgeInput }[];
  /** Stored chunks that already say exactly what the new chunk says: not written, no version. */
  unchanged: number;
  /** New chunks without a stored one to take. */
  added: KnowledgeInput[];
  /** Stored chunks no new chunk takes. */
  removed: string[];
}

/**
 * Whether a stored chunk already holds what a new one says, leaving out the
 * fields in `ignored`. The file hash every chunk records changes with any
 * edit of the file: a chunk that says the same as before keeps its version,
 * and the hash of the file it was written from.
 */
function sameFields(stored: StoredChunk, input: KnowledgeInput, ignored: ReadonlySet<string>): boolean {
  return Object.entries(input).every(
    ([key, value]) => ignored.has(key) || value === undefined || isDeepStrictEqual(stored.fields[key], value),
  );
}

const FILE_HASH: ReadonlySet<string> = new Set(['sourceHash']);
const FILE_HASH_AND_PLACE: ReadonlySet<string> = new Set(['sourceHash', ...PLACE_FIELDS]);

const placeOf = (fields: Record<string, unknown>): number =>
  typeof fields.chunkIndex === 'number' ? fields.chunkIndex : -1;

/**
 * Matches a file's new chunks to its stored ones: first by content (a chunk
 * whose text did not change keeps its id, and its history follows its text
 * when chunks are inserted or removed before it), then the rest pairwise in
 * document order (a chunk edited in place keeps its id and gets a new
 * version). Stored chunks left over are removed, new chunks left over added.
 */
export function planChunks(stored: readonly StoredChunk[], inputs: readonly KnowledgeInput[]): ChunkPlan {
  const byContent = new Map<string, number[]>();
  stored.forEach((chunk, i) => {
    const key = String(chunk.fields.content);
    const queue = byContent.get(key);
    if (queue) queue.push(i);
    else byContent.set(key, [i]);
  });
  const partner: (number | undefined)[] = inputs.map((input) => byContent.get(input.content)?.shift());
  const taken = new Set(partner.filter((i) => i !== undefined));
  const spare = stored.map((_, i) => i).filter((i) => !taken.has(i));
  let next = 0;
  for (let j = 0; j < inputs.length && next < spare.length; j++)
    if (partner[j] === undefined) partner[j] = spare[next++];

  const plan: ChunkPlan = {
    updates: [],
    unchanged: 0,
    added: [],
    removed: spare.slice(next).map((i) => stored[i]!.id),
  };
  const moves: { id: string; input: KnowledgeInput; from: number; to: number }[] = [];
  inputs.forEach((input, j) => {
    const i = partner[j];
    if (i === undefined) {
      plan.added.push(input);
      return;
    }
    const chunk = stored[i]!;
    if (sameFields(chunk, input, FILE_HASH)) {
      plan.unchanged++;
      return;
    }
    // Only its place moved: written with the file hash it has, its version stays and only the ref's place changes.
    const moved = sameFields(chunk, input, FILE_HASH_AND_PLACE);
    const kept = chunk.fields.sourceHash;
    const update = moved && typeof kept === 'string' ? { ...input, sourceHash: kept } : input;
    moves.push({ id: chunk.id, input: update, from: placeOf(chunk.fields), to: input.chunkIndex ?? j });
  });
  // Each place holds one chunk (see state.ts chunkAt): chunks moving down the
  // document go first, the furthest down first, then those moving up, the
  // nearest the top first, so a shift by inserted or removed chunks never has
  // two chunks at one place, even for a moment (only sections swapped can).
  const down = moves.filter((move) => move.to > move.from).sort((a, b) => b.to - a.to);
  const up = moves.filter((move) => move.to <= move.from).sort((a, b) => a.to - b.to);
  plan.updates = [...down, ...up].map(({ id, input }) => ({ id, input }));
  return plan;
}
