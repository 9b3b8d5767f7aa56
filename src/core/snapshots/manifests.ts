/**
 * What a snapshot is on disk: its copy and, beside it, a JSON manifest that
 * describes it. The open store's Snapshots and the repair of a store that
 * cannot be opened both find snapshots by their manifests, so reading them,
 * and the rules for the label written into one, live here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { readBoundedSync } from '../bounded-read';
import { MemoryError } from '../errors';
import { assertSnapshotFileConfined } from '../paths';
import { cutAtWord } from '../text';

/** A snapshot, as its manifest describes it. */
export interface SnapshotInfo {
  id: string;
  label: string;
  createdAt: string;
  /** Live entities at the time of the snapshot. */
  entities: number;
  bytes: number;
}

/** What a restore did: the snapshot restored, and where the store as it was went. */
export interface RestoredSnapshot extends SnapshotInfo {
  /**
   * The snapshot of the store as it was just before, taken by the restore
   * itself: restoring it undoes the restore. Absent only when the live store
   * was too damaged to be copied (the restore then mends it from the snapshot).
   */
  before?: SnapshotInfo;
  /** Where the damaged file went, when a store that could not be opened was replaced whole (no `before` then). */
  keptAside?: string;
}

const MAX_LABEL_LENGTH = 200;
// Control characters (C0, DEL, C1) and Unicode line separators: a label is
// shown on one line of a listing, and an escape sequence in it could restyle
// the user's terminal.
const LABEL_FORBIDDEN = /[\p{Cc}\u2028\u2029]/u;

/**
 * The label of the snapshot a restore takes first, naming the snapshot
 * restored. A label from an older version may break today's rules: it is
 * made one line and cut to fit, so the restore never fails over a label.
 */
export function beforeRestoreLabel(restored: SnapshotInfo): string {
  const name = restored.label.replace(new RegExp(LABEL_FORBIDDEN.source, 'gu'), ' ').trim() || restored.id;
  return cutAtWord(`before restoring ${name}`, MAX_LABEL_LENGTH).head;
}

export function assertLabel(label: unknown): asserts label is string {
  if (typeof label !== 'string') throw new MemoryError('INVALID_INPUT', 'A snapshot label must be a string.');
  if (label.length > MAX_LABEL_LENGTH) {
    throw new MemoryError(
      'INVALID_INPUT',
      `A snapshot label can have at most ${MAX_LABEL_LENGTH} characters (got ${label.length}).`,
    );
  }
  const forbidden = LABEL_FORBIDDEN.exec(label);
  if (forbidden) {
    const code = forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new MemoryError(
      'INVALID_INPUT',
      `A snapshot label must be one line of text without control characters; ` +
        `U+${code} (a line break, tab, escape or the like) at character ${forbidden.index + 1} is not allowed.`,
    );
  }
}

/** A snapshot's manifest is a few hundred bytes; anything much bigger is not one. */
const MANIFEST_MAX_BYTES = 64 * 1024;

/** The snapshots in `dir`, newest first: those with a readable manifest and their copy. */
export function listSnapshots(dir: string): SnapshotInfo[] {
  if (!fs.existsSync(dir)) return [];
  const infos: SnapshotInfo[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      // A manifest that is a link (or leads out of the folder) is not one of ours: skipped.
      assertSnapshotFileConfined(dir, path.join(dir, name));
      // Bounded and regular files only: a FIFO or a huge file named *.json must not hang the list.
      const read = readBoundedSync(path.join(dir, name), MANIFEST_MAX_BYTES);
      if (read.kind !== 'read') continue;
      const info = JSON.parse(read.bytes.toString('utf8')) as SnapshotInfo;
      if (fs.existsSync(path.join(dir, `${info.id}.db`))) infos.push(info);
    } catch {
      // A manifest that cannot be read is not a usable snapshot; skip it.
    }
  }
  return infos.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}
