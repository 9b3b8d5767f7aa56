import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { COMMANDS } from '../../src/extension/commands/ids';
import { toolContributions, toolStrings } from '../../src/extension/tools/manifest';

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: Record<string, unknown> & {
    commands: { command: string }[];
    menus: Record<string, { command: string }[]>;
    configuration: { properties: Record<string, { scope?: string; markdownDescription?: string }> };
  };
};
const nls = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;

describe('package.json', () => {
  it('declares exactly the catalogue’s tools (run `npm run manifest` after changing an operation)', () => {
    assert.deepEqual(manifest.contributes.languageModelTools, toolContributions());
    for (const [key, text] of Object.entries(toolStrings())) assert.equal(nls[key], text, key);
  });

  it('has a translation for every %placeholder%', () => {
    const keys = [...JSON.stringify(manifest).matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!);
    assert.ok(keys.length > 50);
    assert.deepEqual(
      keys.filter((key) => !(key in nls)),
      [],
    );
  });

  it('gives every setting a scope and a description, under workspaceMemory.', () => {
    for (const [key, setting] of Object.entries(manifest.contributes.configuration.properties)) {
      assert.match(key, /^workspaceMemory\./);
      assert.ok(setting.scope, `${key} has a scope`);
      assert.ok(setting.markdownDescription, `${key} has a description`);
    }
  });

  it('menus name only declared commands', () => {
    const declared = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items) assert.ok(declared.has(item.command), `${menu}: ${item.command}`);
    }
  });

  it('writes welcome texts without Markdown emphasis, which views show literally (only links render)', () => {
    const welcomes = (manifest.contributes.viewsWelcome as { contents: string }[]).map((w) =>
      w.contents.replace(/^%(.+)%$/, (_, key: string) => nls[key] ?? key),
    );
    assert.ok(welcomes.length > 0);
    for (const text of welcomes) assert.doesNotMatch(text, /\*\*|__|`/, text);
  });

  it('declares exactly the commands the extension registers', () => {
    assert.deepEqual(manifest.contributes.commands.map((c) => c.command).sort(), Object.values(COMMANDS).sort());
  });
});

describe('command ids', () => {
  /** Every TypeScript file under src/extension and the composition root. */
  function sources(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(file);
      return entry.name.endsWith('.ts') ? [file] : [];
    });
  }

  it('are written once: no source names a command by a string of its own', () => {
    const files = [...sources(path.join(root, 'src/extension')), path.join(root, 'src/extension.ts')];
    const ids = new Set<string>(Object.values(COMMANDS));
    const strays = files
      .filter((file) => !file.endsWith(path.join('commands', 'ids.ts')))
      .flatMap((file) =>
        [...fs.readFileSync(file, 'utf8').matchAll(/['"`](workspaceMemory\.\w+)['"`]/g)]
          .filter((m) => ids.has(m[1]!))
          .map((m) => `${path.relative(root, file)}: ${m[1]}`),
      );
    assert.deepEqual(strays, []);
  });
});
