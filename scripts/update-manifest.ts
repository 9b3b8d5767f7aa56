// Rewrites package.json's derived contributions (the language model tools)
// and their strings in package.nls.json from the operation catalogue:
// `npm run manifest`. A unit test fails when they are out of date.
import * as fs from 'node:fs';
import { toolContributions, toolStrings } from '../src/extension/tools/manifest';

const file = new URL('../package.json', import.meta.url);
const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { contributes: Record<string, unknown> };
manifest.contributes.languageModelTools = toolContributions();
fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
const nlsFile = new URL('../package.nls.json', import.meta.url);
const nls = JSON.parse(fs.readFileSync(nlsFile, 'utf8')) as Record<string, string>;
fs.writeFileSync(nlsFile, `${JSON.stringify({ ...nls, ...toolStrings() }, null, 2)}\n`);
console.log(`package.json: ${toolContributions().length} language model tools`);
