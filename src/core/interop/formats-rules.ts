import type { MemoryCategory } from '../types';
import { collectMarkdown, folderOf, stemTag } from './collector';
import {
  baseName,
  fileAt,
  filesIn,
  type FormatHandler,
  isMarkdown,
  join,
  notThisFormat,
  ownerOf,
  realOf,
} from './format-handler';
import { globList, scopedGlobs, textField } from './front-matter';

/**
 * Rules of Cursor and Windsurf, read as skills (procedures) that apply to
 * the files their globs name, and Cline's memory bank, read as memories.
 */

const CURSOR_RULE = /\.(mdc|md)$/i;

export const cursor: FormatHandler = {
  label: 'Cursor rules',
  looksFor: '.cursor/rules/*.mdc files and .cursorrules',
  detectable: true,
  async locate(ws, folder) {
    return filesIn(ws, folder, (base) => [
      ...ws.listFolder(join(base, '.cursor/rules'), (file) => CURSOR_RULE.test(file)),
      ...fileAt(ws, join(base, '.cursorrules')),
    ]);
  },
  collect(ws, file, into) {
    const real = realOf(ws, file);
    if (baseName(file) === '.cursorrules') {
      const mapping = { type: 'skill', category: 'procedure', appliesTo: scopedGlobs(folderOf(file), []) } as const;
      collectMarkdown(into, real, ws.readText(real), () => mapping);
      return;
    }
    const owner = ownerOf(file, '.cursor');
    const inRules = owner !== undefined && file.includes('.cursor/rules/') && CURSOR_RULE.test(file);
    // A .mdc file is a Cursor rule wherever it is (one kept elsewhere is the workspace's).
    if (!inRules && !/\.mdc$/i.test(file)) throw notThisFormat(file, cursor);
    collectMarkdown(into, real, ws.readText(real), (front) => {
      // alwaysApply wins over globs, as in Cursor: the rule is in every request.
      const globs = front.alwaysApply === true ? [] : globList(front.globs);
      return {
        type: 'skill',
        category: 'procedure',
        tags: [stemTag(file)].filter(Boolean),
        appliesTo: scopedGlobs(owner ?? '', globs),
        lead: textField(front, 'description'),
      };
    });
  },
};

export const windsurf: FormatHandler = {
  label: 'Windsurf rules',
  looksFor: '.windsurf/rules/*.md files and .windsurfrules',
  detectable: true,
  async locate(ws, folder) {
    return filesIn(ws, folder, (base) => [
      ...ws.listFolder(join(base, '.windsurf/rules'), isMarkdown),
      ...fileAt(ws, join(base, '.windsurfrules')),
    ]);
  },
  collect(ws, file, into) {
    const real = realOf(ws, file);
    if (baseName(file) === '.windsurfrules') {
      const mapping = { type: 'skill', category: 'procedure', appliesTo: scopedGlobs(folderOf(file), []) } as const;
      collectMarkdown(into, real, ws.readText(real), () => mapping);
      return;
    }
    const owner = ownerOf(file, '.windsurf');
    if (owner === undefined || !file.includes('.windsurf/rules/') || !isMarkdown(file)) {
      throw notThisFormat(file, windsurf);
    }
    collectMarkdown(into, real, ws.readText(real), (front) => {
      const trigger = textField(front, 'trigger');
      // Only a `glob` rule is attached by its globs; the others are always on, chosen by the model or by hand.
      const globs = trigger === undefined || trigger === 'glob' ? globList(front.globs) : [];
      return {
        type: 'skill',
        category: 'procedure',
        tags: [stemTag(file)].filter(Boolean),
        appliesTo: scopedGlobs(owner, globs),
        lead: textField(front, 'description'),
      };
    });
  },
};

/** What each of the memory bank's core files holds, as the store's categories say it. */
const BANK_CATEGORIES: Record<string, MemoryCategory> = {
  progress: 'task',
  'active-context': 'task',
  'system-patterns': 'decision',
};

export const cline: FormatHandler = {
  label: "Cline's memory bank",
  looksFor: 'the Markdown files of a memory-bank folder',
  detectable: true,
  async locate(ws, folder) {
    const inBank = folder === 'memory-bank' || folder.endsWith('/memory-bank');
    return filesIn(ws, folder, (base) => ws.listFolder(inBank ? base : join(base, 'memory-bank'), isMarkdown, 0));
  },
  collect(ws, file, into) {
    if (!isMarkdown(file) || !folderOf(file).split('/').includes('memory-bank')) throw notThisFormat(file, cline);
    const tag = stemTag(file);
    const real = realOf(ws, file);
    collectMarkdown(into, real, ws.readText(real), () => ({
      type: 'memory',
      category: BANK_CATEGORIES[tag] ?? 'fact',
      tags: [tag].filter(Boolean),
    }));
  },
};
