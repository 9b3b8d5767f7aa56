import * as path from 'node:path';

import type { Command } from 'commander';

import { isMemoryError, MemoryError } from '../../core/errors';
import { assertOutsideStore, keepStoreOutOfGit } from '../../core/paths';
import type { RestoredSnapshot, SnapshotInfo } from '../../core/snapshots/manifests';
import { restoreUnopenableStore } from '../../core/snapshots/rebuild';
import { jsonErrorReason } from '../../core/text';
import { registerCleanupCommand } from './cleanup-command';
import { defaultDir, type GlobalOptions, readStdin, withMemory, withStoreOptions } from './context';
import { readTextFile, writeTextFile } from './files';
import {
  type ExportToOptions,
  exportToTool,
  type ImportFromOptions,
  importFromTool,
  withExportToOptions,
  withImportFromOptions,
} from './interop-commands';
import { counted, inline, noun, print, printJson } from './output';
import { consented, describeRestore } from './restore-confirm';
import { dirArgument } from './suggested-command';
import { type SecretsOptions, verifySecrets } from './trust-commands';

function snapshotLine(info: SnapshotInfo): string {
  // Labels are checked when made, but a store from an older version may hold any: one line, escaped.
  const entities = `${String(info.entities).padStart(7)} ${noun(info.entities, 'entity', 'entities').padEnd(8)}`;
  return `${info.id}  ${info.createdAt}  ${entities}  ${inline(info.label)}`.trimEnd();
}

/** What a restore did with the store it replaced: kept as a snapshot (and how to undo), or the damaged file moved aside. */
function restoredLine(info: RestoredSnapshot, dir: string): string {
  const name = `${info.id}${info.label ? ` (${inline(info.label)})` : ''}`;
  if (info.before) {
    const undo = `workspace-memory snapshot restore ${info.before.id}${dirArgument(dir, defaultDir())}`;
    return `restored ${name}; the store as it was is kept as snapshot ${info.before.id} — undo: ${undo}`;
  }
  if (info.keptAside) {
    return `restored ${name}; the damaged store file was rebuilt (it could not be read, so no snapshot of it was taken; it is kept as ${info.keptAside})`;
  }
  return `restored ${name}; the damaged store could not be copied first, so there is no snapshot to undo with`;
}

const RESTORE = {
  question: 'Restore this snapshot?',
  what: 'snapshot restore replaces the whole store',
  flag: 'Give --yes to restore.',
  declined: 'not restored; nothing was changed',
};

/** Options that mean something only in `import --from` or `export --to` (given when not at their default). */
const IMPORT_FROM_ONLY = {
  dryRun: '--dry-run',
  prune: '--no-prune',
  user: '--user',
  workspace: '--workspace',
} as const;
const EXPORT_TO_ONLY = {
  dryRun: '--dry-run',
  user: '--user',
  workspace: '--workspace',
  file: '--file',
  category: '--category',
  tag: '--tag',
  type: '--type',
  team: '--team',
} as const;

/** Flags whose options are set away from their defaults: a boolean that is true (false for `prune`), or any value. */
function given(options: Record<string, unknown>, names: Readonly<Record<string, string>>): string[] {
  return Object.entries(names)
    .filter(([name]) =>
      name === 'prune' ? options[name] === false : options[name] !== undefined && options[name] !== false,
    )
    .map(([, flag]) => flag);
}

/**
 * Why the options given do not fit the mode (`--from`/`--to` or the store's
 * own JSON), if they do not: bad usage, as commander reports it, never ignored.
 */
function misfit(
  command: string,
  mode: string,
  inMode: boolean,
  options: object,
  modeOnly: Readonly<Record<string, string>>,
  plainOnly: readonly string[],
): string | undefined {
  const record = options as Record<string, unknown>;
  if (!inMode) {
    const [flag] = given(record, modeOnly);
    return flag ? `${flag} is for ${command} ${mode}` : undefined;
  }
  const plain = plainOnly.find((name) => record[name] !== undefined && record[name] !== false);
  return plain
    ? `--${plain.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for ${command} without ${mode}`
    : undefined;
}

export function registerStoreCommands(program: Command): void {
  withStoreOptions(program.command('init'))
    .description('create a store (nothing happens if one exists)')
    .action(async (options: GlobalOptions) => {
      const stats = await withMemory(options, (memory) => memory.stats(), true);
      keepStoreOutOfGit(path.resolve(options.dir));
      if (options.json) printJson({ dir: path.resolve(options.dir), path: stats.path });
      else print(`store ready in ${path.resolve(options.dir)}`);
    });

  const snapshot = program.command('snapshot').description('create, list and restore snapshots');
  withStoreOptions(snapshot.command('create [label]'))
    .description('save a point-in-time copy of the store')
    .action(async (label: string | undefined, options: GlobalOptions) => {
      const info = await withMemory(options, (memory) => memory.snapshot(label ?? ''));
      if (options.json) printJson(info);
      else print(`created ${snapshotLine(info)}`);
    });
  withStoreOptions(snapshot.command('list'))
    .description('list snapshots, newest first')
    .action(async (options: GlobalOptions) => {
      const list = await withMemory(options, (memory) => memory.listSnapshots());
      if (options.json) printJson(list);
      else print(list.length ? list.map(snapshotLine).join('\n') : 'no snapshots');
    });
  withStoreOptions(snapshot.command('restore <id>'))
    .description(
      'replace the whole store with a snapshot (atomic): shows what would change and asks first; ' +
        'without a terminal it refuses (exit 2) unless given --yes',
    )
    .option('--yes', 'restore without asking (scripts: required when not on a terminal)', false)
    .action(async (id: string, options: GlobalOptions & { yes: boolean }) => {
      let opened = false;
      try {
        await withMemory(options, async (memory) => {
          opened = true;
          const preview = await memory.restorePreview(id);
          const summary = describeRestore(preview);
          if (
            !(await consented(
              options.yes,
              `Restoring ${snapshotLine(preview.snapshot)} would:\n${summary}`,
              RESTORE,
              options.json ? { preview } : undefined,
            ))
          )
            return;
          const info = await memory.restore(id);
          const { restored, removed, changed, unchanged } = preview;
          if (options.json) printJson({ ...info, changes: { restored, removed, changed, unchanged } });
          else print(`${restoredLine(info, options.dir)}\n${describeRestore(preview, 'done')}`);
        });
      } catch (error) {
        // A store too damaged to open can still be rebuilt from a snapshot; no preview can be made of it.
        if (opened || !isMemoryError(error, 'STORE_CORRUPT')) throw error;
        const question =
          `The store cannot be opened: ${error.message}\n` +
          `Restoring snapshot ${id} rebuilds it from the snapshot. No snapshot of the store as it is can be taken ` +
          '(it cannot be read): the damaged file is moved aside instead, and what it held since is not in the store any more.';
        const preview = { snapshot: id, rebuild: true, damage: error.message };
        if (!(await consented(options.yes, question, RESTORE, options.json ? { preview } : undefined))) return;
        const info = await restoreUnopenableStore(options.dir, id);
        if (options.json) printJson({ ...info, rebuilt: true });
        else print(restoredLine(info, options.dir));
      }
    });

  withExportToOptions(withStoreOptions(program.command('export')))
    .description(
      'write every live entity and access count as portable JSON; with --to, memories and skills where another agent tool reads them',
    )
    .option('--out <file>', 'write to a file instead of standard output')
    .action(async (options: ExportToOptions & { out?: string; to?: string }) => {
      const wrong = misfit('export', '--to', options.to !== undefined, options, EXPORT_TO_ONLY, ['out']);
      if (wrong) program.error(`error: ${wrong}`, { exitCode: 2 });
      if (options.to !== undefined) return exportToTool(options);
      if (options.out) assertOutsideStore(options.dir, options.out);
      const data = await withMemory(options, (memory) => memory.export());
      // The export is JSON for a program (import) to read: exact, never escaped.
      if (!options.out) return printJson(data);
      writeTextFile(options.out, `${JSON.stringify(data, null, 2)}\n`);
      const count = Object.values(data.entities).reduce((sum, list) => sum + list.length, 0);
      if (options.json) printJson({ out: path.resolve(options.out), entities: count });
      else print(`exported ${counted(count, 'entity', 'entities')} to ${options.out}`);
    });

  withImportFromOptions(withStoreOptions(program.command('import [file]')))
    .description(
      'import an export (use - for standard input; ids are kept); with --from, what another agent tool remembers (a file or folder of its, or the whole workspace)',
    )
    .option('--skip-existing', 'keep entities that already exist', false)
    .action(async (file: string | undefined, options: ImportFromOptions & { skipExisting: boolean; from?: string }) => {
      const wrong = misfit('import', '--from', options.from !== undefined, options, IMPORT_FROM_ONLY, ['skipExisting']);
      if (wrong) program.error(`error: ${wrong}`, { exitCode: 2 });
      if (options.from !== undefined) return importFromTool(file, options);
      if (file === undefined)
        program.error("error: missing argument 'file' (an export, or - for standard input)", { exitCode: 2 });
      const text = file === '-' ? await readStdin() : readTextFile(file);
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (error) {
        const name = file === '-' ? 'standard input' : file;
        throw new MemoryError('IMPORT_INVALID', `${name} is not JSON (${jsonErrorReason(error)}).`);
      }
      const report = await withMemory(options, (memory) => memory.import(data, { skipExisting: options.skipExisting }));
      if (options.json) printJson(report);
      else print(`imported ${report.imported}, overwrote ${report.overwritten}, skipped ${report.skipped}`);
    });

  withStoreOptions(program.command('stats'))
    .description('count entities, objects, commits and bytes on disk')
    .action(async (options: GlobalOptions) => {
      const stats = await withMemory(options, (memory) => memory.stats());
      if (options.json) printJson(stats);
      else {
        const width = Math.max(...Object.keys(stats).map((key) => key.length));
        print(
          Object.entries(stats)
            .map(([key, value]) => `${key.padEnd(width)} ${value}`)
            .join('\n'),
        );
      }
    });

  withStoreOptions(program.command('verify'))
    .description('recompute every hash and walk every history chain; exit 1 if anything is wrong')
    .option('--secrets', 'instead, list the entities holding secrets (any version); exit 1 if any does', false)
    .option('--redact', 'with --secrets: redact them in the current versions, as new commits', false)
    .option(
      '--purge',
      'with --secrets: also rewrite the older versions that hold them (asks first; rewrites history)',
      false,
    )
    .option('--yes', 'with --purge: purge without asking', false)
    .action(async (options: GlobalOptions & SecretsOptions) => {
      if (options.secrets || options.redact || options.purge) return verifySecrets(options);
      const report = await withMemory(options, (memory) => memory.verify());
      if (options.json) printJson(report);
      else {
        report.errors.forEach((error) => print(`${error.code}  ${error.message}`));
        print(
          `${report.valid ? 'valid' : 'INVALID'}: ${counted(report.totalEntities, 'entity', 'entities')}, ${counted(report.totalCommits, 'commit')}, ${counted(report.totalObjects, 'object')}, ${counted(report.errors.length, 'error')}`,
        );
      }
      if (!report.valid) process.exitCode = 1;
    });

  registerCleanupCommand(program);
}
