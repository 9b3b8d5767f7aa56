import { collectMarkdown, folderOf, stemTag } from './collector';
import {
  baseName,
  fileAt,
  filesIn,
  type FormatHandler,
  isMarkdown,
  isUnder,
  join,
  notThisFormat,
  ownerOf,
  realOf,
} from './format-handler';
import { globList, scopedGlobs, textField } from './front-matter';

/**
 * GitHub Copilot's instructions, read as skills (procedures: they say how
 * to work in the repository): `.github/copilot-instructions.md` for the
 * whole repository, `.github/instructions/*.instructions.md` for the files
 * their `applyTo` globs name, and `AGENTS.md` at any depth, a nested one for
 * its folder. And the VS Code memory tool's notes, read as facts.
 */

const INSTRUCTIONS = /\.instructions\.md$/;

export const copilot: FormatHandler = {
  label: 'GitHub Copilot instructions',
  looksFor: '.github/copilot-instructions.md, .github/instructions/*.instructions.md and AGENTS.md files',
  detectable: true,
  async locate(ws, folder) {
    const agents = (await ws.walkNamed(new Set(['AGENTS.md']))).filter((file) => isUnder(folder, file));
    return filesIn(
      ws,
      folder,
      (base) => [
        ...fileAt(ws, join(base, '.github/copilot-instructions.md')),
        ...ws.listFolder(join(base, '.github/instructions'), (file) => INSTRUCTIONS.test(file)),
        ...fileAt(ws, join(base, 'AGENTS.md')),
      ],
      agents,
    );
  },
  collect(ws, file, into) {
    const name = baseName(file);
    // Instructions of a `.github` folder below the top are that folder's project's.
    const owner = ownerOf(file, '.github') ?? '';
    const real = realOf(ws, file);
    if (name === 'copilot-instructions.md') {
      collectMarkdown(into, real, ws.readText(real), () => ({
        type: 'skill',
        category: 'procedure',
        appliesTo: scopedGlobs(owner, []),
      }));
    } else if (INSTRUCTIONS.test(name)) {
      collectMarkdown(into, real, ws.readText(real), (front) => {
        const globs = globList(front.applyTo);
        return {
          type: 'skill',
          category: 'procedure',
          tags: [stemTag(file)].filter(Boolean),
          // An instructions file without applyTo is only attached by hand: it has no files of its own.
          appliesTo: owner === '' ? globs : globs.map((glob) => `${owner}/${glob}`),
          lead: textField(front, 'description'),
        };
      });
    } else if (name === 'AGENTS.md') {
      collectMarkdown(into, real, ws.readText(real), () => ({
        type: 'skill',
        category: 'procedure',
        appliesTo: scopedGlobs(folderOf(file), []),
      }));
    } else {
      throw notThisFormat(file, copilot);
    }
  },
};

export const copilotMemory: FormatHandler = {
  label: 'VS Code memory tool',
  looksFor: 'the Markdown notes (.md) of a memory folder',
  detectable: false,
  async locate(ws, folder) {
    return ws.listFolder(folder, isMarkdown);
  },
  collect(ws, file, into) {
    if (!isMarkdown(file)) throw notThisFormat(file, copilotMemory);
    const real = realOf(ws, file);
    collectMarkdown(into, real, ws.readText(real), () => ({ type: 'memory', category: 'fact' }));
  },
};
