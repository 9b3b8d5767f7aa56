import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { MemoryError, type MemoryErrorCode } from '../../src/core/errors';
import { Memory, type MemoryOptions, STORE_FILE } from '../../src/core/memory';

export function tempDir(prefix = 'wm-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Opens a store in a fresh temporary folder; `cleanup` closes and removes it. */
export async function openTemp(
  options: Partial<MemoryOptions> = {},
): Promise<{ memory: Memory; dir: string; cleanup: () => Promise<void> }> {
  const dir = tempDir();
  const memory = await Memory.open({ dir, author: 'test', synchronous: 'normal', ...options });
  return {
    memory,
    dir,
    cleanup: async () => {
      await memory.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function rejectsWith(
  promise: Promise<unknown> | (() => Promise<unknown>),
  code: MemoryErrorCode,
): Promise<MemoryError> {
  let caught: unknown;
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof MemoryError, `expected a MemoryError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.ok(caught.message.length > 10, 'the message explains the error');
  return caught;
}

/** A clock the test moves by hand. */
export class FakeClock {
  constructor(private time = Date.parse('2026-01-01T00:00:00.000Z')) {}
  now = (): Date => new Date(this.time);
  advance(ms: number): void {
    this.time += ms;
  }
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The audit log of the store in `dir`, oldest first, read through a connection of its own. */
export function auditOf(dir: string): { op: string; detail: Record<string, unknown> }[] {
  const db = new DatabaseSync(path.join(dir, STORE_FILE), { readOnly: true });
  try {
    return db
      .prepare('SELECT op, detail FROM audit ORDER BY seq')
      .all()
      .map((row) => ({
        op: String(row.op),
        detail: JSON.parse(String(row.detail ?? '{}')) as Record<string, unknown>,
      }));
  } finally {
    db.close();
  }
}
