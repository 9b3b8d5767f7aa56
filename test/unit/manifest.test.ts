import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
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
});
