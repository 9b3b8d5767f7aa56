import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';

import { MemoryError } from '../../src/core/errors';
import { formatBytes, isDiskFull, isOutOfSpace, storeFullError } from '../../src/core/store/disk-full';
import { sha256 } from '../../src/core/store/hashing';
import { missingTableError, missingTableOf, translateMissingTable } from '../../src/core/store/missing-table';
import { parseBody, storedBody } from '../../src/core/store/object-body';

describe('store helpers', () => {
  describe('a full disk', () => {
    it('is told by SQLITE_FULL (also extended), ENOSPC, EDQUOT or a STORE_FULL error, and nothing else', () => {
      for (const error of [{ errcode: 13 }, { errcode: 13 | (1 << 8) }, { code: 'ENOSPC' }, { code: 'EDQUOT' }]) {
        assert.equal(isDiskFull(error), true, JSON.stringify(error));
      }
      assert.equal(isDiskFull(new MemoryError('STORE_FULL', 'full')), true);
      for (const error of [{ errcode: 10 }, { errcode: '13' }, { code: 'EACCES' }, { code: '' }, null, undefined]) {
        assert.equal(isDiskFull(error), false, JSON.stringify(error));
      }
      // A MemoryError is judged by its code alone, whatever it carries.
      assert.equal(isDiskFull(Object.assign(new MemoryError('STORE_BUSY', 'busy'), { errcode: 13 })), false);
    });

    it('takes an I/O error for a full disk only when the disk has under a megabyte free', () => {
      const file = path.join(os.tmpdir(), 'store.db');
      // The test machine's temporary folder has room.
      assert.equal(isOutOfSpace({ errcode: 10 }, file), false);
      assert.equal(isOutOfSpace({ errcode: 10 }, undefined), false);
      assert.equal(isOutOfSpace({ errcode: 13 }, undefined), true);
      assert.equal(isOutOfSpace({ errcode: 11 }, file), false);
    });

    it('formats sizes in bytes below 1 KB, one decimal below 10, whole units above, up to TB', () => {
      assert.equal(formatBytes(0), '0 bytes');
      assert.equal(formatBytes(1023), '1023 bytes');
      assert.equal(formatBytes(1024), '1.0 KB');
      assert.equal(formatBytes(1536), '1.5 KB');
      assert.equal(formatBytes(10 * 1024), '10 KB');
      assert.equal(formatBytes(1024 * 1024 - 1), '1024 KB');
      assert.equal(formatBytes(1024 * 1024), '1.0 MB');
      assert.equal(formatBytes(5.25 * 1024 ** 3), '5.3 GB');
      assert.equal(formatBytes(3 * 1024 ** 4), '3.0 TB');
      assert.equal(formatBytes(2048 * 1024 ** 4), '2048 TB');
    });

    it('says what failed, that nothing was lost and what to do, with the free space when the store has a file', () => {
      const cause = new Error('SQLITE_FULL');
      const bare = storeFullError(undefined, 'The save', '', cause);
      assert.equal(bare.code, 'STORE_FULL');
      assert.equal(
        bare.message,
        'The disk holding the store is full: The save was not made, and nothing already in the store was lost. Free space on that disk and try again.',
      );
      assert.equal(bare.cause, cause);
      const file = path.join(os.tmpdir(), 'store.db');
      const named = storeFullError(file, 'The snapshot', 'It needs 2 MB.', cause).message;
      assert.match(
        named,
        /^The disk holding the store at .+store\.db is full \([\d.]+ [KMGT]?B(ytes)?( free)?\)?.*: The snapshot was not made, and nothing already in the store was lost\. It needs 2 MB\. Free space on that disk and try again\.$/,
      );
      assert.ok(named.includes(`at ${file} is full (`), named);
    });
  });

  describe('a missing table', () => {
    it('is named without its schema, and anything else is not one', () => {
      assert.equal(missingTableOf(new Error('no such table: main.vectors')), 'vectors');
      assert.equal(missingTableOf(new Error('no such table: refs')), 'refs');
      assert.equal(missingTableOf('no such table: temp_1.audit'), 'audit');
      assert.equal(missingTableOf(new Error('no such column: x')), undefined);
    });

    it('asks for a snapshot for a history table and a reindex for the others', () => {
      for (const table of ['objects', 'commits', 'refs']) {
        assert.match(missingTableError('/s.db', table).message, /missing its \w+ table .*Restore a snapshot/);
      }
      for (const table of ['vectors', 'access', 'audit']) {
        assert.match(missingTableError('/s.db', table).message, /Rebuild the index/);
      }
      assert.equal(
        missingTableError('/s.db', 'refs').message.startsWith('The store at /s.db is missing its refs table'),
        true,
      );
    });

    it('translates a raw or a STORE_CORRUPT failure, and passes other errors on as they are', () => {
      const raw = new Error('no such table: main.access');
      const translated = translateMissingTable(raw, '/s.db') as MemoryError;
      assert.equal(translated.code, 'STORE_CORRUPT');
      assert.equal(translated.cause, raw);
      const wrapped = new MemoryError('STORE_CORRUPT', 'damaged', { cause: raw });
      const fromWrapped = translateMissingTable(wrapped, '/s.db') as MemoryError;
      assert.match(fromWrapped.message, /missing its access table/);
      assert.equal(fromWrapped.cause, raw);
      const corruptOwnMessage = new MemoryError('STORE_CORRUPT', 'no such table: main.refs');
      assert.equal((translateMissingTable(corruptOwnMessage, '/s.db') as MemoryError).cause, corruptOwnMessage);
      const busy = Object.assign(new MemoryError('STORE_BUSY', 'no such table: refs'), {});
      assert.equal(translateMissingTable(busy, '/s.db'), busy);
      const other = new Error('disk I/O error');
      assert.equal(translateMissingTable(other, '/s.db'), other);
    });
  });

  describe('a stored version', () => {
    it('is parsed only from a JSON object with a string type and agent, and a string user if any', () => {
      const body = { type: 'memory', agentId: 'a', userId: 'u', content: 'x' };
      assert.deepEqual(parseBody(JSON.stringify(body)), body);
      assert.deepEqual(parseBody('{"type":"memory","agentId":"a"}'), { type: 'memory', agentId: 'a' });
      for (const data of [
        '{"type":"memory","agentId":"a"',
        'null',
        '"text"',
        '42',
        '[{"type":"memory","agentId":"a"}]',
        '{"agentId":"a"}',
        '{"type":"memory"}',
        '{"type":1,"agentId":"a"}',
        '{"type":"memory","agentId":2}',
        '{"type":"memory","agentId":"a","userId":3}',
        '{"type":"memory","agentId":"a","userId":null}',
      ]) {
        assert.equal(parseBody(data), undefined, data);
      }
    });

    it('is read only when its data still has its hash and both are text', () => {
      const data = '{"type":"memory","agentId":"a","content":"x"}';
      assert.deepEqual(storedBody(data, sha256(data)), JSON.parse(data));
      assert.equal(storedBody(data.replace('x', 'y'), sha256(data)), undefined);
      assert.equal(storedBody(Buffer.from(data), sha256(data)), undefined);
      assert.equal(storedBody(data, Buffer.from(sha256(data))), undefined);
    });
  });
});
