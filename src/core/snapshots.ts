import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from './errors';
import { nodeCrypto } from './crypto';
import type { Database } from './store/database';
import type { EntityStore } from './store/entity-store';
import { SCHEMA_VERSION, STATE_TABLES } from './store/schema';
import { assertId } from './validation';
import { verifyState } from './verify';

export interface SnapshotInfo {
  id: string;
  label: string;
  createdAt: string;
  /** Live entities at the time of the snapshot. */
  entities: number;
  bytes: number;
}

const MAX_LABEL_LENGTH = 200;
// Control characters (C0, DEL, C1) and Unicode line separators: a label is
// shown on one line of a listing, and an escape sequence in it could restyle
// the user's terminal.
const LABEL_FORBIDDEN = /[\p{Cc}\u2028\u2029]/u;

function assertLabel(label: unknown): asserts label is string {
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

/**
 * Point-in-time copies of the store, each a standalone SQLite file made by
 * VACUUM INTO (a consistent copy even while other processes write) with a
 * JSON manifest beside it. The manifest is written last, so a snapshot
 * interrupted half-way is never listed.
 */
export class Snapshots {
  constructor(
    private readonly db: Database,
    private readonly store: EntityStore,
    readonly dir: string,
  ) {}

  create(label: string): SnapshotInfo {
    assertLabel(label);
    fs.mkdirSync(this.dir, { recursive: true });
    const createdAt = this.store.timestamp();
    const id = `snap-${Date.now().toString(36)}-${nodeCrypto().randomBytes(3).toString('hex')}`;
    const file = this.file(id);
    const partial = `${file}.partial`;
    fs.rmSync(partial, { force: true });
    this.db.exec(`VACUUM INTO '${partial.replace(/'/g, "''")}'`);
    fs.renameSync(partial, file);
    const entities = Number(this.db.get('SELECT count(*) AS n FROM refs WHERE deleted = 0')?.n ?? 0);
    const info: SnapshotInfo = { id, label, createdAt, entities, bytes: fs.statSync(file).size };
    fs.writeFileSync(this.manifest(id), JSON.stringify(info, null, 2));
    this.db.transaction(() => this.store.audit('snapshot', null, [], { snapshot: id, label }));
    return info;
  }

  list(): SnapshotInfo[] {
    if (!fs.existsSync(this.dir)) return [];
    const infos: SnapshotInfo[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        const info = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as SnapshotInfo;
        if (fs.existsSync(this.file(info.id))) infos.push(info);
      } catch {
        // A manifest that cannot be read is not a usable snapshot; skip it.
      }
    }
    return infos.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  /**
   * Replaces the live state with the snapshot's in one transaction. The
   * snapshot is verified first; any failure leaves the live store untouched.
   * The audit log is not rolled back: it records the restore.
   */
  restore(id: string): SnapshotInfo {
    assertId(id, 'snapshot id');
    const info = this.list().find((snapshot) => snapshot.id === id);
    if (!info) throw new MemoryError('SNAPSHOT_NOT_FOUND', `No snapshot with id ${id}.`);
    const file = this.file(id);
    try {
      this.db.exec(`ATTACH DATABASE '${file.replace(/'/g, "''")}' AS snap`);
    } catch (error) {
      throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} cannot be opened: ${String(error)}`, { cause: error });
    }
    try {
      const version = Number(this.db.get('PRAGMA snap.user_version')?.user_version ?? 0);
      if (version < 1 || version > SCHEMA_VERSION) {
        throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} has an unsupported layout (schema ${version}).`);
      }
      const report = verifyState(this.db, 'snap');
      if (!report.valid) {
        throw new MemoryError(
          'SNAPSHOT_INVALID',
          `Snapshot ${id} failed verification: ${report.errors[0]?.message ?? ''}`,
        );
      }
      this.db.transaction(() => {
        for (const table of STATE_TABLES) {
          this.db.exec(`DELETE FROM main.${table}`);
          this.db.exec(`INSERT INTO main.${table} SELECT * FROM snap.${table}`);
        }
        // The full-text index is contentless (it cannot be copied row by row): rebuild it.
        this.store.reindex();
        // Vectors came back with the snapshot: caches of other processes are stale.
        this.db.run('UPDATE vector_generation SET generation = generation + 1 WHERE id = 1');
        this.store.audit('restore', null, [], { snapshot: id });
      });
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      throw new MemoryError('SNAPSHOT_INVALID', `Snapshot ${id} could not be restored: ${String(error)}`, {
        cause: error,
      });
    } finally {
      this.db.exec('DETACH DATABASE snap');
    }
    return info;
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.db`);
  }

  private manifest(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }
}
