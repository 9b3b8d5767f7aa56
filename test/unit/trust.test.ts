import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { applyConsolidationPlan } from '../../src/core/ai/consolidation';
import { Memory } from '../../src/core/memory';
import { runOperation } from '../../src/core/operations';
import { describeProvenance, withProvenance } from '../../src/core/provenance';
import { FakeClock, openTemp, rejectsWith, tempDir } from './helpers';
import { rehashCommits } from './legacy-stores';

const MCP = { kind: 'mcp', name: 'Claude Desktop', version: '0.9.1' } as const;
const COPILOT = {
  kind: 'copilot',
  model: 'gpt-4.1',
  tool: 'memory_save',
  conversation: 'c-1',
  conversationTitle: 'Fix login',
} as const;

/**
 * Turns a store file into what version 3 wrote: no meta column, and every
 * commit hashed without it (parents first, so each parent's new hash is known).
 */
function makeVersion3(file: string): void {
  const db = new DatabaseSync(file);
  db.exec('ALTER TABLE commits DROP COLUMN meta; PRAGMA user_version = 3;');
  rehashCommits(db);
  db.close();
}

describe('provenance', () => {
  it('records who made each commit, inside its hash, and shows it in history', async () => {
    const { memory, cleanup } = await openTemp({ writer: { kind: 'cli' } });
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'Use pnpm in this repo' });
      await withProvenance(COPILOT, () => memory.memories.update(saved.id, { content: 'Use pnpm 9 in this repo' }));
      const [update, create] = await memory.history(saved.id);
      assert.deepEqual(create!.commit.by, { kind: 'cli' });
      assert.deepEqual(update!.commit.by, COPILOT);
      assert.equal(describeProvenance(update!.commit.by), "by Copilot · gpt-4.1 · memory_save · in chat 'Fix login'");
      assert.equal(
        describeProvenance({ kind: 'mcp', name: 'Claude Desktop', version: '0.9.1' }),
        'by Claude Desktop 0.9.1 (MCP)',
      );
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await cleanup();
    }
  });

  it('rejects an unknown writer kind and cleans control characters out of names', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      await rejectsWith(
        async () => withProvenance({ kind: 'robot' } as never, async () => undefined),
        'UNKNOWN_WRITER',
      );
      await rejectsWith(Memory.open({ dir: tempDir(), writer: { kind: 'nobody' } as never }), 'UNKNOWN_WRITER');
      const [saved] = await withProvenance({ kind: 'mcp', name: 'evil\u001b[31m\nclient' }, () =>
        memory.memories.save('a', undefined, { content: 'x' }),
      );
      const [entry] = await memory.history(saved.id);
      assert.equal(entry!.commit.by.name, 'evil [31m client');
      // A secret in a label (a chat's title, a client's name) is redacted like one in content.
      const token = ['gh', 'p_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join('');
      const [other] = await withProvenance({ kind: 'copilot', conversationTitle: `deploy with ${token}` }, () =>
        memory.memories.save('a', undefined, { content: 'y' }),
      );
      const [labelled] = await memory.history(other.id);
      assert.equal(labelled!.commit.by.conversationTitle, 'deploy with [redacted: github-token]');
      // Queued by default (an MCP client), and still kept with its history.
      assert.equal(entry!.commit.review, 'pending');
    } finally {
      await cleanup();
    }
  });

  it('a tampered provenance fails verify', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'x' });
      await memory.close();
      const db = new DatabaseSync(path.join(dir, 'memory.db'));
      db.exec(`UPDATE commits SET meta = replace(meta, '"user"', '"copilot"') WHERE entity_id = '${saved.id}'`);
      db.close();
      const reopened = await Memory.open({ dir });
      const report = await reopened.verify();
      assert.deepEqual(
        report.errors.map((error) => error.code),
        ['COMMIT_HASH_MISMATCH'],
      );
      await reopened.close();
    } finally {
      await cleanup().catch(() => undefined);
    }
  });

  it('upgrades a version 3 store: old commits keep their hashes and read back their author', async () => {
    const dir = tempDir();
    const old = await Memory.open({ dir, author: 'ana' });
    const [saved] = await old.memories.save('a', undefined, { content: 'from before' });
    await old.close();
    makeVersion3(path.join(dir, 'memory.db'));
    const memory = await Memory.open({ dir, author: 'ben' });
    try {
      assert.equal((await memory.verify()).valid, true);
      const [entry] = await memory.history(saved.id);
      assert.deepEqual(entry!.commit.by, { kind: 'unknown', name: 'ana', legacy: true });
      assert.equal(describeProvenance(entry!.commit.by, entry!.commit.author), 'by ana');
      await memory.memories.update(saved.id, { content: 'after the upgrade' });
      const [latest] = await memory.history(saved.id);
      assert.deepEqual(latest!.commit.by, { kind: 'user', name: 'ben' });
      assert.equal((await memory.verify()).valid, true);
      // The upgrade also adds the small indexes the review queue and the Superseded group read.
      const db = new DatabaseSync(path.join(dir, 'memory.db'), { readOnly: true });
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'refs_%'").all();
      db.close();
      assert.ok(['refs_pending', 'refs_superseded'].every((name) => indexes.some((row) => row.name === name)));
    } finally {
      await memory.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restores a snapshot taken before version 4', async () => {
    const { memory, dir, cleanup } = await openTemp();
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'kept in the snapshot' });
      const snapshot = await memory.snapshot();
      await memory.memories.delete(saved.id);
      makeVersion3(path.join(dir, 'snapshots', `${snapshot.id}.db`));
      await memory.restore(snapshot.id);
      assert.equal((await memory.memories.get(saved.id))?.content, 'kept in the snapshot');
      const [entry] = await memory.history(saved.id);
      assert.equal(entry!.commit.by.kind, 'unknown');
    } finally {
      await cleanup();
    }
  });
});

describe('review queue', () => {
  it('holds an MCP client write out of search, recall, get and lists until a person approves it', async () => {
    const { memory, cleanup } = await openTemp({ author: 'ana' });
    try {
      const [held, commit] = await withProvenance(MCP, () =>
        memory.memories.save('a', undefined, { content: 'The deploy key rotates on Fridays' }),
      );
      assert.equal(commit.review, 'pending');
      assert.equal(await memory.memories.get(held.id), null);
      assert.deepEqual(await memory.memories.list('a'), []);
      assert.equal(await memory.memories.count('a'), 0);
      assert.deepEqual(await memory.memories.search('a', undefined, 'deploy key'), []);
      assert.equal((await memory.recall('a', undefined, 'deploy key')).items.length, 0);
      const [pending] = await memory.review.list({ agentId: 'a' });
      assert.equal(pending!.entity.id, held.id);
      assert.deepEqual(
        [await memory.review.count({ agentId: 'a' }), await memory.review.count({ agentId: 'b' })],
        [1, 0],
      );
      assert.deepEqual(pending!.commit.by, MCP);

      const [outcome] = await memory.review.approve([held.id]);
      assert.equal(outcome!.outcome, 'approved');
      assert.equal((await memory.memories.get(held.id))?.content, 'The deploy key rotates on Fridays');
      assert.equal((await memory.memories.search('a', undefined, 'deploy key')).length, 1);
      // Recall quotes it as the client's words, approved or not.
      const recalled = await memory.recall('a', undefined, 'deploy key');
      assert.deepEqual(recalled.items[0]!.provenance, MCP);
      assert.match(recalled.formatted, /by mcp `Claude Desktop` \(via `memory_save`\)|by mcp `Claude Desktop`/);
      const [approval, queued] = await memory.history(held.id);
      assert.equal(approval!.commit.op, 'approve');
      assert.deepEqual(approval!.commit.by, { kind: 'user', name: 'ana' });
      assert.deepEqual(queued!.commit.by, MCP);
      assert.deepEqual(await memory.review.list(), []);
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await cleanup();
    }
  });

  it('an edit while approving, a rejection, and errors for what is not pending', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [one] = await withProvenance(MCP, () => memory.memories.save('a', undefined, { content: 'draft one' }));
      const [two] = await withProvenance(MCP, () => memory.memories.save('a', undefined, { content: 'draft two' }));
      await rejectsWith(memory.review.approve([one.id], { content: 7 }), 'INVALID_INPUT');
      await memory.review.approve([one.id], { content: 'edited one' });
      assert.equal((await memory.memories.get(one.id))?.content, 'edited one');
      const [rejected] = await memory.review.reject([two.id]);
      assert.equal(rejected!.outcome, 'rejected');
      assert.equal(await memory.memories.get(two.id), null);
      assert.equal((await memory.history(two.id))[0]!.commit.review, 'rejected');
      await rejectsWith(memory.review.approve([one.id]), 'NOT_PENDING');
      await rejectsWith(memory.review.reject([two.id]), 'NOT_PENDING');
      await rejectsWith(memory.review.approve(['memory-nope']), 'NOT_PENDING');
      // All or none: one bad id leaves the good one pending.
      const [three] = await withProvenance(MCP, () => memory.memories.save('a', undefined, { content: 'three' }));
      await rejectsWith(memory.review.approve([three.id, one.id]), 'NOT_PENDING');
      assert.equal((await memory.review.list()).length, 1);
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await cleanup();
    }
  });

  it('a held update or delete is a proposal: the entity stays as it is until approval applies it', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'Node 20 in CI' });
      const [proposal, commit] = await withProvenance(MCP, () =>
        memory.memories.update(saved.id, { content: 'Node 24 in CI' }),
      );
      assert.notEqual(proposal.id, saved.id);
      assert.deepEqual(commit.proposes, {
        action: 'update',
        target: saved.id,
        base: saved && (await memory.history(saved.id))[0]!.commit.object,
      });
      assert.equal((await memory.memories.get(saved.id))?.content, 'Node 20 in CI');
      const deletion = await withProvenance(MCP, () => memory.memories.delete(saved.id));
      assert.deepEqual([deletion.proposes?.action, deletion.proposes?.target], ['delete', saved.id]);
      assert.ok(await memory.memories.get(saved.id));
      const items = await memory.review.list();
      assert.equal(items.length, 2);
      assert.equal(items.find((item) => item.entity.id === proposal.id)!.target?.content, 'Node 20 in CI');

      const [applied] = await memory.review.approve([proposal.id]);
      assert.deepEqual([applied!.outcome, applied!.entityId], ['applied', saved.id]);
      assert.equal((await memory.memories.get(saved.id))?.content, 'Node 24 in CI');
      // The delete was proposed against the version before that update: approving it now would
      // delete what it never saw.
      const stale = await rejectsWith(memory.review.approve([deletion.entityId]), 'REVIEW_CONFLICT');
      assert.match(stale.message, /was changed after that was proposed: reject it/);
      await memory.review.reject([deletion.entityId]);
      const again = await withProvenance(MCP, () => memory.memories.delete(saved.id));
      await memory.review.approve([again.entityId]);
      assert.equal(await memory.memories.get(saved.id), null);
      assert.deepEqual(await memory.review.list(), []);
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await cleanup();
    }
  });

  it('an approved proposal is its writer’s change, approved by the person, and reverting the writer undoes it', async () => {
    const { memory, cleanup } = await openTemp({ author: 'ana' });
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: 'Releases on Fridays' });
      const [proposal] = await withProvenance(MCP, () =>
        memory.memories.update(saved.id, { content: 'Releases on Mondays' }),
      );
      await memory.review.approve([proposal.id]);
      const [applied] = await memory.history(saved.id);
      assert.deepEqual(applied!.commit.by, MCP);
      assert.deepEqual(applied!.commit.approvedBy, { kind: 'user', name: 'ana' });
      await memory.revert({ by: 'mcp' });
      assert.equal((await memory.memories.get(saved.id))?.content, 'Releases on Fridays');
    } finally {
      await cleanup();
    }
  });

  it('approving a proposal keeps later edits to its target: fields merge, a field changed both ways is a conflict', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [saved] = await memory.memories.save('a', undefined, {
        content: 'We version with semver',
        tags: ['release'],
      });
      const [tagsOnly] = await withProvenance(MCP, () =>
        memory.memories.update(saved.id, { tags: ['release', 'versioning'] }),
      );
      const [rewrite] = await withProvenance(MCP, () =>
        memory.memories.update(saved.id, { content: 'We version with dates' }),
      );
      // Changed by a person after both were proposed.
      await memory.memories.update(saved.id, { content: 'We version with calver' });
      await memory.review.approve([tagsOnly.id]);
      const merged = await memory.memories.get(saved.id);
      assert.deepEqual([merged?.content, merged?.tags], ['We version with calver', ['release', 'versioning']]);
      const error = await rejectsWith(memory.review.approve([rewrite.id]), 'REVIEW_CONFLICT');
      assert.match(error.message, /its content was changed after this was proposed/);
      assert.equal((await memory.memories.get(saved.id))?.content, 'We version with calver', 'nothing written');
      // The person decides the field: then it applies.
      await memory.review.approve([rewrite.id], { content: 'We version with calver dates' });
      assert.equal((await memory.memories.get(saved.id))?.content, 'We version with calver dates');
      // A delete proposed before a later edit is a conflict too.
      const deletion = await withProvenance(MCP, () => memory.memories.delete(saved.id));
      await memory.memories.update(saved.id, { tags: ['kept'] });
      await rejectsWith(memory.review.approve([deletion.entityId]), 'REVIEW_CONFLICT');
      assert.ok(await memory.memories.get(saved.id));
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await cleanup();
    }
  });

  it('follows the policy: immediate for all, per kind, and a person-confirmed write counts as reviewed', async () => {
    const immediate = await openTemp({ review: 'immediate' });
    const perKind = await openTemp({ review: { copilot: 'queue' } });
    try {
      const [a] = await withProvenance(MCP, () => immediate.memory.memories.save('a', undefined, { content: 'x' }));
      assert.ok(await immediate.memory.memories.get(a.id));
      const [b] = await withProvenance(COPILOT, () => perKind.memory.memories.save('a', undefined, { content: 'y' }));
      assert.equal(await perKind.memory.memories.get(b.id), null);
      const [c] = await withProvenance({ ...COPILOT, confirmed: true }, () =>
        perKind.memory.memories.save('a', undefined, { content: 'z' }),
      );
      assert.ok(await perKind.memory.memories.get(c.id));
      await rejectsWith(Memory.open({ dir: tempDir(), review: { robots: 'queue' } as never }), 'UNKNOWN_WRITER');
      await rejectsWith(Memory.open({ dir: tempDir(), review: 'later' as never }), 'INVALID_INPUT');
    } finally {
      await immediate.cleanup();
      await perKind.cleanup();
    }
  });
});

describe('mining and consolidation as writers', () => {
  it('a consolidation plan applied after a person read it does not wait again; one applied unseen does', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [a] = await memory.memories.save('a', undefined, { content: 'CI runs on GitHub Actions' });
      const [b] = await memory.memories.save('a', undefined, { content: 'Our CI is GitHub Actions' });
      const plan = {
        target: 'memory' as const,
        agentId: 'a',
        reviewed: 2,
        requests: 1,
        merges: [{ ids: [a.id, b.id], content: 'CI runs on GitHub Actions.', reason: 'same fact' }],
        deletions: [],
        rejected: [],
        skipped: [],
        documentChunks: 0,
        seen: { [a.id]: a.updatedAt, [b.id]: b.updatedAt },
      };
      const unseen = await applyConsolidationPlan(memory, plan as never);
      assert.equal(unseen.pendingReview, 2);
      const [proposal] = await memory.review.list();
      assert.equal(proposal!.commit.by.kind, 'consolidation');
      await memory.review.rejectAll();
      const seen = await applyConsolidationPlan(memory, plan as never, { reviewed: true });
      assert.equal(seen.pendingReview, 0);
      assert.equal(await memory.memories.get(b.id), null);
      const [merged] = await memory.history(a.id);
      assert.deepEqual([merged!.commit.by.kind, merged!.commit.by.confirmed], ['consolidation', true]);
    } finally {
      await cleanup();
    }
  });
});

describe('corrections', () => {
  it('a correction retires the memory it names: out of search and lists, history kept, undone by reinstate', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [wrong] = await memory.memories.save('a', undefined, { content: 'The staging database is on port 5433' });
      const [fix] = await memory.memories.save('a', undefined, {
        content: 'The staging database is on port 6543',
        category: 'correction',
        supersedes: wrong.id,
      });
      assert.equal(await memory.memories.get(wrong.id), null);
      const found = await memory.memories.search('a', undefined, 'staging database port');
      assert.deepEqual(
        found.map((result) => result.entity.id),
        [fix.id],
      );
      const [retired] = await memory.history(wrong.id);
      assert.deepEqual([retired!.commit.op, retired!.commit.supersededBy], ['supersede', fix.id]);
      assert.equal((await memory.history(fix.id))[0]!.commit.supersedes, wrong.id);
      assert.equal((await memory.verify()).valid, true);

      const retiredList = await memory.memories.superseded('a');
      assert.deepEqual(
        retiredList.map((item) => [item.entity.id, item.supersededBy]),
        [[wrong.id, fix.id]],
      );
      await memory.memories.reinstate(wrong.id);
      assert.ok(await memory.memories.get(wrong.id));
      assert.deepEqual(await memory.memories.superseded('a'), []);
      await rejectsWith(memory.memories.reinstate(wrong.id), 'NOT_FOUND');
    } finally {
      await cleanup();
    }
  });

  it('saveOrUpdate matches a correction to the memory it most likely corrects, and supersedes it', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [wrong] = await memory.memories.save('a', undefined, {
        content: 'The staging database listens on port 5433',
      });
      const [other] = await memory.memories.save('a', undefined, { content: 'Releases are cut on Thursdays' });
      const [fix, commit, outcome] = await memory.memories.saveOrUpdate('a', undefined, {
        content: 'Correction: the staging database listens on port 6543',
        category: 'correction',
      });
      assert.equal(fix.supersedes, wrong.id);
      assert.equal(commit.supersedes, wrong.id);
      assert.equal(outcome.deduplicated, false);
      assert.equal(await memory.memories.get(wrong.id), null);
      assert.ok(await memory.memories.get(other.id));
      // Nothing close enough: saved as a correction of nothing in particular.
      const [lone] = await memory.memories.saveOrUpdate('a', undefined, {
        content: 'Correction: we use pnpm workspaces',
        category: 'correction',
      });
      assert.equal(lone.supersedes, undefined);
      assert.ok(await memory.memories.get(other.id));
    } finally {
      await cleanup();
    }
  });

  it('memory_save takes the id it corrects and says what it superseded; a bad id is a clear error', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const context = { store: memory, scope: { agentId: 'a' } };
      const [wrong] = await memory.memories.save('a', undefined, { content: 'Builds use Node 20' });
      const result = await runOperation(context, 'memory_save', {
        content: 'Builds use Node 24',
        category: 'correction',
        supersedes: wrong.id,
      });
      assert.match(result.text, new RegExp(`It supersedes ${wrong.id}, which is now left out of search and recall`));
      const refused = await rejectsWith(
        runOperation(context, 'memory_save', { content: 'x', supersedes: 'memory-nope' }),
        'INVALID_SUPERSEDE',
      );
      assert.match(refused.message, /cannot supersede "memory-nope": there is no such entity/);
    } finally {
      await cleanup();
    }
  });

  it('refuses a link to a missing, other-scope or pending entity, writing nothing', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [other] = await memory.memories.save('b', undefined, { content: 'agent b' });
      const [mine] = await memory.memories.save('a', 'u1', { content: 'user u1' });
      const [held] = await withProvenance(MCP, () => memory.memories.save('a', undefined, { content: 'held' }));
      for (const target of ['memory-missing', other.id, mine.id, held.id]) {
        await rejectsWith(
          memory.memories.save('a', undefined, { content: 'fix', category: 'correction', supersedes: target }),
          'INVALID_SUPERSEDE',
        );
      }
      assert.equal(await memory.memories.count('a'), 1);
      assert.ok(await memory.memories.get(other.id));
      // A user may correct a workspace-wide memory (their recall shows it), not another user's.
      const [shared] = await memory.memories.save('a', undefined, { content: 'CI uses Node 18' });
      await memory.memories.save('a', 'u1', { content: 'CI uses Node 24', supersedes: shared.id });
      assert.equal(await memory.memories.get(shared.id), null);
      await rejectsWith(
        memory.memories.save('a', 'u2', { content: 'not yours', supersedes: mine.id }),
        'INVALID_SUPERSEDE',
      );
    } finally {
      await cleanup();
    }
  });

  it('a held correction retires nothing until it is approved', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [wrong] = await memory.memories.save('a', undefined, { content: 'old fact' });
      const [fix] = await withProvenance(MCP, () =>
        memory.memories.save('a', undefined, { content: 'new fact', category: 'correction', supersedes: wrong.id }),
      );
      assert.ok(await memory.memories.get(wrong.id));
      await memory.review.approve([fix.id]);
      assert.equal(await memory.memories.get(wrong.id), null);
      assert.equal((await memory.history(wrong.id))[0]!.commit.supersededBy, fix.id);
    } finally {
      await cleanup();
    }
  });
});

describe('revert by writer', () => {
  it('deletes what the writer created and gives back what it changed, as new commits; a dry run lists it', async () => {
    const clock = new FakeClock();
    const { memory, cleanup } = await openTemp({ now: clock.now, review: 'immediate' });
    try {
      const [kept] = await memory.memories.save('a', undefined, { content: 'written by a person' });
      clock.advance(1000);
      const start = clock.now().toISOString();
      const [created] = await withProvenance(MCP, () =>
        memory.memories.save('a', undefined, { content: 'by the agent' }),
      );
      await withProvenance(MCP, () => memory.memories.update(kept.id, { content: 'changed by the agent' }));
      await withProvenance(MCP, () => memory.memories.update(kept.id, { content: 'changed again by the agent' }));
      const [other] = await withProvenance({ ...MCP, name: 'Other client' }, () =>
        memory.memories.save('a', undefined, { content: 'another client' }),
      );

      const preview = await memory.revert({ by: 'mcp', name: 'Claude Desktop', since: start }, { dryRun: true });
      assert.deepEqual(
        preview.items.map((item) => [item.id, item.action, item.commits]).sort(),
        [
          [created.id, 'delete', 1],
          [kept.id, 'restore', 2],
        ].sort(),
      );
      assert.deepEqual(preview.commits, []);
      assert.ok(await memory.memories.get(created.id), 'a dry run changes nothing');

      const report = await memory.revert({ by: 'mcp', name: 'Claude Desktop' });
      assert.equal(report.commits.length, 2);
      assert.equal(await memory.memories.get(created.id), null);
      assert.equal((await memory.memories.get(kept.id))?.content, 'written by a person');
      assert.ok(await memory.memories.get(other.id));
      assert.equal((await memory.history(kept.id))[0]!.commit.op, 'revert');
      await rejectsWith(memory.revert({ by: 'mcp', name: 'Claude Desktop' }), 'NOTHING_TO_REVERT');
      await rejectsWith(memory.revert({ by: 'robot' as never }), 'UNKNOWN_WRITER');
      await rejectsWith(memory.revert({ by: 'mcp', since: 'yesterday' }), 'INVALID_INPUT');
      await rejectsWith(memory.revert({ by: 'mcp', since: '2026-02-01', until: '2026-01-01' }), 'INVALID_INPUT');
      assert.equal((await memory.verify()).valid, true);
    } finally {
      await cleanup();
    }
  });

  it('narrows by conversation, and reverts a correction by putting the corrected memory back', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [fact] = await memory.memories.save('a', undefined, { content: 'tabs' });
      await withProvenance({ ...COPILOT, conversation: 'c-2' }, () =>
        memory.memories.save('a', undefined, { content: 'spaces', category: 'correction', supersedes: fact.id }),
      );
      const [elsewhere] = await withProvenance(COPILOT, () =>
        memory.memories.save('a', undefined, { content: 'in c-1' }),
      );
      await memory.revert({ by: 'copilot', conversation: 'c-2' });
      assert.equal((await memory.memories.get(fact.id))?.content, 'tabs');
      assert.ok(await memory.memories.get(elsewhere.id));
      assert.deepEqual((await memory.memories.list('a')).map((m) => m.content).sort(), ['in c-1', 'tabs']);
    } finally {
      await cleanup();
    }
  });
});
