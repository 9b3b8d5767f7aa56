// Measures how soon a saved edit to a cited file marks the memory citing it
// stale in the views (the aim: within 1 s): edited and saved in the editor
// (a WorkspaceEdit, then save), and written on disk by another program,
// ten times each, timed until the Collections view's Stale group lists the
// memory. Runs after extension-host.test.ts in `npm run bench:vscode`, on
// the store that one leaves open; alone, on the 10k store, with
// `npm run bench:vscode -- --grep "stale in the views"`.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import { extensionApi, waitFor } from '../suite/extension-api';
import { report } from '../suite/harness';

const ROUNDS = 10;
/** How long a result may take before the measurement gives up on it. */
const GIVE_UP_MS = 10_000;
/** A pause between rounds, so that a late file-watcher event of one round does not delay the next. */
const PAUSE_MS = 1_000;

const encode = (text: string) => new TextEncoder().encode(text);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ids the Stale group lists, read as the view reads them. */
async function staleIds(): Promise<Set<string>> {
  const { views } = await extensionApi();
  const group = (await views.collections.getChildren()).find((node) => node.kind === 'stale');
  const rows = group ? await views.collections.getChildren(group) : [];
  return new Set(rows.flatMap((node) => (node.kind === 'staleItem' ? [node.entity.id] : [])));
}

/**
 * Milliseconds from `act` (the save, the write) until the Stale group lists
 * the entity (or, with `listed` false, no longer does). Looked at each time
 * the views are told the stale ones changed, as the view itself refreshes,
 * and not by polling the store.
 */
async function until(entityId: string, listed: boolean, act: () => PromiseLike<unknown>): Promise<number> {
  const { views } = await extensionApi();
  let started = 0;
  let answer: (ms: number) => void = () => undefined;
  const reached = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ${listed ? 'listed' : 'gone'} after ${GIVE_UP_MS} ms`)),
      GIVE_UP_MS,
    );
    answer = (ms) => {
      clearTimeout(timer);
      resolve(ms);
    };
  });
  const listening = views.stale.onDidChange(() => {
    // A failed look leaves the answer to the timeout, which says what was waited for.
    void staleIds().then(
      (ids) => ids.has(entityId) === listed && answer(performance.now() - started),
      () => undefined,
    );
  });
  try {
    started = performance.now();
    await act();
    return await reached;
  } finally {
    listening.dispose();
  }
}

function figures(times: readonly number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  const max = sorted.at(-1)!;
  return `median ${median.toFixed(0)} ms, max ${max.toFixed(0)} ms (in order: ${times.map((ms) => ms.toFixed(0)).join(', ')})${max <= 1000 ? '' : '; over 1 s'}`;
}

describe('stale in the views after a saved edit', function () {
  this.timeout(300_000);

  it('a saved edit to a cited file marks its memory stale in the views within 1 s', async () => {
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const code = ['// retry policy', 'export const RETRIES = 3;', 'export const BACKOFF_MS = 200;', ''];
    const original = code.join('\n');
    const uri = vscode.Uri.joinPath(
      vscode.workspace.workspaceFolders![0]!.uri,
      `stale-latency-${Date.now().toString(36)}.ts`,
    );
    await vscode.workspace.fs.writeFile(uri, encode(original));
    const path = vscode.workspace.asRelativePath(uri, false);
    const { agentId, userId } = services.scope();
    const [entity] = await memory.memories.save(agentId, userId, {
      content: 'Jobs retry three times, 200 ms apart',
      citations: [{ path, startLine: 2, endLine: 3 }],
    });
    try {
      await waitFor('the citation to be known', () => views.stale.cited(path));
      const stats = await memory.stats();

      // In the editor: the line changed by a WorkspaceEdit, then saved; put back the same way.
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document);
      const setLine = async (text: string) => {
        const edit = new vscode.WorkspaceEdit();
        edit.replace(uri, document.lineAt(1).range, text);
        assert.ok(await vscode.workspace.applyEdit(edit));
      };
      const editor: number[] = [];
      const editorBack: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await setLine(`export const RETRIES = ${round + 4};`);
        editor.push(await until(entity.id, true, () => document.save()));
        await setLine(code[1]!);
        editorBack.push(await until(entity.id, false, () => document.save()));
        await pause(PAUSE_MS);
      }
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');

      // On disk, by another program, with the file closed.
      const disk: number[] = [];
      const diskBack: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const changed = original.replace('RETRIES = 3', `RETRIES = ${round + 4}`);
        disk.push(await until(entity.id, true, () => vscode.workspace.fs.writeFile(uri, encode(changed))));
        diskBack.push(await until(entity.id, false, () => vscode.workspace.fs.writeFile(uri, encode(original))));
        await pause(PAUSE_MS);
      }

      await report(
        `[measure] stale in the Stale group after a saved edit to a cited file (store of ${stats.memories} memories, ${ROUNDS} rounds each):`,
      );
      await report(`[measure]   saved in the editor: ${figures(editor)}`);
      await report(`[measure]   written on disk: ${figures(disk)}`);
      await report(`[measure]   current again after the edit is undone, in the editor: ${figures(editorBack)}`);
      await report(`[measure]   current again after the edit is undone, on disk: ${figures(diskBack)}`);
    } finally {
      await memory.memories.deleteMany([entity.id]);
      await vscode.workspace.fs.delete(uri);
    }
  });
});
