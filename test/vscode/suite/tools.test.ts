// Every language model tool, called as any extension would through
// vscode.lm.invokeTool, checked against the store. Destructive tools ask for
// confirmation outside chat with a modal dialog, so those are invoked as
// approved through the fake model extension (see fixtures/fake-model).
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import { EXTENSION_ID, extensionApi, waitFor } from './extension-api';
import { fakeModel, toolText } from './fake-model';

async function invoke(name: string, input: object): Promise<string> {
  return toolText(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));
}

async function invokeApproved(name: string, input: object): Promise<string> {
  return toolText(await (await fakeModel()).invokeToolApproved(name, input));
}

function idIn(text: string, type: string): string {
  const match = new RegExp(`\\b${type}-[0-9a-z]+`).exec(text);
  assert.ok(match, `an id of a ${type} in: ${text}`);
  return match[0];
}

describe('language model tools', () => {
  before(async () => {
    await extensionApi();
  });

  it('every tool the manifest declares is registered', () => {
    const declared = (
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
        contributes: { languageModelTools: { name: string }[] };
      }
    ).contributes.languageModelTools.map((tool) => tool.name);
    assert.equal(declared.length, 13);
    const registered = vscode.lm.tools.map((tool) => tool.name);
    for (const name of declared) assert.ok(registered.includes(name), `${name} in ${registered.join(', ')}`);
  });

  it('memory_save, memory_search and memory_recall', async () => {
    const memoryId = idIn(
      await invoke('memory_save', { content: 'Pontoon C is closed for dredging until May', tags: ['pontoon'] }),
      'memory',
    );
    const { services } = await extensionApi();
    assert.equal(
      (await (await services.memory()).memories.get(memoryId))?.content,
      'Pontoon C is closed for dredging until May',
    );
    assert.match(await invoke('memory_search', { query: 'pontoon dredging' }), new RegExp(memoryId));
    assert.match(await invoke('memory_recall', { query: 'is pontoon C open?' }), /closed for dredging/);
  });

  it('memory_search reasons with a model VS Code offers when the agent asks for it', async () => {
    const memoryId = idIn(await invoke('memory_save', { content: 'The slipway VPN needs the harbour key' }), 'memory');
    assert.doesNotMatch(await invoke('memory_search', { query: 'slipway network' }), /Reasoning/);
    const model = await fakeModel();
    const asked = model.requests.length;
    const text = await invoke('memory_search', { query: 'slipway network', reasoning: 'rewrite' });
    assert.match(text, new RegExp(memoryId));
    assert.match(text, /\(Reasoning: rewrite; 2 searches run\.\)$/);
    assert.equal(model.requests.length, asked + 1, 'one rewrite asked of the model');
  });

  it('memory_save keeps the lines an agent cites from the workspace, and recall marks the memory once they change', async () => {
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, `cited-${Date.now().toString(36)}.sh`);
    const relative = vscode.workspace.asRelativePath(file, false);
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('set -e\nmake dredge-report\n'));
    try {
      const memoryId = idIn(
        await invoke('memory_save', {
          content: 'The dredge report is built by make dredge-report',
          citations: [{ path: relative, startLine: 2, endLine: 2 }],
        }),
        'memory',
      );
      const { services } = await extensionApi();
      const memory = await services.memory();
      assert.equal((await memory.memories.get(memoryId))?.citations?.[0]?.text, 'make dredge-report');
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('set -e\nmake dredging-report\n'));
      assert.match(
        await invoke('memory_recall', { query: 'how is the dredge report built?' }),
        new RegExp(
          `\\*\\*May be outdated\\*\\*: the code it cites no longer says what it did \\(\`${relative}:2\` changed`,
        ),
      );
      // What an agent about to edit the file asks for.
      const forFile = await invoke('memory_for_files', { paths: [relative] });
      assert.match(forFile, new RegExp(`1 memory or skill is about \`${relative}\``));
      assert.match(forFile, /make dredge-report/);
      assert.match(forFile, new RegExp(`cites \`${relative}:2\` \\(changed\\)`));
      await assert.rejects(
        invoke('memory_save', { content: 'x', citations: [{ path: relative, startLine: 5, endLine: 9 }] }),
        /beyond the end of/,
      );
    } finally {
      await vscode.workspace.fs.delete(file);
    }
  });

  it('memory_update, memory_history and memory_forget', async () => {
    // A memory of its own, not the one the test above saved: it runs alone too.
    const memoryId = idIn(
      await invoke('memory_save', { content: 'The slipway winch is out of service until April' }),
      'memory',
    );
    assert.match(
      await invokeApproved('memory_update', { id: memoryId, content: 'The slipway winch works again' }),
      /Updated memory/,
    );
    const { services } = await extensionApi();
    const memory = await services.memory();
    assert.equal((await memory.memories.get(memoryId))?.content, 'The slipway winch works again');
    const history = await invoke('memory_history', { id: memoryId });
    assert.match(history, /update[\s\S]*create/);
    assert.match(await invokeApproved('memory_forget', { id: memoryId }), /Forgot memory/);
    assert.equal(await memory.memories.get(memoryId), null);
  });

  it('records each write as Copilot’s, through its tool, and one the person confirmed as confirmed', async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    const id = idIn(await invoke('memory_save', { content: 'The harbour office opens at 07:30' }), 'memory');
    const [saved] = await memory.history(id);
    assert.deepEqual(saved!.commit.by, { kind: 'copilot', tool: 'memory_save' });
    await invokeApproved('memory_update', { id, content: 'The harbour office opens at 08:00' });
    const [updated] = await memory.history(id);
    assert.deepEqual(updated!.commit.by, { kind: 'copilot', tool: 'memory_update', confirmed: true });
  });

  it('a bad argument reaches the caller as an error it can act on', async () => {
    await assert.rejects(invoke('memory_history', { id: 'memory-doesnotexist' }), /NOT_FOUND/);
  });

  it('skill_save and skill_search', async () => {
    const id = idIn(
      await invoke('skill_save', {
        content: 'To haul out a boat: 1. book the travel lift 2. empty the tanks',
        category: 'procedure',
      }),
      'skill',
    );
    assert.match(await invoke('skill_search', { query: 'haul out travel lift' }), new RegExp(id));
  });

  it('docs_search finds the synced sample documents', async () => {
    const text = await waitFor(
      'the documents to be searchable',
      async () => {
        const found = await invoke('docs_search', { query: 'exclusion constraint overlapping bookings' });
        return /decisions\.md/.test(found) && found;
      },
      30_000,
    );
    assert.match(text, /docs\/decisions\.md/);
  });

  it('session_search finds a turn of a past conversation, with who said it and when', async () => {
    const { services } = await extensionApi();
    const { agentId, userId } = services.scope();
    const memory = await services.memory();
    const [session] = await memory.sessions.save(agentId, userId, {
      conversationId: 'harbor-planning',
      messages: [
        { role: 'user', name: 'Ines', content: 'Which crane lifts the dredger?', timestamp: '2026-03-02T09:00:00Z' },
        { role: 'assistant', name: 'Tomas', content: 'The mobile crane at quay 4.', timestamp: '2026-03-02T09:01:00Z' },
      ],
    });
    try {
      const text = await invoke('session_search', { query: 'which crane lifts the dredger' });
      assert.match(
        text,
        new RegExp(`\`Ines\` \\(conversation \`harbor-planning\`, session ${session.id}, turn 0, 2026-03-02T09:00:00Z`),
      );
      assert.match(text, /The mobile crane at quay 4\./, 'the answer, found through the question beside it');
    } finally {
      await memory.sessions.delete(session.id);
    }
  });

  it('profile_update and profile_get', async () => {
    assert.match(await invokeApproved('profile_update', { content: 'Harbor master; prefers metric units' }), /profile/);
    assert.match(await invoke('profile_get', {}), /prefers metric units/);
  });
});
