// The lenses above cited lines and their hover, in a real VS Code: what a
// file's cited lines show, the warning once they changed on disk, and the
// setting that turns both off. Each test writes a file and memories of its own.
import * as assert from 'node:assert/strict';

import * as vscode from 'vscode';

import type { MemoryEntity } from '../../../src/core/types';
import { extensionApi, removeMade, waitFor } from './extension-api';
import { screenshot } from './harness';

const encode = (text: string) => new TextEncoder().encode(text);

/** Our lenses among every provider's: the ones that open memories or peek at them. */
const OUR_COMMANDS = ['workspaceMemory.open', 'editor.action.peekLocations'];

describe('lenses and hovers on cited lines', () => {
  const made: vscode.Uri[] = [];
  const memories: string[] = [];
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  // The memories go too: with their files gone they would be stale in every view shown after this suite.
  after(async () => {
    await removeMade(memories, made);
  });

  /** A new file of `lines`, and one memory per text in `contents` citing its lines 2–3, known to the views. */
  async function citedFile(name: string, lines: string[], contents: string[]) {
    const uri = vscode.Uri.joinPath(
      vscode.workspace.workspaceFolders![0]!.uri,
      `${name}-${Date.now().toString(36)}.ts`,
    );
    made.push(uri);
    await vscode.workspace.fs.writeFile(uri, encode(`${lines.join('\n')}\n`));
    const { services, views } = await extensionApi();
    const memory = await services.memory();
    const path = vscode.workspace.asRelativePath(uri, false);
    const entities: MemoryEntity[] = [];
    for (const content of contents) {
      const [entity] = await memory.memories.save(services.scope().agentId, services.scope().userId, {
        content,
        citations: [{ path, startLine: 2, endLine: 3 }],
      });
      memories.push(entity.id);
      entities.push(entity);
    }
    await waitFor('the citations to be known', () => views.stale.citing(path).length === contents.length);
    return { uri, path, entities };
  }

  async function lenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
    const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    return all.filter((lens) => OUR_COMMANDS.includes(lens.command?.command ?? ''));
  }

  /** The text of our hover at a line (0-based), or undefined when there is none. */
  async function hoverText(uri: vscode.Uri, line: number): Promise<string | undefined> {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      uri,
      new vscode.Position(line, 4),
    );
    const texts = hovers.flatMap((hover) =>
      hover.contents.map((content) => (typeof content === 'string' ? content : content.value)),
    );
    return texts.find((text) => text.includes('command:workspaceMemory.open'));
  }

  it('a cited file shows a lens above the cited lines with the memory, or how many memories cite them', async () => {
    const code = ['// harbour dues', 'export const DAILY_DUE = 32;', 'export const WEEKLY_DUE = 180;', ''];
    const { uri, path, entities } = await citedFile('lens-dues', code, ['Harbour dues are 32 a day, 180 a week']);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const [lens, ...others] = await lenses(uri);
    assert.equal(others.length, 0, 'one lens for one cited range');
    assert.equal(lens!.range.start.line, 1, 'above the first cited line');
    assert.equal(lens!.command!.title, '$(lightbulb) Harbour dues are 32 a day, 180 a week');

    // Clicked, it opens the memory.
    await vscode.commands.executeCommand(lens!.command!.command, ...((lens!.command!.arguments ?? []) as unknown[]));
    await waitFor('the memory to open', () =>
      vscode.window.visibleTextEditors.some((editor) => editor.document.getText().includes('Harbour dues are 32')),
    );

    const { services, views } = await extensionApi();
    const [second] = await (
      await services.memory()
    ).memories.save(services.scope().agentId, services.scope().userId, {
      content: 'Weekly dues are cheaper than seven days',
      citations: [{ path, startLine: 2, endLine: 3 }],
    });
    memories.push(second.id);
    await waitFor('both citations to be known', () => views.stale.citing(path).length === 2);
    const [both] = await lenses(uri);
    assert.equal(both!.command!.title, '$(lightbulb) 2 memories');
    assert.equal(both!.command!.command, 'editor.action.peekLocations');
    const peeked = both!.command!.arguments![2] as vscode.Location[];
    assert.ok(
      [entities[0]!, second].every((entity) => peeked.some((location) => location.uri.path.includes(entity.id))),
      'the peek lists both memories',
    );
  });

  it('hovering cited lines shows each memory, its state and a link that opens it', async () => {
    const code = ['// fuel dock', 'export const OPENS = "07:00";', 'export const CLOSES = "19:00";', ''];
    const { uri, entities } = await citedFile('lens-fuel', code, ['The fuel dock opens at 07:00, closes at 19:00']);
    const text = await waitFor('the hover', () => hoverText(uri, 2));
    assert.match(text, /\*\*memory\*\* · lines 2–3 valid/);
    assert.match(text, /The fuel dock opens at 07:00, closes at 19:00/);
    assert.doesNotMatch(text, /may be outdated/);
    assert.equal(await hoverText(uri, 0), undefined, 'nothing on lines no memory cites');

    // The link runs Open with the memory's document, as VS Code revives its URI from the link's JSON.
    const link = /\(command:workspaceMemory\.open\?([^)]+)\)/.exec(text)![1]!;
    const [argument] = JSON.parse(decodeURIComponent(link)) as [unknown];
    await vscode.commands.executeCommand('workspaceMemory.open', vscode.Uri.from(argument as vscode.Uri));
    await waitFor('the memory to open', () =>
      vscode.window.visibleTextEditors.some((editor) => editor.document.uri.path.includes(entities[0]!.id)),
    );
  });

  it('after the cited lines are edited on disk, the lens and the hover say the memory may be outdated', async () => {
    const code = ['// moorings', 'export const MOORINGS = 120;', 'export const VISITORS = 12;', ''];
    const { uri, entities } = await citedFile('lens-moorings', code, ['Twelve of the 120 moorings are for visitors']);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const { views } = await extensionApi();
    await vscode.workspace.fs.writeFile(
      uri,
      encode(`${[code[0], code[1], 'export const VISITORS = 16;'].join('\n')}\n`),
    );
    await waitFor('the memory to be stale', () =>
      views.stale.stale.some(({ entity }) => entity.id === entities[0]!.id),
    );
    const [lens] = await lenses(uri);
    assert.equal(lens!.command!.title, '$(warning) Twelve of the 120 moorings are for visitors · may be outdated');
    const text = await waitFor('the hover', () => hoverText(uri, 2));
    assert.match(text, /^\$\(warning\) \*\*memory\*\* · lines 2–3 changed on .+ · may be outdated/);

    // As a user sees it: the lens above the lines, the hover open below them (above, it would hide the lens).
    await waitFor('the editor to show the new lines', () => editor.document.getText().includes('VISITORS = 16'));
    const config = vscode.workspace.getConfiguration('editor');
    await config.update('hover.above', false, vscode.ConfigurationTarget.Workspace);
    try {
      editor.selection = new vscode.Selection(2, 14, 2, 14);
      await vscode.commands.executeCommand('editor.action.showHover');
      await screenshot('citation-lens-hover', 1500);
    } finally {
      await config.update('hover.above', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('workspaceMemory.anchors.codeLens false removes the lenses and the hover, and true brings them back', async () => {
    const code = ['// cranes', 'export const CRANE_TONNES = 35;', 'export const CRANE_DAYS = "Mon-Fri";', ''];
    const { uri } = await citedFile('lens-cranes', code, ['The crane lifts 35 tonnes on weekdays']);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    assert.equal((await lenses(uri)).length, 1);
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('anchors.codeLens', false, vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor('the lenses to go', async () => (await lenses(uri)).length === 0);
      assert.equal(await hoverText(uri, 1), undefined, 'no hover either');
    } finally {
      await config.update('anchors.codeLens', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitFor('the lenses to come back', async () => (await lenses(uri)).length === 1);
  });
});
