// /remember cites the code a chat request references, driven through the
// chat view with files attached as a user attaches them (#selection, #file):
// each test writes the files it cites, and removes them and its memories.
import * as assert from 'node:assert/strict';
import * as os from 'node:os';

import * as vscode from 'vscode';

import { appliesTo } from '../../../src/core/anchors/applies-to';
import { referenceCitations } from '../../../src/extension/anchors/chat-references';
import { extensionApi } from './extension-api';
import { type ChatOpenResult, fakeModel } from './fake-model';

const encode = (text: string) => new TextEncoder().encode(text);

/** A file attached to a chat request: whole, or some of its lines (1-based, as the chat's editor counts them). */
type Attachment =
  | vscode.Uri
  | {
      uri: vscode.Uri;
      range: { startLineNumber: number; startColumn: number; endLineNumber: number; endColumn: number };
    };

/** Sends `query` with files attached (what #file and #selection attach) and waits for the reply. */
async function sendWithFiles(query: string, attachFiles: Attachment[]): Promise<ChatOpenResult> {
  const model = await fakeModel();
  const result = await vscode.commands.executeCommand<ChatOpenResult | undefined>('workbench.action.chat.open', {
    query,
    attachFiles,
    modelSelector: { vendor: model.vendor, id: model.modelId },
    blockOnResponse: true,
  });
  if (!result) throw new Error(`The chat returned no result for ${query}`);
  if (result.errorDetails) throw new Error(`The chat failed on ${query}: ${result.errorDetails.message}`);
  return result;
}

describe('/remember citing referenced code', function () {
  this.timeout(120_000);
  const made: vscode.Uri[] = [];
  const memories: string[] = [];

  before(async () => {
    await extensionApi();
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });
  after(async () => {
    const memory = await (await extensionApi()).services.memory();
    const live = (await Promise.all(memories.map((id) => memory.memories.get(id)))).flatMap((entity) =>
      entity ? [entity.id] : [],
    );
    if (live.length) await memory.memories.deleteMany(live);
    for (const uri of made) await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
  });

  async function writeFile(folder: vscode.Uri, name: string, lines: readonly string[]): Promise<vscode.Uri> {
    const uri = vscode.Uri.joinPath(folder, `${name}-${Date.now().toString(36)}.ts`);
    made.push(uri);
    await vscode.workspace.fs.writeFile(uri, encode(`${lines.join('\n')}\n`));
    return uri;
  }

  /** The memory a /remember reply saved, and what the reply said. */
  async function saved(result: ChatOpenResult) {
    const id = result.metadata?.saved?.created[0]?.id;
    assert.ok(id, `a memory was created: ${JSON.stringify(result.metadata)}`);
    memories.push(id);
    const { services } = await extensionApi();
    const memory = await services.memory();
    const entity = await memory.memories.get(id);
    assert.ok(entity, 'the memory is stored');
    const session = result.metadata?.sessionId ? await memory.sessions.get(result.metadata.sessionId) : null;
    return { entity, reply: session?.messages?.at(-1)?.content ?? '' };
  }

  it('a selection attached to /remember is cited by its lines, without the line its end stops at', async () => {
    const workspace = vscode.workspace.workspaceFolders![0]!.uri;
    const code = [
      '// fees',
      'export const BERTH_FEE = 40;',
      'export const NIGHT_FEE = 12;',
      'export const WATER_FEE = 3;',
    ];
    const uri = await writeFile(workspace, 'cited-fees', [...code, 'export const POWER_FEE = 5;']);
    const path = vscode.workspace.asRelativePath(uri, false);
    // Lines 2 to 4, the selection ending at the start of line 5 as a whole-line selection does.
    const range = { startLineNumber: 2, startColumn: 1, endLineNumber: 5, endColumn: 1 };

    const { entity, reply } = await saved(
      await sendWithFiles('@memory /remember Harbour fees are set per night in one table', [{ uri, range }]),
    );

    assert.equal(entity.content, 'Harbour fees are set per night in one table');
    assert.deepEqual(
      entity.citations?.map(({ path: cited, startLine, endLine, text }) => ({ cited, startLine, endLine, text })),
      [{ cited: path, startLine: 2, endLine: 4, text: code.slice(1).join('\n') }],
    );
    assert.ok(reply.includes(`It cites \`${path}:2-4\``), reply);
  });

  it('a long file is applied to rather than cited, and a file outside the workspace is left out with a reason', async () => {
    const workspace = vscode.workspace.workspaceFolders![0]!.uri;
    // Brackets mean something in a glob: the glob the memory applies to still names this file alone.
    const long = await writeFile(
      workspace,
      'cited-tides[v2]',
      Array.from({ length: 60 }, (_, i) => `export const TIDE_${i} = ${i};`),
    );
    const outside = await writeFile(vscode.Uri.file(os.tmpdir()), 'outside-tides', ['export const TIDE = 1;']);
    const path = vscode.workspace.asRelativePath(long, false);

    const { entity, reply } = await saved(
      await sendWithFiles('@memory /remember Tide constants are numbered from zero', [long, outside]),
    );

    assert.equal(entity.citations, undefined, 'nothing cited by line');
    assert.deepEqual(entity.appliesTo, [path.replace(/[[\]]/g, (bracket) => `[${bracket}]`)]);
    assert.ok(appliesTo(entity.appliesTo, path, []), 'the glob matches the file');
    assert.ok(!appliesTo(entity.appliesTo, path.replace('[v2]', 'v'), []), 'and not a file of a name like it');
    assert.ok(reply.includes(`It applies to \`${path}\``), reply);
    assert.match(reply, /Not cited:[\s\S]*outside-tides-[\s\S]*: outside the workspace folders/);
  });

  it('a reference written in the prompt becomes the place it cites, what VS Code attaches by itself is not cited, nor what is no file', async () => {
    const workspace = vscode.workspace.workspaceFolders![0]!.uri;
    const uri = await writeFile(workspace, 'cited-locks', ['// locks', 'export const LOCK_OPENS = "06:00";']);
    const path = vscode.workspace.asRelativePath(uri, false);
    const prompt = '#file:locks.ts:2-2 opens at six';
    const typed = {
      id: 'vscode.selection',
      range: [0, 18] as [number, number],
      value: new vscode.Location(uri, new vscode.Range(1, 0, 1, 5)),
    };
    const implicit = { id: 'vscode.implicit.selection', value: new vscode.Location(uri, new vscode.Range(0, 0, 1, 0)) };
    const text = { id: 'terminal.lastCommand', value: 'npm test' };

    const cited = await referenceCitations(prompt, [typed, implicit, text]);

    assert.equal(cited.text, `\`${path}:2-2\` opens at six`);
    assert.deepEqual(
      cited.citations.map(({ startLine, endLine }) => [startLine, endLine]),
      [[2, 2]],
      'the implicit selection (lines 1-1) is not cited',
    );
    assert.deepEqual(cited.skipped, [{ name: 'terminal.lastCommand', reason: 'not a file' }]);
    assert.equal(cited.said, true);
    assert.equal(
      (await referenceCitations('#file:locks.ts:2-2 ', [typed])).said,
      false,
      'only a reference: nothing said',
    );
  });
});
