import * as path from 'node:path';

import { type Command, Option } from 'commander';

import {
  describeFormats,
  type DetectedSource,
  detectSources,
  exportForTool,
  IMPORT_FORMATS,
  importFrom,
  type ImportFromReport,
  type ImportProgress,
  TOOL_TARGETS,
  type ToolExportReport,
  type ToolTarget,
} from '../../core/interop';
import {
  agentOption,
  type GlobalOptions,
  interruptible,
  withMemory,
  withStoreOptions,
  withWorkspaceOption,
  workspaceFolder,
} from './context';
import { counted, inline, print, printJson, printProgress } from './output';
import { shellWord } from './suggested-command';

/**
 * What other agent tools remember, brought in and given back (issue #15):
 * `sources`, and the `--from` and `--to` modes of `import` and `export`
 * (store-commands.ts), which without them read and write this store's
 * portable JSON.
 */

interface InteropOptions extends GlobalOptions {
  agent: string;
  user?: string;
  dryRun: boolean;
}

/** The workspace folder every interop path is inside: --workspace, else the store's or the current folder. */
const workspaceOf = (options: GlobalOptions): string => workspaceFolder(options.workspace, options.dir).path;

/** How the user would name a workspace-relative path from the current folder. */
function fromHere(workspace: string, relative: string): string {
  return path.relative(process.cwd(), path.join(workspace, relative)) || '.';
}

function formatsHelp(): string {
  const width = Math.max(...IMPORT_FORMATS.map((format) => format.length));
  return `\nFormats:\n${describeFormats()
    .map(({ format, label, reads }) => `  ${format.padEnd(width)}  ${label}: ${reads}`)
    .join('\n')}\n`;
}

function sourceLine(source: DetectedSource, workspace: string): string {
  const problems = source.problems ? `, ${counted(source.problems, 'problem')} (${inline(source.problem ?? '')})` : '';
  return `${source.format.padEnd(14)} ${counted(source.items, 'item').padStart(10)}  ${inline(fromHere(workspace, source.path))}${problems}`;
}

const PHASES: Record<ImportProgress['phase'], string> = {
  reading: 'reading files',
  planning: 'comparing with the store',
  writing: 'writing',
};

export function importProgressText({ phase, done, total }: ImportProgress): string {
  return `${PHASES[phase]}: ${done} of ${total}`;
}

const ACTION_WORDS = {
  create: 'created',
  update: 'updated',
  unchanged: 'unchanged',
  skip: 'skipped',
  remove: 'removed',
} as const;
const DRY_ACTION_WORDS = {
  create: 'would create',
  update: 'would update',
  unchanged: 'would leave',
  skip: 'would skip',
  remove: 'would remove',
};

/**
 * One line per item created, updated, skipped or removed (the unchanged
 * ones only counted, a second import would list the whole source, unless
 * there is a note to read: a person's edit the import left as it is), each
 * error with its file and line, then the counts.
 */
function importSummary(report: ImportFromReport): string {
  const words = report.dryRun ? DRY_ACTION_WORDS : ACTION_WORDS;
  const width = Math.max(...Object.values(words).map((word) => word.length));
  const lines: string[] = [];
  for (const item of report.items) {
    if (item.action === 'error' || (item.action === 'unchanged' && !item.reason)) continue;
    const reason = item.reason && item.action !== 'create' ? `: ${item.reason}` : '';
    lines.push(`${words[item.action].padEnd(width)}  ${inline(item.source)}  ${inline(item.title)}${inline(reason)}`);
  }
  for (const error of report.errors) {
    const place = error.line === undefined ? error.source : `${error.source}:${error.line}`;
    lines.push(
      `${'error'.padEnd(width)}  ${inline(place)}  ${inline(error.message)}${error.code ? ` [${error.code}]` : ''}`,
    );
  }
  const counts = [
    `${report.created} created`,
    `${report.updated} updated`,
    `${report.unchanged} unchanged`,
    `${report.skipped} skipped`,
    `${report.removed} removed`,
    counted(report.errors.length, 'error'),
  ].join(', ');
  lines.push(report.dryRun ? `dry run, nothing was written: ${counts}` : `done: ${counts}`);
  return lines.join('\n');
}

const DRY_EXPORT_WORDS = { created: 'create', updated: 'update' } as const;

function exportSummary(report: ToolExportReport): string {
  const items = counted(report.ids.length, 'item');
  const where =
    report.target === 'mcp-memory'
      ? `${items} as entities (${counted(report.kept, 'line')} of its own kept)`
      : `${items} in its Workspace Memory block`;
  const file = inline(report.file);
  if (report.action === 'unchanged') return `unchanged: ${file} already holds ${where}`;
  if (report.dryRun)
    return `dry run, nothing was written: would ${DRY_EXPORT_WORDS[report.action]} ${file} with ${where}`;
  return `${report.action} ${file}: ${where}`;
}

/** A comma-separated list as its items, blanks dropped. */
const listOf = (text: string | undefined): string[] | undefined =>
  text
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function registerInteropCommands(program: Command): void {
  withWorkspaceOption(withStoreOptions(program.command('sources')))
    .description(
      'list what other agent tools remember in the workspace: each file, its format and how many memories and skills it holds (reads only; no store needed)',
    )
    .addHelpText('after', formatsHelp())
    .action(async (options: GlobalOptions) => {
      const workspace = workspaceOf(options);
      const sources = await interruptible((signal) => detectSources(workspace, { signal }));
      if (options.json) return printJson({ workspace, sources });
      if (sources.length === 0) {
        return print(
          `nothing to import in ${inline(workspace)}; looked for:\n${describeFormats()
            .filter((format) => format.detectable)
            .map(({ label, reads }) => `  ${label}: ${reads}`)
            .join('\n')}`,
        );
      }
      const [first] = sources;
      print(
        `${sources.map((source) => sourceLine(source, workspace)).join('\n')}\n` +
          `import one with: workspace-memory import --from ${first!.format} ${shellWord(fromHere(workspace, first!.path))}`,
      );
    });
}

/** The options `import --from` adds to `import` (see store-commands.ts): the tool's files and how to take them in. */
export function withImportFromOptions(command: Command): Command {
  return withWorkspaceOption(command)
    .addOption(
      new Option(
        '--from <format>',
        "another agent tool's files to import as memories and skills (see Formats)",
      ).choices(IMPORT_FORMATS),
    )
    .option('--dry-run', '--from: say what would be done; write nothing', false)
    .option('--no-prune', '--from: keep what an earlier import took from a file that no longer holds it')
    .addOption(agentOption())
    .option('--user <id>', "--from: import into this user's own memory (default: the agent's, which every user sees)")
    .addHelpText('after', formatsHelp());
}

export interface ImportFromOptions extends InteropOptions {
  from: string;
  prune: boolean;
}

/**
 * `import --from <format> [path]`: another agent tool's rules and notes as
 * memories and skills; importing again updates what changed and never
 * duplicates. Without a path, the tool's files wherever they are in the workspace.
 */
export async function importFromTool(given: string | undefined, options: ImportFromOptions): Promise<void> {
  const workspace = workspaceOf(options);
  const report = await interruptible((signal) =>
    withMemory(options, (memory) =>
      importFrom(memory, {
        format: options.from,
        // Named from the current folder, as every path on the command line is.
        path: given === undefined ? workspace : path.resolve(given),
        workspaceRoot: workspace,
        agentId: options.agent,
        userId: options.user,
        dryRun: options.dryRun,
        prune: options.prune,
        signal,
        onProgress: (step) => printProgress(importProgressText(step)),
      }),
    ),
  );
  if (options.json) printJson(report);
  else print(importSummary(report));
  // The rest is imported; a script must still see that some of it was not.
  if (report.errors.length > 0) process.exitCode = 1;
}

/** The options `export --to` adds to `export`: where other agents read, and what to give them. */
export function withExportToOptions(command: Command): Command {
  return withWorkspaceOption(command)
    .addOption(
      new Option(
        '--to <target>',
        "write memories and skills where other agents read them: a generated block in AGENTS.md, CLAUDE.md or Copilot's instructions (the rest of the file is left as it is), or the MCP memory server's graph",
      ).choices(TOOL_TARGETS),
    )
    .option(
      '--file <path>',
      '--to: another file of that kind, e.g. packages/api/AGENTS.md (default: AGENTS.md, CLAUDE.md, .github/copilot-instructions.md or memory.jsonl in the workspace folder)',
    )
    .option('--category <list>', '--to: only these categories, comma-separated (fact, decision, procedure…)')
    .option('--tag <list>', '--to: only what has one of these tags, comma-separated')
    .addOption(new Option('--type <type>', '--to: only memories or only skills').choices(['memory', 'skill']))
    .option('--team', "--to: also the team folder's memories and skills", false)
    .option('--dry-run', '--to: print what would be written; write nothing', false)
    .addOption(agentOption())
    .option('--user <id>', "--to: also this user's own memories (personal: left out unless asked for)");
}

export interface ExportToOptions extends InteropOptions {
  to: ToolTarget;
  file?: string;
  category?: string;
  tag?: string;
  type?: 'memory' | 'skill';
  team: boolean;
}

/** `export --to <target>`: the selected memories and skills written where another tool reads them. */
export async function exportToTool(options: ExportToOptions): Promise<void> {
  const workspace = workspaceOf(options);
  const report = await withMemory(options, (memory) =>
    exportForTool(memory, {
      target: options.to,
      workspaceRoot: workspace,
      file: options.file === undefined ? undefined : path.resolve(options.file),
      select: {
        agentId: options.agent,
        userId: options.user,
        types: options.type ? [options.type] : undefined,
        categories: listOf(options.category),
        tags: listOf(options.tag),
        team: options.team,
      },
      dryRun: options.dryRun,
    }),
  );
  if (options.json) return printJson(report);
  // What a dry run would write is its output; the summary says what it would do with it.
  if (report.dryRun && report.action !== 'unchanged') print(report.content);
  print(exportSummary(report));
}
