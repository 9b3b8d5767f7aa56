import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { Memory } from '../../src/core/memory';
import type { ExportData } from '../../src/core/portable';
import { commitHash } from '../../src/core/store/commits';
import { canonicalJson, sha256 } from '../../src/core/store/hashing';
import { FakeClock, openTemp, rejectsWith } from './helpers';

/** Opens the store's file directly, as an attacker or a disk fault would change it. */
function tamper(dir: string, sql: string): void {
  const db = new DatabaseSync(path.join(dir, 'memory.db'));
  db.exec(sql);
  db.close();
}

/** A commit's meta as stored, which its hash covers. */
function storedMeta(dir: string, hash: string): string | null {
  const db = new DatabaseSync(path.join(dir, 'memory.db'));
  try {
    return (db.prepare('SELECT meta FROM commits WHERE hash = ?').get(hash)?.meta ?? null) as string | null;
  } finally {
    db.close();
  }
}

describe('hashing', () => {
  it('serializes canonically: sorted keys at every depth, undefined members dropped, arrays kept in order', () => {
    const value = {
      b: [3, undefined, { d: 1, c: undefined }],
      a: 'é"x',
      n: null,
      nested: [[{ z: 1, y: [2, 1] }]],
      u: undefined,
    };
    assert.equal(canonicalJson(value), '{"a":"é\\"x","b":[3,null,{"d":1}],"n":null,"nested":[[{"y":[2,1],"z":1}]]}');
    assert.equal(canonicalJson({ y: 1, x: 2 }), canonicalJson({ x: 2, y: 1 }));
  });

  it('hashes UTF-8 text as SHA-256 hex', () => {
    assert.equal(sha256('héllo'), createHash('sha256').update('héllo', 'utf8').digest('hex'));
  });

  it('hashes a commit as the SHA-256 of its canonical JSON, its meta included from version 4 on', () => {
    for (const parent of [null, 'a'.repeat(64)]) {
      const fields = {
        entityId: 'memory-1',
        parent,
        object: parent ? null : 'b'.repeat(64),
        time: '2025-01-01T00:00:00.000Z',
        author: 'ana "the" dev',
        message: 'update memory',
        op: 'update' as const,
      };
      // Commits made before version 4 have no meta, and keep the hash they had.
      assert.equal(commitHash({ ...fields, meta: null }), sha256(canonicalJson(fields)));
      const meta = { by: { kind: 'mcp', name: 'Claude "Desktop"', version: '1.2' }, review: 'pending' };
      assert.equal(commitHash({ ...fields, meta: canonicalJson(meta) }), sha256(canonicalJson({ ...fields, meta })));
    }
  });
});

describe('verify', () => {
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;
  let id: string;
  beforeEach(async () => {
    ({ memory, dir, cleanup } = await openTemp());
    const [saved] = await memory.memories.save('a', 'u', { content: 'v1' });
    await memory.memories.update(saved.id, { content: 'v2' });
    await memory.skills.save('a', undefined, { content: 'skill' });
    const [gone] = await memory.memories.save('a', 'u', { content: 'deleted' });
    await memory.memories.delete(gone.id);
    id = saved.id;
  });
  afterEach(async () => cleanup());

  it('calls a healthy store valid and counts what it checked', async () => {
    const report = await memory.verify();
    assert.deepEqual(report.errors, []);
    assert.equal(report.valid, true);
    assert.equal(report.totalEntities, 3);
    assert.equal(report.totalCommits, 5);
    assert.equal(report.totalObjects, 4);
  });

  it('finds an object whose content was changed', async () => {
    tamper(dir, `UPDATE objects SET data = replace(data, 'v1', 'v9')`);
    const report = await memory.verify();
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.errors.map((e) => e.code),
      ['OBJECT_HASH_MISMATCH'],
    );
  });

  it('finds a rewritten commit, a missing parent and a missing object', async () => {
    const history = await memory.memories.history(id);
    const head = history[0]!.commit;
    const root = history[1]!.commit;
    tamper(dir, `UPDATE commits SET message = 'forged' WHERE hash = '${head.hash}'`);
    tamper(dir, `DELETE FROM commits WHERE hash = '${root.hash}'`);
    tamper(dir, `DELETE FROM objects WHERE hash = '${head.object}'`);
    const codes = (await memory.verify()).errors.map((e) => e.code).sort();
    assert.deepEqual(codes, ['COMMIT_HASH_MISMATCH', 'MISSING_OBJECT', 'MISSING_PARENT']);
  });

  it('finds a ref that disagrees with its head and an orphan commit', async () => {
    const history = await memory.memories.history(id);
    tamper(
      dir,
      `UPDATE refs SET head_seq = (SELECT seq FROM commits WHERE hash = '${history[1]!.commit.hash}') WHERE id = '${id}'`,
    );
    const codes = (await memory.verify()).errors.map((e) => e.code).sort();
    assert.deepEqual(codes, ['ORPHAN_COMMIT', 'REF_MISMATCH']);
  });

  /** The row number of a commit, for tampering with links by row number as the store keeps them. */
  const seqOf = (hash: string): string => `(SELECT seq FROM commits WHERE hash = '${hash}')`;

  it('finds a commit whose parent is a commit of another entity', async () => {
    const [skill] = await memory.skills.list('a');
    const skillHead = (await memory.history(skill!.id))[0]!.commit;
    const memoryHead = (await memory.history(id))[0]!.commit;
    tamper(dir, `UPDATE commits SET parent_seq = ${seqOf(memoryHead.hash)} WHERE hash = '${skillHead.hash}'`);
    const report = await memory.verify();
    assert.deepEqual(
      report.errors.map((e) => `${e.code} ${e.id}`).sort(),
      [`COMMIT_HASH_MISMATCH ${skillHead.hash}`, `FOREIGN_PARENT ${skillHead.hash}`],
      'the walk stops at the other entity: no scope change or cycle is made up from its commits',
    );
  });

  it('finds a history that loops', async () => {
    const [head, root] = await memory.history(id);
    tamper(dir, `UPDATE commits SET parent_seq = ${seqOf(head!.commit.hash)} WHERE hash = '${root!.commit.hash}'`);
    const report = await memory.verify();
    assert.deepEqual(report.errors.map((e) => `${e.code} ${e.id}`).sort(), [
      `COMMIT_HASH_MISMATCH ${root!.commit.hash}`,
      `CYCLE ${id}`,
    ]);
  });

  it('finds an entity whose head is missing, or is a commit of another entity', async () => {
    const [skill] = await memory.skills.list('a');
    const skillHead = (await memory.history(skill!.id))[0]!.commit;
    const own = (await memory.history(id)).map((entry) => `ORPHAN_COMMIT ${entry.commit.hash}`);
    for (const head of ['9999', seqOf(skillHead.hash)]) {
      tamper(dir, `UPDATE refs SET head_seq = ${head} WHERE id = '${id}'`);
      assert.deepEqual(
        (await memory.verify()).errors.map((e) => `${e.code} ${e.id}`).sort(),
        [`MISSING_HEAD ${id}`, ...own].sort(),
        `head ${head}`,
      );
    }
  });

  it('finds an entity that moved to another agent or user, or changed type, without an import saying so', async () => {
    // An import may replace an entity with one of another agent: its commit says so.
    const data = await memory.export();
    const exported = data.entities.memories.find((entity) => entity.id === id)!;
    await memory.import({ version: 1, entities: { memories: [{ ...exported, agentId: 'b', content: 'moved' }] } });
    assert.deepEqual((await memory.verify()).errors, []);
    // The same version, recorded as an update (its hash made to match): an update keeps the scope.
    const head = (await memory.history(id))[0]!.commit;
    const meta = storedMeta(dir, head.hash);
    const forged = commitHash({ ...head, op: 'update', meta });
    tamper(dir, `UPDATE commits SET op = 'update', hash = '${forged}' WHERE hash = '${head.hash}'`);
    const moved = (await memory.verify()).errors;
    assert.deepEqual(
      moved.map((e) => `${e.code} ${e.id}`),
      [`SCOPE_CHANGED ${id}`],
    );
    assert.match(moved[0]!.message, /from a memory of agent a and user u to a memory of agent b and user u/);

    // A version of another type, even by an import, with ref and hashes to match: an entity never changes type.
    const object = canonicalJson({ type: 'skill', agentId: 'b', userId: 'u', content: 'a skill now' });
    const typed = commitHash({ ...head, op: 'import', object: sha256(object), meta });
    tamper(
      dir,
      `INSERT INTO objects (hash, data) VALUES ('${sha256(object)}', '${object}');
       UPDATE commits SET op = 'import', hash = '${typed}', object_seq = last_insert_rowid() WHERE hash = '${forged}';
       UPDATE refs SET type = 'skill', object_seq = (SELECT object_seq FROM commits WHERE hash = '${typed}') WHERE id = '${id}';`,
    );
    const retyped = (await memory.verify()).errors;
    assert.deepEqual(
      retyped.map((e) => `${e.code} ${e.id}`),
      [`SCOPE_CHANGED ${id}`],
    );
    assert.match(retyped[0]!.message, /never changes type/);
  });

  it('checks the search index too, with rows in FTS5 and rows waiting; a rebuild repairs it', async () => {
    for (let i = 0; i < 70; i++) await memory.memories.save('a', 'u', { content: `note number ${i}` });
    assert.deepEqual((await memory.verify()).errors, [], 'healthy with rows flushed to FTS5 and rows waiting');
    tamper(dir, `DELETE FROM search_docs WHERE entity_id = '${id}'`);
    const report = await memory.verify();
    assert.equal(report.valid, false);
    assert.ok(report.errors.every((error) => error.code === 'SEARCH_INDEX'));
    assert.ok(report.errors.some((error) => error.id === id && /not in the search index/.test(error.message)));
    await memory.rebuildIndex();
    assert.deepEqual((await memory.verify()).errors, []);
    tamper(dir, `UPDATE search_stats SET docs = docs + 1 WHERE type = 'memory'`);
    assert.deepEqual(
      (await memory.verify()).errors.map((error) => error.message),
      [
        'The memory search counts are wrong. Rebuild the search index (rebuildIndex(), CLI `reindex`, or Memory: Rebuild Index).',
      ],
    );
  });
});

describe('snapshots', () => {
  let memory: Memory;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, dir, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  it('restores the exact state of the snapshot, access counts included', async () => {
    const [kept] = await memory.memories.save('a', 'u', { content: 'before' });
    await memory.memories.incrementAccess([kept.id]);
    const snapshot = await memory.snapshot('before changes');
    assert.equal(snapshot.label, 'before changes');
    assert.equal(snapshot.entities, 1);
    await memory.memories.update(kept.id, { content: 'after' });
    await memory.memories.save('a', 'u', { content: 'new' });
    await memory.memories.incrementAccess([kept.id]);
    const replaced: string[] = [];
    memory.on('store:replaced', ({ reason }) => void replaced.push(reason));
    await memory.restore(snapshot.id);
    assert.deepEqual(replaced, ['restore']);
    assert.deepEqual(
      (await memory.memories.list('a')).map((m) => m.content),
      ['before'],
    );
    assert.equal(await memory.memories.accessCount(kept.id), 1);
    assert.equal((await memory.memories.history(kept.id)).length, 1);
    assert.equal((await memory.verify()).valid, true);
  });

  it('lists snapshots newest first and survives a restore of an older one', async () => {
    const clock = new FakeClock();
    await memory.close();
    memory = await Memory.open({ dir, now: clock.now, synchronous: 'normal' });
    const first = await memory.snapshot('one');
    clock.advance(1000);
    const second = await memory.snapshot('two');
    assert.deepEqual(
      (await memory.listSnapshots()).map((s) => s.id),
      [second.id, first.id],
    );
    const { before } = await memory.restore(first.id);
    assert.deepEqual(
      (await memory.listSnapshots()).map((s) => s.id),
      [before?.id, second.id, first.id],
    );
  });

  it('a failed restore leaves the live store untouched', async () => {
    await memory.memories.save('a', 'u', { content: 'live data' });
    const snapshot = await memory.snapshot('will be damaged');
    await memory.memories.save('a', 'u', { content: 'more live data' });
    const file = path.join(dir, 'snapshots', `${snapshot.id}.db`);
    const bytes = fs.readFileSync(file);
    bytes.fill(0x41, 0, 100); // destroy the SQLite header
    fs.writeFileSync(file, bytes);
    await rejectsWith(memory.restore(snapshot.id), 'SNAPSHOT_INVALID');
    assert.equal(await memory.memories.count('a'), 2);
    assert.equal((await memory.verify()).valid, true);
  });

  it('refuses a snapshot whose content fails verification', async () => {
    await memory.memories.save('a', 'u', { content: 'original' });
    const snapshot = await memory.snapshot('tampered');
    const db = new DatabaseSync(path.join(dir, 'snapshots', `${snapshot.id}.db`));
    db.exec(`UPDATE objects SET data = replace(data, 'original', 'forged')`);
    db.close();
    await memory.memories.save('a', 'u', { content: 'newer' });
    const error = await rejectsWith(memory.restore(snapshot.id), 'SNAPSHOT_INVALID');
    assert.match(error.message, /verification/);
    assert.equal(await memory.memories.count('a'), 2);
  });

  it('reports an unknown snapshot id', async () => {
    await rejectsWith(memory.restore('snap-nope'), 'SNAPSHOT_NOT_FOUND');
    await rejectsWith(memory.restore('../etc'), 'INVALID_ID');
  });
});

describe('export and import', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  it('round-trips every entity with ids, timestamps and access counts', async () => {
    const [m] = await memory.memories.save('a', 'u', { content: 'fact', tags: ['x'], category: 'decision' });
    await memory.skills.saveShared({ content: 'shared skill' });
    await memory.knowledge.save('a', undefined, { content: 'chunk', source: 'README.md', chunkIndex: 0 });
    await memory.sessions.save('a', 'u', { messages: [{ role: 'user', content: 'hi' }], conversationId: 'c' });
    await memory.profiles.save('a', 'u', { content: 'me', metadata: { lang: 'en' } });
    await memory.memories.incrementAccess([m.id, m.id, m.id]);
    const [dropped] = await memory.memories.save('a', 'u', { content: 'deleted one' });
    await memory.memories.delete(dropped.id);

    const data = JSON.parse(JSON.stringify(await memory.export())) as ExportData;
    assert.equal(data.version, 1);
    assert.equal(data.entities.memories.length, 1, 'deleted entities are not exported');

    const target = await openTemp();
    try {
      const report = await target.memory.import(data);
      assert.deepEqual(report.byType, { memories: 1, skills: 1, knowledge: 1, sessions: 1, profiles: 1 });
      assert.equal(report.imported, 5);
      assert.deepEqual(await target.memory.memories.get(m.id), m);
      assert.equal(await target.memory.memories.accessCount(m.id), 3);
      assert.deepEqual(await target.memory.export().then((d) => d.entities), data.entities);
      assert.equal((await target.memory.history(m.id))[0]?.commit.op, 'import');
      assert.equal((await target.memory.verify()).valid, true);
    } finally {
      await target.cleanup();
    }
  });

  it('overwrites existing entities with a new commit, or keeps them with skipExisting', async () => {
    const [m] = await memory.memories.save('a', 'u', { content: 'original' });
    const data = await memory.export();
    data.entities.memories[0]!.content = 'imported version';
    const skipped = await memory.import(structuredClone(data), { skipExisting: true });
    assert.equal(skipped.skipped, 1);
    assert.equal((await memory.memories.get(m.id))?.content, 'original');
    const overwritten = await memory.import(data);
    assert.equal(overwritten.overwritten, 1);
    assert.equal((await memory.memories.get(m.id))?.content, 'imported version');
    assert.equal((await memory.memories.history(m.id)).length, 2);
  });

  it('keeps one profile per agent and user: an imported one replaces the existing one, or is skipped', async () => {
    await memory.profiles.save('a', 'alice', { content: 'desktop profile' });
    const laptop = await openTemp();
    try {
      await laptop.memory.profiles.save('a', 'alice', { content: 'laptop profile' });
      const data = await laptop.memory.export();
      const skipped = await memory.import(structuredClone(data), { skipExisting: true });
      assert.equal(skipped.skipped, 1);
      assert.equal((await memory.profiles.getByUser('a', 'alice'))?.content, 'desktop profile');
      const report = await memory.import(data);
      assert.equal(report.overwritten, 1);
      const profiles = await memory.profiles.list('a', 'alice');
      assert.deepEqual(
        profiles.map((profile) => profile.content),
        ['laptop profile'],
      );
      assert.equal((await memory.profiles.getByUser('a', 'alice'))?.content, 'laptop profile');
      // "No user" is one profile per agent too.
      await memory.profiles.save('a', undefined, { content: 'desktop, no user' });
      await laptop.memory.profiles.save('a', undefined, { content: 'laptop, no user' });
      await memory.import(await laptop.memory.export());
      assert.deepEqual(
        (await memory.profiles.list('a')).filter((p) => p.userId === undefined).map((p) => p.content),
        ['laptop, no user'],
      );
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await laptop.cleanup();
    }
  });

  it('stores imported times in UTC, so cleanup and lists compare them right', async () => {
    const good = { id: 'memory-1', type: 'memory', agentId: 'a', content: 'fine', tags: [], category: 'fact' };
    await memory.import({
      version: 1,
      entities: {
        memories: [{ ...good, createdAt: '2026-01-29T20:00:00-10:00', updatedAt: '2026-01-29T20:00:00-10:00' }],
      },
    });
    const imported = await memory.memories.get('memory-1');
    assert.equal(imported?.createdAt, '2026-01-30T06:00:00.000Z');
    assert.equal(imported?.updatedAt, '2026-01-30T06:00:00.000Z');
  });

  it('refuses a bad document and writes nothing', async () => {
    await rejectsWith(memory.import({ hello: 'world' }), 'IMPORT_INVALID');
    await rejectsWith(memory.import({ version: 2, entities: {} }), 'IMPORT_INVALID');
    const good = { id: 'memory-1', type: 'memory', agentId: 'a', content: 'fine', tags: [], category: 'fact' };
    const error = await rejectsWith(
      memory.import({
        version: 1,
        entities: { memories: [good, { ...good, id: 'memory-2', content: 'x', tags: Array(60).fill('t') }] },
      }),
      'IMPORT_INVALID',
    );
    assert.match(error.message, /entities\.memories\[1\]/);
    await rejectsWith(
      memory.import({ version: 1, entities: { memories: [{ ...good, id: 'bad/id' }] } }),
      'IMPORT_INVALID',
    );
    await rejectsWith(memory.import({ version: 1, entities: { skills: [good] } }), 'IMPORT_INVALID');
    assert.equal((await memory.stats()).commits, 0);
  });
});

describe('cleanup', () => {
  it('tombstones old memories, skills and knowledge; keeps sessions and profiles; trims the audit log', async () => {
    const clock = new FakeClock();
    const { memory, cleanup } = await openTemp({ now: clock.now });
    try {
      const [old] = await memory.memories.save('a', 'u', { content: 'old' });
      const [oldSkill] = await memory.skills.save('a', undefined, { content: 'old skill' });
      await memory.sessions.save('a', 'u', { content: 'old session' });
      await memory.profiles.save('a', 'u', { content: 'old profile' });
      clock.advance(100 * 24 * 3600 * 1000);
      const [fresh] = await memory.memories.save('a', 'u', { content: 'fresh' });

      const preview = await memory.cleanup({ maxAgeDays: 90, dryRun: true });
      assert.deepEqual(preview.details.map((d) => d.id).sort(), [old.id, oldSkill.id].sort());
      assert.equal(preview.removed, 2);
      assert.equal(await memory.memories.count('a'), 2, 'a dry run removes nothing');

      const report = await memory.cleanup({ maxAgeDays: 90, maxAuditLines: 3 });
      assert.equal(report.removed, 2);
      assert.equal(report.preserved, 1);
      assert.ok(report.auditRemoved > 0);
      assert.deepEqual(
        (await memory.memories.list('a')).map((m) => m.id),
        [fresh.id],
      );
      assert.equal((await memory.memories.history(old.id))[0]?.commit.op, 'delete');
      assert.equal(await memory.sessions.count('a'), 1);
      assert.equal(await memory.profiles.count('a'), 1);
      assert.equal((await memory.stats()).auditEntries, 3);
      await rejectsWith(memory.cleanup({ maxAgeDays: -1 }), 'INVALID_INPUT');
    } finally {
      await cleanup();
    }
  });
});
