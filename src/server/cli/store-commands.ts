import * as path from 'node:path';

import type { Command } from 'commander';

import { isMemoryError, MemoryError } from '../../core/errors';
import { assertOutsideStore } from '../../core/paths';
import type { SnapshotInfo } from '../../core/snapshots/manifests';
import { restoreUnopenableStore } from '../../core/snapshots/rebuild';
import { type GlobalOptions, parseInteger, parseNumber, readStdin, withMemory, withStoreOptions } from './context';
import { readTextFile, writeTextFile } from './files';
import { counted, inline, noun, print, printJson } from './output';
import { consented, describeRestore } from './restore-confirm';
import { type SecretsOptions, verifySecrets } from './trust-commands';

function snapshotLine(info: SnapshotInfo): string {
  // Labels are checked when made, but a store from an older version may hold any: one line, escaped.
  const entities = `${String(info.entities).padStart(7)} ${noun(info.entities, 'entity', 'entities').padEnd(8)}`;
  return `${info.id}  ${info.createdAt}  ${entities}  ${inline(info.label)}`.trimEnd();
}

const RESTORE = {
  question: 'Restore this snapshot?',
  what: 'snapshot restore replaces the whole store',
  flag: 'Give --yes to restore.',
  declined: 'not restored; nothing was changed',
};

export function registerStoreCommands(program: Command): void {
  withStoreOptions(program.command('init'))
    .description('create a store (nothing happens if one exists)')
    .action(async (options: GlobalOptions) => {
      const stats = await withMemory(options, (memory) => memory.stats(), true);
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
          else print(`restored ${snapshotLine(info)}\n${summary}`);
        });
      } catch (error) {
        // A store too damaged to open can still be rebuilt from a snapshot; no preview can be made of it.
        if (opened || !isMemoryError(error, 'STORE_CORRUPT')) throw error;
        const question =
          `The store cannot be opened: ${error.message}\n` +
          `Restoring snapshot ${id} rebuilds it from the snapshot; what the damaged file held since is lost.`;
        const preview = { snapshot: id, rebuild: true, damage: error.message };
        if (!(await consented(options.yes, question, RESTORE, options.json ? { preview } : undefined))) return;
        const info = await restoreUnopenableStore(options.dir, id);
        if (options.json) printJson({ ...info, rebuilt: true });
        else print(`restored ${snapshotLine(info)} (the damaged store file was rebuilt)`);
      }
    });

  withStoreOptions(program.command('export'))
    .description('write every live entity and access count as portable JSON')
    .option('--out <file>', 'write to a file instead of standard output')
    .action(async (options: GlobalOptions & { out?: string }) => {
      if (options.out) assertOutsideStore(options.dir, options.out);
      const data = await withMemory(options, (memory) => memory.export());
      // The export is JSON for a program (import) to read: exact, never escaped.
      if (!options.out) return printJson(data);
      writeTextFile(options.out, `${JSON.stringify(data, null, 2)}\n`);
      const count = Object.values(data.entities).reduce((sum, list) => sum + list.length, 0);
      if (options.json) printJson({ out: path.resolve(options.out), entities: count });
      else print(`exported ${counted(count, 'entity', 'entities')} to ${options.out}`);
    });

  withStoreOptions(program.command('import <file>'))
    .description('import an export (use - for standard input); ids are kept')
    .option('--skip-existing', 'keep entities that already exist', false)
    .action(async (file: string, options: GlobalOptions & { skipExisting: boolean }) => {
      const text = file === '-' ? await readStdin() : readTextFile(file);
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (error) {
        throw new MemoryError('IMPORT_INVALID', `${file} is not JSON: ${(error as Error).message}`);
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

  withStoreOptions(program.command('cleanup'))
    .description('delete memories, skills and knowledge not updated for a while; trim the audit log')
    .option('--max-age-days <n>', 'age limit in days', parseNumber('--max-age-days'))
    .option('--max-audit-lines <n>', 'keep only the newest N audit entries', parseInteger('--max-audit-lines'))
    .option('--dry-run', 'show what would be removed', false)
    .action(async (options: GlobalOptions & { maxAgeDays?: number; maxAuditLines?: number; dryRun: boolean }) => {
      if (options.maxAgeDays === undefined && options.maxAuditLines === undefined) {
        throw new MemoryError('INVALID_INPUT', 'Give --max-age-days, --max-audit-lines or both.');
      }
      const report = await withMemory(options, (memory) =>
        memory.cleanup({
          maxAgeDays: options.maxAgeDays,
          maxAuditLines: options.maxAuditLines,
          dryRun: options.dryRun,
        }),
      );
      if (options.json) printJson(report);
      else {
        report.details.forEach((item) =>
          print(`${options.dryRun ? 'would delete' : 'deleted'} ${item.id}  (${item.type}, updated ${item.updatedAt})`),
        );
        print(
          `${options.dryRun ? 'would remove' : 'removed'} ${report.removed}, kept ${report.preserved}, audit entries dropped ${report.auditRemoved}`,
        );
      }
    });
}
