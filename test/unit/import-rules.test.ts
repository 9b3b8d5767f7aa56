import * as assert from 'node:assert/strict';

import { MemoryError } from '../../src/core/errors';
import type { Memory } from '../../src/core/memory';
import { LIMITS } from '../../src/core/validation';
import { openTemp, rejectsWith } from './helpers';

const good = { id: 'memory-1', type: 'memory', agentId: 'a', userId: 'u', content: 'fine', tags: [], category: 'fact' };

/** A document with `entities`, as a caller would hand it to import. */
function documentOf(entities: Record<string, unknown[]>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, entities, ...extra };
}

describe('import rules', () => {
  let memory: Memory;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ memory, cleanup } = await openTemp()));
  afterEach(async () => cleanup());

  const refused = async (data: unknown) => rejectsWith(memory.import(data), 'IMPORT_INVALID');

  it('says what is wrong with a document that is no export at all', async () => {
    for (const data of [null, 'text', [good]]) {
      assert.match((await refused(data)).message, /^Not a Workspace Memory export: document: /);
    }
    // Issue #17: this said "version: Only export version 1 is supported".
    assert.equal(
      (await refused({ foo: 1 })).message,
      'Not a Workspace Memory export: it has no "format": "workspace-memory" (nor the "version" and "entities" of an export).',
    );
    assert.equal(
      (await refused({ ...documentOf({}), format: 'other' })).message,
      'Not a Workspace Memory export: format: expected "workspace-memory".',
    );
    assert.equal(
      (await refused(documentOf({}, { version: 2 }))).message,
      'Not a Workspace Memory export: version: Only export version 1 is supported.',
    );
    assert.equal(
      (await refused(documentOf({ memories: [good] }, { comment: 'hi', by: 'me' }))).message,
      'Not a Workspace Memory export: unknown field "comment", "by".',
    );
    assert.match(
      (await refused(documentOf({ memories: [{ ...good, createdAt: 'yesterday' }] }))).message,
      /^Not a Workspace Memory export: entities\.memories\.0\.createdAt: /,
    );
    assert.equal(
      (await refused(documentOf({ memories: [], notes: [], tasks: [] }))).message,
      'Not a Workspace Memory export: entities: unknown collection "notes", "tasks"; the collections are memories, skills, knowledge, sessions, profiles.',
    );
  });

  it('accepts times with an offset, in the document and on its entities', async () => {
    const at = '2026-03-01T12:00:00+01:00';
    const report = await memory.import(documentOf({ memories: [{ ...good, createdAt: at }] }, { exportedAt: at }));
    assert.equal(report.imported, 1);
    const imported = await memory.memories.get('memory-1');
    assert.equal(imported?.createdAt, '2026-03-01T11:00:00.000Z');
  });

  it('takes the update time as the creation time when only that is given', async () => {
    await memory.import(documentOf({ memories: [{ ...good, updatedAt: '2026-02-02T02:02:02.000Z' }] }));
    const imported = await memory.memories.get('memory-1');
    assert.equal(imported?.createdAt, '2026-02-02T02:02:02.000Z');
    assert.equal(imported?.updatedAt, '2026-02-02T02:02:02.000Z');
  });

  it('names the entity and the rule it breaks, keeping the cause, and writes nothing', async () => {
    const wrongType = await refused(documentOf({ memories: [good], skills: [{ ...good, id: 's' }] }));
    assert.equal(wrongType.message, 'entities.skills[0]: type is "memory" but the entity is listed under skills.');
    const twice = await refused(documentOf({ memories: [good, { ...good, content: 'again' }] }));
    assert.equal(twice.message, 'entities.memories[1]: id memory-1 appears more than once.');
    assert.ok(twice.cause instanceof MemoryError);
    const badAgent = await refused(documentOf({ memories: [{ ...good, agentId: '' }] }));
    assert.match(badAgent.message, /^entities\.memories\[0\]: The agent id must be a non-empty string\.$/);
    assert.equal((badAgent.cause as MemoryError).code, 'INVALID_ID');
    const badUser = await refused(documentOf({ memories: [{ ...good, userId: 'a/b' }] }));
    assert.match(badUser.message, /^entities\.memories\[0\]: The user id "a\/b" contains/);
    const proto = await refused(documentOf({}, { accessCounts: JSON.parse('{"__proto__":1}') as unknown }));
    assert.match(proto.message, /^accessCounts: __proto__ is not allowed as a key/);
    assert.equal((proto.cause as MemoryError).code, 'INVALID_INPUT');
    assert.equal((await memory.stats()).commits, 0);
  });

  it('gives an entity a little more room than its input for its id, agent, user and times', async () => {
    // The largest input validation takes (see validation.test.ts), with an entity's own fields around it.
    const room = LIMITS.maxInputBytes - 19;
    const entity = { id: 'k1', type: 'knowledge', agentId: 'a', content: 'x', questions: ['q'.repeat(room)] };
    const report = await memory.import(documentOf({ knowledge: [entity] }));
    assert.equal(report.imported, 1);
  });

  it('skips an entity imported again unchanged, and counts nothing else for it', async () => {
    await memory.import(documentOf({ memories: [good] }));
    const again = await memory.import(documentOf({ memories: [good] }));
    assert.deepEqual(again, {
      imported: 0,
      overwritten: 0,
      skipped: 1,
      byType: { memories: 0, skills: 0, knowledge: 0, sessions: 0, profiles: 0 },
    });
    assert.equal((await memory.memories.history('memory-1')).length, 1);
  });

  it('leaves the profile of the same agent and user alone when importing their memories', async () => {
    const [profile] = await memory.profiles.save('a', 'u', { content: 'me' });
    const report = await memory.import(documentOf({ memories: [good] }));
    assert.equal(report.imported, 1);
    assert.equal((await memory.profiles.get(profile.id))?.content, 'me');
    assert.equal((await memory.profiles.history(profile.id)).length, 1);
  });

  it('updates a profile imported under its own id in place, without deleting it first', async () => {
    const [profile] = await memory.profiles.save('a', 'u', { content: 'me' });
    const data = await memory.export();
    data.entities.profiles[0]!.content = 'me, later';
    const report = await memory.import(data);
    assert.equal(report.overwritten, 1);
    const history = await memory.profiles.history(profile.id);
    assert.deepEqual(
      history.map((entry) => entry.commit.op),
      ['import', 'create'],
    );
    assert.equal(history[0]?.commit.message, 'import profile');
  });

  it('records why an earlier profile of the same agent and user was replaced', async () => {
    const [earlier] = await memory.profiles.save('a', 'u', { content: 'desktop' });
    const profile = { id: 'laptop-profile', type: 'profile', agentId: 'a', userId: 'u', content: 'laptop' };
    await memory.import(documentOf({ profiles: [profile] }));
    const [tombstone] = await memory.profiles.history(earlier.id);
    assert.equal(tombstone?.entity, null);
    assert.equal(tombstone?.commit.message, 'import: replaced by profile laptop-profile');
  });
});
