import * as assert from 'node:assert/strict';

import type { CommitInfo, MemoryEntity } from '../../src/core/types';
import { isReadOnly, parseEntityDocument, renderEntity, versionNote } from '../../src/extension/documents/format';

const memory: MemoryEntity = {
  id: 'memory-1',
  type: 'memory',
  agentId: 'default',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  content: 'Staging deploys run nightly.',
  tags: ['deploy'],
  category: 'fact',
};

let seq = 0;
function commit(fields: Partial<CommitInfo>): CommitInfo {
  seq++;
  return {
    hash: `h${seq}`,
    entityId: 'memory-1',
    parent: null,
    object: `o${seq}`,
    time: '2026-01-02T00:00:00.000Z',
    author: 'ana',
    message: 'create memory',
    op: 'create',
    by: { kind: 'user', name: 'ana' },
    ...fields,
  };
}

const MCP = { kind: 'mcp', name: 'Claude Desktop', version: '0.9.1', tool: 'memory_save' } as const;

describe('entity documents: who wrote them, and review', () => {
  it('names the writer of the version in the header, as the History view does', () => {
    const note = versionNote([commit({ by: { kind: 'copilot', tool: 'memory_update' }, op: 'update' })]);
    assert.deepEqual(note, { writtenBy: 'by Copilot · memory_update' });
    assert.match(renderEntity(memory, false, note), /^# written by Copilot · memory_update$/m);
    // A commit made before provenance was recorded names its author.
    const legacy = versionNote([commit({ by: { kind: 'unknown', name: 'bob', legacy: true }, author: 'bob' })]);
    assert.equal(legacy?.writtenBy, 'by bob');
  });

  it('credits an approved write to its writer and names who approved it', () => {
    const queued = commit({ by: MCP, review: 'pending' });
    const approved = commit({ op: 'approve', object: queued.object, message: 'approve memory' });
    const note = versionNote([approved, queued]);
    assert.deepEqual(note, { writtenBy: 'by Claude Desktop 0.9.1 (MCP) · memory_save', approvedBy: 'by ana' });
    assert.match(
      renderEntity(memory, false, note),
      /^# written by Claude Desktop 0\.9\.1 \(MCP\) · memory_save, approved by ana$/m,
    );
    // Approved with the reviewer's edits: a new version, written by the reviewer.
    const edited = commit({ op: 'approve', message: 'approve memory (edited)' });
    assert.deepEqual(versionNote([edited, queued]), { writtenBy: 'by ana' });
  });

  it('says a write waits for review, that saving approves it, and what a proposal would change', () => {
    const pending = versionNote([commit({ by: MCP, review: 'pending' })])!;
    const text = renderEntity(memory, false, pending);
    assert.match(text, /^# Waiting for review\.$/m);
    assert.match(text, /Saving approves it with your edits/);
    assert.equal(isReadOnly(memory, false, pending), false);
    // The document still parses back into the edit that approving it applies.
    assert.deepEqual(parseEntityDocument(text.replace('nightly', 'hourly'), memory), {
      content: 'Staging deploys run hourly.',
    });

    const update = versionNote([
      commit({ by: MCP, review: 'pending', proposes: { action: 'update', target: 'memory-0' } }),
    ])!;
    assert.match(renderEntity(memory, false, update), /^# Waiting for review: approving it updates memory-0\.$/m);

    const deletion = versionNote([
      commit({ by: MCP, review: 'pending', proposes: { action: 'delete', target: 'memory-0' } }),
    ])!;
    const deleting = renderEntity(memory, false, deletion);
    assert.match(deleting, /approving it deletes memory-0\./);
    assert.match(deleting, /Read-only: Approve or Reject it in the Memory view\./);
    assert.equal(isReadOnly(memory, false, deletion), true);
  });

  it('names the memory a correction corrects', () => {
    assert.match(renderEntity({ ...memory, supersedes: 'memory-0' }), /^# corrects memory-0$/m);
    assert.doesNotMatch(renderEntity(memory), /# corrects/);
  });

  it('leaves the review out of an old version’s header: it was pending then, not now', () => {
    const queued = versionNote([commit({ by: MCP, review: 'pending' })]);
    const old = renderEntity(memory, true, queued);
    assert.match(old, /^# written by Claude Desktop/m);
    assert.doesNotMatch(old, /Waiting for review|Saving approves/);
    assert.match(old, /An old version, read-only/);
  });

  it('points a retired memory’s version to Reinstate, not to Restore This Version', () => {
    const note = { ...versionNote([commit({})])!, supersededBy: 'memory-2' };
    const retired = renderEntity(memory, true, note);
    assert.match(retired, /^# Superseded by memory-2, read-only: Reinstate .* brings it back\.$/m);
    assert.doesNotMatch(retired, /Restore This Version/);
    assert.equal(isReadOnly(memory, true, note), true);
  });
});
