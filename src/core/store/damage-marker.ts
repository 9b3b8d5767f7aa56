import * as fs from 'node:fs';

import { readBoundedSync } from '../bounded-read';
import { MemoryError } from '../errors';
import { replaceFileSync } from './owned-files';

/** A marker is a small JSON record; more than this is not one of ours, and its presence is what counts. */
const MARKER_MAX_BYTES = 64 * 1024;

/**
 * What verify leaves beside a store it found damaged, so every process that
 * writes to the store refuses until a verify finds it whole again. A file
 * rather than a row: writing into a damaged database could damage it more,
 * and every process (the extension, CLIs, MCP servers) sees the file.
 */
export interface DamageRecord {
  /** When verify found the damage. */
  foundAt: string;
  /** The store file's inode then: a marker for a file that was since replaced is ignored. */
  ino: number;
  /** The first problems verify listed. */
  problems: string[];
}

/** How many problems the marker keeps: enough to say what is wrong. */
const KEPT = 5;

export const damageMarkerPath = (storePath: string): string => `${storePath}.damaged`;

/** A store in memory, or a temporary one, has no file a marker could sit beside. */
const hasFile = (storePath: string): boolean => storePath !== '' && storePath !== ':memory:';

/**
 * Records that verify found `problems` in the store, or, when there are
 * none, removes an earlier record. Best effort: a folder verify cannot write
 * to must not turn a report into a failure (writes there fail anyway).
 */
export function recordVerifyOutcome(storePath: string, problems: readonly string[], now: Date): void {
  if (!hasFile(storePath)) return;
  try {
    if (problems.length === 0) {
      fs.rmSync(damageMarkerPath(storePath), { force: true });
      return;
    }
    const record: DamageRecord = {
      foundAt: now.toISOString(),
      ino: fs.statSync(storePath).ino,
      problems: problems.slice(0, KEPT),
    };
    // Replaced, never written through: a link planted at the marker's name
    // (to the store file itself, or a snapshot) would otherwise have verify
    // overwrite the very data it was protecting.
    replaceFileSync(damageMarkerPath(storePath), `${JSON.stringify(record, null, 2)}\n`);
  } catch {
    // See above: the report still stands.
  }
}

/** The damage verify last recorded for this very file, if any. */
export function readDamage(storePath: string): DamageRecord | undefined {
  if (!hasFile(storePath)) return undefined;
  const marker = damageMarkerPath(storePath);
  // The common case, checked once per write transaction: a stat, no exception.
  if (!fs.existsSync(marker)) return undefined;
  let text: string;
  try {
    // Bounded, and a FIFO planted under the marker's name is not waited on.
    const read = readBoundedSync(marker, MARKER_MAX_BYTES);
    text = read.kind === 'read' ? read.bytes.toString('utf8') : '';
  } catch {
    return undefined; // Removed between the two calls.
  }
  let record: Partial<DamageRecord>;
  try {
    record = JSON.parse(text) as Partial<DamageRecord>;
  } catch {
    // A marker that cannot be read still says verify found damage.
    return { foundAt: 'an earlier verify', ino: -1, problems: [] };
  }
  try {
    if (typeof record.ino === 'number' && record.ino !== fs.statSync(storePath).ino) return undefined;
  } catch {
    return undefined;
  }
  return {
    foundAt: String(record.foundAt ?? 'an earlier verify'),
    ino: Number(record.ino ?? -1),
    problems: Array.isArray(record.problems) ? record.problems.map(String) : [],
  };
}

/** Refuses a write to a store verify found damaged: writing on could bury or spread the damage. */
export function assertNotDamaged(storePath: string): void {
  const damage = readDamage(storePath);
  if (!damage) return;
  const first = damage.problems[0] ? ` (${damage.problems[0].replace(/\.$/, '')})` : '';
  throw new MemoryError(
    'STORE_CORRUPT',
    `Verify found this store damaged at ${damage.foundAt}${first}, so writes are refused. Restore a snapshot or repair the store, then run verify again: writes resume once it finds the store valid. To write anyway, remove ${damageMarkerPath(storePath)}.`,
  );
}
