// The @memory participant driven through the chat view, as a user would type
// it, with the fake deterministic model selected: each command's effect on
// the store, the model's requests and the conversation's session.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { MemoryEntity } from '../../../src/core/types';
import { COMMANDS } from '../../../src/extension/commands/ids';
import { extensionApi, waitFor } from './extension-api';
import { fakeModel, lastReply, sendChat, session } from './fake-model';
import { screenshot } from './harness';

async function store() {
  const { services } = await extensionApi();
  return { memory: await services.memory(), scope: services.scope() };
}

describe('@memory chat participant', function () {
  this.timeout(120_000);

  before(async () => {
    await extensionApi();
    await fakeModel();
    // A conversation of its own: earlier runs (a kept workspace) leave none behind.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  it('/remember saves the prompt as a memory, stores the turn and undoes on request', async () => {
    const { metadata } = await sendChat('@memory /remember The billing job runs at 03:00 marina time');
    assert.ok(metadata?.saved, JSON.stringify(metadata));
    const [created] = metadata.saved.created;
    assert.ok(created, 'one memory created');
    const { memory } = await store();
    const saved = await memory.memories.get(created.id);
    assert.equal(saved?.content, 'The billing job runs at 03:00 marina time');
    // Written by the person, through this chat's model and command, in this conversation.
    const { commit } = (await memory.history(created.id))[0]!;
    const model = await fakeModel();
    assert.deepEqual(
      [commit.by.kind, commit.by.model, commit.by.tool, commit.by.conversation],
      ['user', model.modelId, '@memory /remember', metadata.conversationId],
    );

    const stored = await session(metadata);
    assert.equal(stored.conversationId, metadata.conversationId);
    assert.equal(stored.messages?.[0]?.content, '/remember The billing job runs at 03:00 marina time');
    assert.match(stored.messages?.[1]?.content ?? '', new RegExp(created.id));

    const undone = await vscode.commands.executeCommand<number>(COMMANDS.undoChatSave, metadata.saved);
    assert.equal(undone, 1);
    assert.equal(await memory.memories.get(created.id), null);
  });

  it('/search lists matching memories in the same conversation, citing them', async () => {
    const first = await sendChat('@memory /remember Harbor invoices are sent on the first Monday of the month');
    const id = first.metadata!.saved!.created[0]!.id;
    const { metadata } = await sendChat('@memory /search invoices Monday');
    assert.equal(metadata?.conversationId, first.metadata?.conversationId, 'one conversation, one session');
    assert.equal(metadata?.sessionId, first.metadata?.sessionId);
    assert.ok(
      metadata?.cited?.some((uri) => uri.includes(id)),
      JSON.stringify(metadata?.cited),
    );
    assert.match(await lastReply(metadata!), new RegExp(id));
    // Every turn so far is in the session: three turns, two messages each.
    assert.equal((await session(metadata!)).messages?.length, 6);
  });

  it('/recall reasons with the chat’s model when workspaceMemory.ai.reasoning asks, and says so', async () => {
    const { memory, scope } = await store();
    const [vpn] = await memory.memories.save(scope.agentId, scope.userId, {
      content: 'The berth VPN profile lives in ops/berths.conf',
    });
    const question = '@memory /recall how do I reach the network';
    const plain = await sendChat(question);
    assert.doesNotMatch(await lastReply(plain.metadata!), new RegExp(vpn.id), 'plain recall misses it');
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('ai.reasoning', 'rewrite', vscode.ConfigurationTarget.Workspace);
    try {
      const model = await fakeModel();
      const asked = model.requests.length;
      const { metadata } = await sendChat(question);
      const reply = await lastReply(metadata!);
      assert.match(reply, new RegExp(vpn.id), 'the rewritten query (network → vpn) finds it');
      assert.match(reply, /Recalled with rewrite: 2 searches\./);
      assert.ok(
        model.requests
          .slice(asked)
          .some((request) => request.messages.some((message) => /You improve search queries/.test(message.text))),
        'the chat’s model was asked to rewrite',
      );
    } finally {
      await config.update('ai.reasoning', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('/remember Correction: retires the memory it corrects, and Undo puts it back', async () => {
    // A conversation of its own, so the turn counts of the others stay as they are.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    const first = await sendChat('@memory /remember The harbour crane is serviced every March');
    const wrongId = first.metadata!.saved!.created[0]!.id;
    const { metadata } = await sendChat('@memory /remember Correction: the harbour crane is serviced every April');
    assert.ok(metadata?.saved, JSON.stringify(metadata));
    assert.deepEqual(metadata.saved.superseded, [wrongId]);
    const { memory } = await store();
    const fix = await memory.memories.get(metadata.saved.created[0]!.id);
    assert.deepEqual(
      [fix?.content, fix?.category, fix?.supersedes],
      ['the harbour crane is serviced every April', 'correction', wrongId],
    );
    assert.equal(await memory.memories.get(wrongId), null, 'retired by the correction');
    assert.match(await lastReply(metadata), new RegExp(`It corrects memory \`${wrongId}\``));
    const undone = await vscode.commands.executeCommand<number>(COMMANDS.undoChatSave, metadata.saved);
    assert.equal(undone, 2);
    assert.equal((await memory.memories.get(wrongId))?.content, 'The harbour crane is serviced every March');
    await memory.memories.delete(wrongId);
  });

  it('/forget asks first and deletes nothing until the button is clicked', async () => {
    const { metadata: saved } = await sendChat('@memory /remember The old staging host was harbor-old');
    const id = saved!.saved!.created[0]!.id;
    const { metadata } = await sendChat(`@memory /forget ${id}`);
    const { memory } = await store();
    assert.ok(await memory.memories.get(id), 'still there: nobody clicked Forget');
    assert.match(await lastReply(metadata!), /\[Forget\]/);
  });

  it('/history and /snapshot answer from the store', async () => {
    const { memory, scope } = await store();
    const [entity] = await memory.memories.save(scope.agentId, scope.userId, {
      content: 'Berths are numbered by pontoon',
    });
    await memory.memories.update(entity.id, { content: 'Berths are numbered by pontoon and position' });
    const history = await sendChat(`@memory /history ${entity.id}`);
    assert.match(await lastReply(history.metadata!), /\*\*update\*\*[\s\S]*\*\*create\*\*/);
    // A forgotten memory keeps its history, and /history still finds it by id.
    await memory.memories.delete(entity.id);
    const afterDelete = await sendChat(`@memory /history ${entity.id}`);
    assert.match(await lastReply(afterDelete.metadata!), /\*\*delete\*\*[\s\S]*\*\*update\*\*[\s\S]*\*\*create\*\*/);

    const label = `chat-${Date.now().toString(36)}`;
    await sendChat(`@memory /snapshot ${label}`);
    assert.ok((await memory.listSnapshots()).some((snapshot) => snapshot.label === label));
  });

  it('/ask answers from the documents with the chat model, citing the files', async () => {
    const { memory, scope } = await store();
    await waitFor(
      'the sample documents to be synced',
      async () => (await memory.rag.status(scope.agentId)).chunks > 0,
      30_000,
    );
    const model = await fakeModel();
    const before = model.requests.length;
    const { metadata } = await sendChat('@memory /ask Why is there an exclusion constraint for overlapping bookings?');
    const request = model.requests.at(-1);
    assert.ok(model.requests.length > before && request, 'the fake model was asked');
    const prompt = request.messages.map((m) => m.text).join('\n');
    assert.match(prompt, /Sources:/);
    assert.match(prompt, /docs\/decisions\.md/);
    assert.match(await lastReply(metadata!), /^FAKE ANSWER: see \[1\] /);
    assert.ok(
      metadata?.cited?.some((uri) => /^file:.*\/docs\/decisions\.md#\d+$/.test(uri)),
      `a file location is cited: ${JSON.stringify(metadata?.cited)}`,
    );
    await screenshot('chat');
  });

  it('a prompt without a command is answered from recall by the chat model', async () => {
    const { metadata } = await sendChat('@memory The nightly job rebuilds the search index at 02:00');
    assert.match(await lastReply(metadata!), /^FAKE RECALL ANSWER to: The nightly job rebuilds/);
  });

  it('/mine extracts memories and profile facts from this conversation; they wait for review', async () => {
    // A conversation of its own: /mine reads this one's turns.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await sendChat('@memory The nightly job rebuilds the search index at 02:00');
    await sendChat('@memory I prefer short answers with commands to copy');
    const { metadata } = await sendChat('@memory /mine');
    assert.ok(metadata?.saved, JSON.stringify(metadata));
    const { memory } = await store();
    const ids = metadata.saved.created.map(({ id }) => id);
    // Mining's writes wait for a person: not served until approved, written by mining.
    assert.deepEqual(
      await Promise.all(ids.map((id) => memory.get(id))),
      ids.map(() => null),
    );
    const pending = (await memory.review.list()).filter((item) => ids.includes(item.entity.id));
    assert.equal(pending.length, ids.length);
    assert.ok(pending.every((item) => item.commit.by.kind === 'mining'));
    await memory.review.approve(ids);
    const created = await Promise.all(ids.map((id) => memory.get(id)));
    const contents = created.map((entity) => entity?.content ?? '');
    assert.ok(contents.includes('The nightly job rebuilds the search index at 02:00'), JSON.stringify(contents));
    const mined = created.find((entity) => entity?.content.startsWith('The nightly job')) as MemoryEntity;
    assert.equal(mined.sourceSession, metadata.sessionId, 'the memory names the session it came from');
    const profiles = [...metadata.saved.created, ...metadata.saved.updated].filter((item) => item.type === 'profile');
    assert.equal(profiles.length, 1, 'the preference went to the profile');
    assert.match((await memory.get(profiles[0]!.id))?.content ?? '', /I prefer short answers/);
    assert.equal((await session(metadata)).mined, true);
  });

  /** Runs `work` in a new conversation with auto-mining on after `delaySeconds`, then turns it off again. */
  async function withAutoMining(delaySeconds: number, work: (config: vscode.WorkspaceConfiguration) => Promise<void>) {
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('mining.auto', true, vscode.ConfigurationTarget.Workspace);
    await config.update('mining.autoDelaySeconds', delaySeconds, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await work(config);
    } finally {
      await config.update('mining.auto', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('mining.autoDelaySeconds', undefined, vscode.ConfigurationTarget.Workspace);
    }
  }

  it('mines a quiet conversation by itself when auto-mining is on', async () => {
    await withAutoMining(1, async () => {
      const { metadata } = await sendChat('@memory I prefer dark themes in every editor');
      const { memory } = await store();
      // Waiting for review, as everything mining writes by default.
      const item = await waitFor('the auto-mined profile fact', async () =>
        (await memory.review.list()).find((pending) => /I prefer dark themes/.test(pending.entity.content)),
      );
      assert.equal(item.commit.by.kind, 'mining');
      assert.equal((await session(metadata!)).mined, true);
      await memory.review.reject([item.entity.id]);
    });
  });

  it('drops a scheduled auto-mining when auto-mining is turned off meanwhile', async () => {
    await withAutoMining(2, async (config) => {
      const { metadata } = await sendChat('@memory The harbour office closes at noon on Saturdays');
      await config.update('mining.auto', undefined, vscode.ConfigurationTarget.Workspace);
      await new Promise((resolve) => setTimeout(resolve, 3500));
      assert.notEqual((await session(metadata!)).mined, true);
    });
  });

  it('/consolidate shows a plan first and changes nothing until it is applied', async () => {
    const { memory, scope } = await store();
    const [a] = await memory.memories.save(scope.agentId, scope.userId, {
      content: 'Duplicate note: the cache keeps entries for 60 seconds',
    });
    const [b] = await memory.memories.save(scope.agentId, scope.userId, {
      content: 'Duplicate note: cached entries expire after a minute',
    });
    const { metadata } = await sendChat('@memory /consolidate memory');
    const plan = metadata?.plan;
    assert.ok(plan, JSON.stringify(metadata));
    assert.deepEqual(
      plan.merges.map((merge) => [...merge.ids].sort()),
      [[a.id, b.id].sort()],
    );
    assert.ok((await memory.memories.get(a.id)) && (await memory.memories.get(b.id)), 'a plan writes nothing');

    await vscode.commands.executeCommand(COMMANDS.applyConsolidationPlan, plan);
    const left = [await memory.memories.get(a.id), await memory.memories.get(b.id)].filter(Boolean);
    assert.equal(left.length, 1, 'merged into one');
  });
});
