// Import from and export to other agent tools (issue #15) in a real VS Code:
// the commands take their answers as arguments, so they run without prompts;
// the picker itself is shown once, for its screenshot.
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';

import * as vscode from 'vscode';

import type { ToolExportReport } from '../../../src/core/interop';
import { COMMANDS } from '../../../src/extension/commands/ids';
import type { SourcesImport } from '../../../src/extension/store/methods';
import { extensionApi, waitFor } from './extension-api';
import { screenshot } from './harness';

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

const AGENTS =
  '# Agent rules\n\n## Commits\nWrite commit messages in the imperative mood.\n\n## Reviews\nEvery change needs one approving review.\n';
const RULE = '---\ndescription: Interop style\nglobs: src/**/*.ts\n---\n# Style\nPrefer named exports in src.\n';
const SOURCES = [
  { format: 'copilot', path: 'AGENTS.md' },
  { format: 'cursor', path: '.cursor/rules/interop-test.mdc' },
] as const;

describe('import from and export to other tools', () => {
  const root = () => vscode.workspace.workspaceFolders![0]!.uri;
  const agentsFile = () => vscode.Uri.joinPath(root(), 'AGENTS.md');
  const cursorFolder = () => vscode.Uri.joinPath(root(), '.cursor');
  const imported = new Set<string>();

  before(async () => {
    await vscode.workspace.fs.writeFile(agentsFile(), encode(AGENTS));
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(cursorFolder(), 'rules', 'interop-test.mdc'), encode(RULE));
  });
  after(async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    const live = [];
    for (const id of imported) if (await memory.skills.get(id)) live.push(id);
    if (live.length) await memory.skills.deleteMany(live);
    for (const uri of [agentsFile(), cursorFolder()]) {
      await vscode.workspace.fs.delete(uri, { recursive: true }).then(undefined, () => undefined);
    }
  });

  const runImport = async (): Promise<SourcesImport> => {
    const result = await vscode.commands.executeCommand<SourcesImport | undefined>(COMMANDS.importFromTools, {
      sources: SOURCES,
    });
    assert.ok(result, 'the import ran');
    for (const outcome of result.outcomes) {
      assert.ok('report' in outcome, JSON.stringify(outcome));
      for (const item of outcome.report.items) if (item.id) imported.add(item.id);
    }
    return result;
  };
  const total = (result: SourcesImport, count: 'created' | 'updated' | 'unchanged' | 'skipped' | 'removed') =>
    result.outcomes.reduce((sum, outcome) => sum + ('report' in outcome ? outcome.report[count] : 0), 0);

  it('detects the sources and offers them in a picker', async () => {
    const { services } = await extensionApi();
    const memory = await services.memory();
    const detected = await memory.worker.detectSources([root().fsPath]);
    const found = detected.folders[0]!.sources.map(({ format, path, items, problems }) => ({
      format,
      path,
      items,
      problems,
    }));
    assert.deepEqual(
      found.filter((source) => SOURCES.some((wanted) => wanted.path === source.path)),
      [
        { format: 'copilot', path: 'AGENTS.md', items: 2, problems: 0 },
        { format: 'cursor', path: '.cursor/rules/interop-test.mdc', items: 1, problems: 0 },
      ],
    );
    // The command as a person runs it: detection, then the picker, left without choosing.
    const running = Promise.resolve(vscode.commands.executeCommand(COMMANDS.importFromTools));
    let settled = false;
    void running.finally(() => (settled = true));
    await screenshot('import-sources', 1500);
    await waitFor('the picker to close', async () => {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      return settled;
    });
    assert.equal(await running, undefined, 'nothing is imported when the picker is left');
  });

  it('imports the picks with their globs and tags, and importing again duplicates nothing', async () => {
    const first = await runImport();
    assert.equal(total(first, 'created'), 3, JSON.stringify(first));
    const { services } = await extensionApi();
    const memory = await services.memory();
    const skills = await Promise.all([...imported].map((id) => memory.skills.get(id)));
    const style = skills.find((skill) => skill?.content.includes('Prefer named exports in src.'));
    assert.deepEqual(style?.appliesTo, ['src/**/*.ts']);
    assert.deepEqual(style?.tags, ['interop-test']);
    assert.equal(style?.agentId, services.scope().agentId);
    assert.equal(style?.userId, undefined, "a repository's rules are everyone's, not the user's own");
    const commits = skills.find((skill) => skill?.content.includes('imperative mood'));
    assert.equal(commits?.category, 'procedure');

    const again = await runImport();
    assert.deepEqual(
      [total(again, 'created'), total(again, 'updated'), total(again, 'unchanged')],
      [0, 0, 3],
      JSON.stringify(again),
    );
    assert.equal(imported.size, 3);
  });

  it('imports a memory folder kept outside the workspace (the VS Code memory tool’s notes), reading only it', async () => {
    const notes = vscode.Uri.file(path.join(os.tmpdir(), `wm-memory-tool-${process.pid}-${Date.now()}`));
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(notes, 'harbour.md'),
      encode('The harbour office closes at noon.\n'),
    );
    try {
      const result = await vscode.commands.executeCommand<SourcesImport | undefined>(COMMANDS.importFromTools, {
        sources: [{ format: 'copilot-memory', path: notes.fsPath }],
      });
      const outcome = result?.outcomes[0];
      assert.ok(outcome && 'report' in outcome, JSON.stringify(result));
      assert.equal(outcome.report.created, 1);
      const id = outcome.report.items[0]!.id!;
      const { services } = await extensionApi();
      const memory = await services.memory();
      assert.equal((await memory.memories.get(id))?.content, 'The harbour office closes at noon.');
      await memory.memories.delete(id);
    } finally {
      await vscode.workspace.fs.delete(notes, { recursive: true });
    }
  });

  it('exports to AGENTS.md as a block after the text that was there, which a re-import does not duplicate', async () => {
    const report = await vscode.commands.executeCommand<ToolExportReport | undefined>(COMMANDS.exportToTools, {
      target: 'agents-md',
      select: { tags: ['interop-test'] },
      confirmed: true,
    });
    assert.equal(report?.action, 'created');
    assert.equal(report.ids.length, 1);
    const text = decode(await vscode.workspace.fs.readFile(agentsFile()));
    assert.ok(text.startsWith(`${AGENTS}\n<!-- workspace-memory:begin sha256=`), text);
    assert.match(text, /^- Interop style\n\n {2}# Style\n {2}Prefer named exports in src\.$/m);
    assert.ok(text.endsWith('<!-- workspace-memory:end -->\n'), text);

    const again = await runImport();
    assert.equal(total(again, 'created'), 0, JSON.stringify(again));
    assert.equal(imported.size, 3, 'the block’s item is the store’s own, under its id');
  });

  it('refuses to replace a block edited by hand, and leaves the file as it is', async () => {
    const edited = decode(await vscode.workspace.fs.readFile(agentsFile())).replace(
      'Prefer named exports in src.',
      'Prefer default exports.',
    );
    await vscode.workspace.fs.writeFile(agentsFile(), encode(edited));
    const report = await vscode.commands.executeCommand<ToolExportReport | undefined>(COMMANDS.exportToTools, {
      target: 'agents-md',
      select: { tags: ['interop-test'] },
      confirmed: true,
    });
    assert.equal(report, undefined);
    assert.equal(decode(await vscode.workspace.fs.readFile(agentsFile())), edited);
  });
});
