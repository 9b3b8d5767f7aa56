import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isMemoryError } from '../../src/core/errors';
import { commitMetaOf, REF_STATE, stateOfHead } from '../../src/core/store/commits';
import {
  assertNotDamaged,
  damageMarkerPath,
  readDamage,
  recordVerifyOutcome,
} from '../../src/core/store/damage-marker';
import { tempDir } from './helpers';

// Gaps the mutation run (issue #18) found in the tests of the small store modules.

describe('store modules, as mutation testing probed them', () => {
  describe("an entity's state", () => {
    it('is superseded when its head commit is a supersede, and live for any other op', () => {
      assert.equal(stateOfHead({ object: { content: 'x' }, op: 'supersede' }), REF_STATE.superseded);
      assert.equal(stateOfHead({ object: { content: 'x' }, op: 'update' }), REF_STATE.live);
      // A deletion and a pending review come first.
      assert.equal(stateOfHead({ object: null, op: 'supersede' }), REF_STATE.deleted);
      assert.equal(stateOfHead({ object: {}, op: 'supersede', review: 'pending' }), REF_STATE.pending);
    });
  });

  describe("a commit's stored meta", () => {
    it('gives back every review and correction link it holds, and leaves out the ones it does not', () => {
      const by = { kind: 'user', name: 'ann' };
      const full = {
        by,
        review: 'pending',
        proposes: { action: 'update', target: 'mem_1', base: 'abc' },
        approvedBy: { kind: 'user', name: 'bob' },
        supersedes: 'mem_2',
        supersededBy: 'mem_3',
      };
      assert.deepEqual(commitMetaOf(JSON.stringify(full), 'ann', 'update'), full);
      const bare = commitMetaOf(JSON.stringify({ by }), 'ann', 'update');
      assert.deepEqual(bare, { by });
      assert.deepEqual(Object.keys(bare), ['by']);
    });
  });

  describe("verify's damage marker", () => {
    let dir: string;
    let store: string;
    const now = new Date('2026-03-04T05:06:07.000Z');

    beforeEach(() => {
      dir = tempDir();
      store = path.join(dir, 'memory.db');
      fs.writeFileSync(store, 'a store');
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('reads back when verify found the damage, for which file, and its first problems', () => {
      recordVerifyOutcome(store, ['objects: one row is damaged.', 'refs: two', 'c', 'd', 'e', 'f'], now);
      assert.deepEqual(readDamage(store), {
        foundAt: '2026-03-04T05:06:07.000Z',
        ino: fs.statSync(store).ino,
        problems: ['objects: one row is damaged.', 'refs: two', 'c', 'd', 'e'],
      });
    });

    it('refuses writes naming the first problem without its closing full stop', () => {
      recordVerifyOutcome(store, ['table objects.data is damaged.'], now);
      assert.throws(
        () => assertNotDamaged(store),
        (error: unknown) =>
          isMemoryError(error, 'STORE_CORRUPT') &&
          error.message.startsWith(
            'Verify found this store damaged at 2026-03-04T05:06:07.000Z (table objects.data is damaged), so writes are refused.',
          ) &&
          error.message.includes(`remove ${damageMarkerPath(store)}.`),
      );
    });

    it('is removed once verify finds the store whole again', () => {
      recordVerifyOutcome(store, ['broken'], now);
      assert.ok(fs.existsSync(damageMarkerPath(store)));
      recordVerifyOutcome(store, [], now);
      assert.equal(fs.existsSync(damageMarkerPath(store)), false);
      assert.equal(readDamage(store), undefined);
      assert.doesNotThrow(() => assertNotDamaged(store));
    });

    it('still refuses writes when the marker is not JSON, or too large to read', () => {
      fs.writeFileSync(damageMarkerPath(store), 'not { json');
      assert.deepEqual(readDamage(store), { foundAt: 'an earlier verify', ino: -1, problems: [] });
      assert.throws(
        () => assertNotDamaged(store),
        (error: unknown) =>
          isMemoryError(error, 'STORE_CORRUPT') &&
          error.message.startsWith('Verify found this store damaged at an earlier verify, so writes are refused.'),
      );
      fs.writeFileSync(damageMarkerPath(store), `{"problems":["${'x'.repeat(70 * 1024)}"]}`);
      assert.deepEqual(readDamage(store), { foundAt: 'an earlier verify', ino: -1, problems: [] });
    });

    it('takes a marker without an inode or a time as damage found by an earlier verify', () => {
      fs.writeFileSync(damageMarkerPath(store), JSON.stringify({ problems: ['a', 2] }));
      assert.deepEqual(readDamage(store), { foundAt: 'an earlier verify', ino: -1, problems: ['a', '2'] });
      fs.writeFileSync(damageMarkerPath(store), JSON.stringify({ foundAt: 'yesterday', problems: 'not a list' }));
      assert.deepEqual(readDamage(store), { foundAt: 'yesterday', ino: -1, problems: [] });
    });

    it('is ignored when it was left for a file since replaced, or the store file is gone', () => {
      recordVerifyOutcome(store, ['broken'], now);
      const marker = fs.readFileSync(damageMarkerPath(store), 'utf8');
      fs.rmSync(store);
      assert.equal(readDamage(store), undefined);
      fs.writeFileSync(store, 'another store');
      fs.writeFileSync(damageMarkerPath(store), marker.replace(/"ino": \d+/, '"ino": 1'));
      assert.notEqual(fs.statSync(store).ino, 1);
      assert.equal(readDamage(store), undefined);
    });

    it('is never read or written for a store in memory or a temporary one, whatever sits in the working folder', () => {
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        for (const storePath of [':memory:', '']) {
          const marker = damageMarkerPath(storePath);
          fs.writeFileSync(marker, JSON.stringify({ foundAt: 'then', problems: ['x'] }));
          assert.equal(readDamage(storePath), undefined, storePath);
          assert.doesNotThrow(() => assertNotDamaged(storePath));
          // A clean verify of such a store does not remove a file of that name either.
          recordVerifyOutcome(storePath, [], now);
          assert.ok(fs.existsSync(marker), storePath);
          fs.rmSync(marker);
          recordVerifyOutcome(storePath, ['broken'], now);
          assert.equal(fs.existsSync(marker), false, storePath);
        }
      } finally {
        process.chdir(cwd);
      }
    });
  });
});
