import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { isMemoryError } from '../../src/core/errors';
import { Database, translateSqliteError } from '../../src/core/store/database';
import { tempDir } from './helpers';

describe('database', () => {
  let dir: string;
  let db: Database;
  let other: DatabaseSync;
  const count = () => Number(db.get('SELECT count(*) AS n FROM audit')?.n);
  const writeElsewhere = () =>
    other.exec("INSERT INTO audit (time, op) VALUES ('2026-01-01T00:00:00.000Z', 'elsewhere')");

  beforeEach(() => {
    dir = tempDir();
    db = new Database(path.join(dir, 'memory.db'));
    // Another process's connection.
    other = new DatabaseSync(path.join(dir, 'memory.db'));
  });

  afterEach(() => {
    other.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('read() sees one snapshot, whatever another connection commits meanwhile', () => {
    const seen = db.read(() => {
      const before = count();
      writeElsewhere();
      return [before, count()];
    });
    assert.deepEqual(seen, [0, 0]);
    assert.equal(count(), 1, 'the commit is visible once the read ends');
  });

  it('read() refuses a write transaction inside it, and an error ends it', () => {
    assert.throws(() => db.read(() => db.transaction(() => count())), /cannot start inside/);
    assert.throws(() =>
      db.read(() => {
        throw new Error('failed mid-read');
      }),
    );
    writeElsewhere();
    assert.equal(
      db.transaction(() => count()),
      1,
      'no read transaction was left open',
    );
  });

  it('names a damaged store and one that cannot be opened, with codes', () => {
    const damaged = path.join(dir, 'damaged.db');
    fs.writeFileSync(damaged, 'this is not a database, just text that is long enough to look like a header');
    assert.throws(
      () => new Database(damaged),
      (error: unknown) => isMemoryError(error, 'STORE_CORRUPT') && error.message.includes(damaged),
    );
    // A folder that cannot hold the store (here: its parent is a file).
    const blocked = path.join(damaged, 'memory.db');
    assert.throws(
      () => new Database(blocked),
      (error: unknown) => isMemoryError(error, 'STORE_READONLY') && error.message.includes(blocked),
    );
  });

  it('names a full disk STORE_FULL with the store, from SQLite or from a file write', () => {
    const file = path.join(dir, 'memory.db');
    const sqlite = Object.assign(new Error('database or disk is full'), { errcode: 13, code: 'ERR_SQLITE_ERROR' });
    const system = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    for (const error of [sqlite, system]) {
      const translated = translateSqliteError(error, file, () => 'It needs 1 MB.');
      assert.ok(isMemoryError(translated, 'STORE_FULL'), String(translated));
      assert.ok(translated.message.includes(file), translated.message);
      assert.match(translated.message, /is full \(\d+(\.\d)? (bytes|KB|MB|GB|TB) free\): the write was not made/);
      assert.match(translated.message, /It needs 1 MB\./);
      assert.equal(translated.cause, error);
    }
  });
});
