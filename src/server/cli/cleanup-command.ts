/**
 * `workspace-memory cleanup`: deletes what has not been updated for a while
 * and trims the audit log. Deleting is asked first, like a restore or a
 * revert (see restore-confirm): it shows what would go, asks on a terminal,
 * takes --yes from scripts and refuses without either.
 */
import type { Command } from 'commander';

import { MemoryError } from '../../core/errors';
import type { CleanupOptions, CleanupReport } from '../../core/maintenance';
import type { Memory } from '../../core/memory';
import { entityTitle } from '../../core/text';
import { type GlobalOptions, parseInteger, parseNumber, withMemory, withStoreOptions } from './context';
import { counted, print, printJson } from './output';
import { consented } from './restore-confirm';

/** How many of the entities to delete the question names, by their first words; the rest are counted. */
const SHOWN = 5;
/** How many characters of an entity's first words each of them gets. */
const TITLE_LENGTH = 60;

const CLEANUP = {
  question: 'Delete them?',
  what: 'cleanup deletes what it lists',
  flag: 'Give --yes to delete, or --dry-run to only list them.',
  declined: 'not cleaned up; nothing was changed',
};

type Options = GlobalOptions & { maxAgeDays?: number; maxAuditLines?: number; dryRun: boolean; yes: boolean };

/** What a cleanup would remove, for people: how many, the first few by their first words, the audit entries. */
async function describeCleanup(memory: Memory, preview: CleanupReport): Promise<string> {
  const lines = [`cleanup would delete ${counted(preview.removed, 'entity', 'entities')}`];
  for (const item of preview.details.slice(0, SHOWN)) {
    const entity = await memory.get(item.id);
    const title = entity ? entityTitle(entity, TITLE_LENGTH).title : item.id;
    lines.push(`  ${item.type.padEnd(9)} ${title}  (${item.id}, updated ${item.updatedAt})`);
  }
  if (preview.removed > SHOWN) lines.push(`  and ${preview.removed - SHOWN} more`);
  if (preview.auditRemoved > 0)
    lines.push(`and drop the oldest ${counted(preview.auditRemoved, 'audit entry', 'audit entries')}`);
  return lines.join('\n');
}

/** Removes what `options` selects once the user (or --yes) agreed to the preview; the report, or undefined when declined. */
async function cleanupAsked(memory: Memory, selection: CleanupOptions, options: Options) {
  const preview = await memory.cleanup({ ...selection, dryRun: true });
  // Nothing to remove is nothing to ask about.
  if (preview.removed > 0 || preview.auditRemoved > 0) {
    const summary = await describeCleanup(memory, preview);
    if (!(await consented(options.yes, summary, CLEANUP, options.json ? { preview } : undefined))) return undefined;
  }
  return memory.cleanup(selection);
}

export function registerCleanupCommand(program: Command): void {
  withStoreOptions(program.command('cleanup'))
    .description(
      'delete memories, skills and knowledge not updated for a while; trim the audit log. ' +
        'Shows what it would remove and asks first; without a terminal it refuses (exit 2) unless given --yes',
    )
    .option('--max-age-days <n>', 'age limit in days', parseNumber('--max-age-days'))
    .option('--max-audit-lines <n>', 'keep only the newest N audit entries', parseInteger('--max-audit-lines'))
    .option('--dry-run', 'show what would be removed', false)
    .option('--yes', 'remove without asking (scripts: required when not on a terminal)', false)
    .action(async (options: Options) => {
      if (options.maxAgeDays === undefined && options.maxAuditLines === undefined) {
        throw new MemoryError('INVALID_INPUT', 'Give --max-age-days, --max-audit-lines or both.');
      }
      const selection = { maxAgeDays: options.maxAgeDays, maxAuditLines: options.maxAuditLines };
      const report = await withMemory(options, (memory) =>
        options.dryRun ? memory.cleanup({ ...selection, dryRun: true }) : cleanupAsked(memory, selection, options),
      );
      if (!report) return;
      if (options.json) return printJson(report);
      report.details.forEach((item) =>
        print(`${options.dryRun ? 'would delete' : 'deleted'} ${item.id}  (${item.type}, updated ${item.updatedAt})`),
      );
      print(
        `${options.dryRun ? 'would remove' : 'removed'} ${report.removed}, kept ${report.preserved}, audit entries dropped ${report.auditRemoved}`,
      );
    });
}
