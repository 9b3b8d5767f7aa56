import type { Command } from 'commander';

import { MemoryError } from '../../core/errors';
import { describeProvenance, WRITER_KINDS } from '../../core/provenance';
import { oneLine } from '../../core/text';
import type { RevertFilter, RevertItem } from '../../core/trust/revert';
import type { PendingItem, ReviewOutcome } from '../../core/trust/review';
import type { SecretHolder } from '../../core/trust/secret-audit';
import type { UnusedEntity } from '../../core/trust/unused';
import {
  type GlobalOptions,
  parseInteger,
  type ScopeOptions,
  withMemory,
  withScopeOptions,
  withStoreOptions,
} from './context';
import { counted, inline, print, printJson } from './output';
import { consented } from './restore-confirm';

const SHOWN = 20;

function pendingLine({ entity, commit }: PendingItem): string {
  const what = commit.proposes
    ? `proposes to ${commit.proposes.action} ${commit.proposes.target}`
    : `new ${entity.type}`;
  return `${entity.id}  ${what}  ${inline(describeProvenance(commit.by, commit.author))}\n    ${oneLine(entity.content, 76)}`;
}

function outcomeLine(outcome: ReviewOutcome): string {
  if (outcome.outcome === 'applied') return `applied ${outcome.id} to ${outcome.entityId}`;
  return `${outcome.outcome} ${outcome.id}`;
}

function revertLine(item: RevertItem): string {
  const verb = item.action.padEnd(7);
  const later = item.laterByOthers ? '  (also undoes later writes by others)' : '';
  return `  ${verb}  ${item.id}  ${counted(item.commits, 'write')}${later}\n      ${inline(item.preview)}`;
}

function unusedLine({ entity, lastUsed, lastWritten }: UnusedEntity): string {
  const when = lastUsed ? `last used ${lastUsed.slice(0, 10)}` : `never used, written ${lastWritten.slice(0, 10)}`;
  return `${entity.id}  ${entity.type}  ${when}\n    ${oneLine(entity.content, 76)}`;
}

/** Ids from the arguments, or every pending write with --all; both or neither is bad usage. */
function idsOrAll(ids: string[], all: boolean): string[] | 'all' {
  if (all && ids.length > 0) throw new MemoryError('INVALID_INPUT', 'Give ids or --all, not both.');
  if (!all && ids.length === 0)
    throw new MemoryError('INVALID_INPUT', 'Name the pending writes (see `review list`), or give --all.');
  return all ? 'all' : ids;
}

/** Parses --since and --until: an ISO date or time, or a span back from now ("2h", "3d", "1w"). */
export function parseWhen(value: string | undefined, now = Date.now(), name = '--since'): string | undefined {
  if (value === undefined) return undefined;
  const span = /^(\d+)\s*(m|h|d|w)$/i.exec(value.trim());
  const time = span
    ? now -
      Number(span[1]) *
        { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[span[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w']
    : Date.parse(value);
  // Date's range ends about 275,000 years out: a span past it is as wrong as a typo.
  if (!Number.isFinite(time) || Number.isNaN(new Date(time).getTime())) {
    throw new MemoryError(
      'INVALID_INPUT',
      `${name} takes an ISO date or time, or a span back from now (30m, 2h, 3d, 1w); got ${JSON.stringify(value)}.`,
    );
  }
  return span ? new Date(time).toISOString() : value;
}

export interface SecretsOptions {
  secrets: boolean;
  redact: boolean;
  purge: boolean;
  yes: boolean;
}

function holderLine(holder: SecretHolder): string {
  const now = holder.current.map((finding) => `${finding.kind} in ${finding.field} line ${finding.line}`).join(', ');
  const older = holder.olderVersions ? counted(holder.olderVersions, 'older version') : '';
  return `${holder.id}  ${[now, older].filter(Boolean).join('; ')}`;
}

/** `verify --secrets [--redact | --purge]`: secrets already in the store, and taking them out. */
export async function verifySecrets(options: GlobalOptions & SecretsOptions): Promise<void> {
  if ((options.redact || options.purge) && !options.secrets) {
    throw new MemoryError('INVALID_INPUT', '--redact and --purge go with --secrets.');
  }
  await withMemory(options, async (memory) => {
    const holders = await memory.secretAudit.scan();
    if (!options.redact && !options.purge) {
      if (options.json) printJson(holders);
      else print(holders.length ? holders.map(holderLine).join('\n') : 'no secrets found');
      if (holders.length) process.exitCode = 1;
      return;
    }
    if (holders.length === 0) return print('no secrets found');
    if (options.redact && !options.purge) {
      const commits = await memory.secretAudit.redact(holders.filter((h) => h.current.length).map((h) => h.id));
      if (options.json) printJson(commits);
      else
        print(
          `redacted ${counted(commits.length, 'entity', 'entities')}; older versions still hold secrets: --purge rewrites them`,
        );
      return;
    }
    const consent = {
      question: 'Purge these secrets from the history?',
      what: 'a purge rewrites history',
      flag: 'Give --yes to purge.',
      declined: 'not purged; nothing was changed',
    };
    const summary = [
      `Purging rewrites every version of these entities that holds a secret:`,
      ...holders.map(holderLine),
    ].join('\n');
    if (!(await consented(options.yes, summary, consent, options.json ? { preview: holders } : undefined))) return;
    const report = await memory.secretAudit.purge(holders.map((holder) => holder.id));
    const snapshots = (await memory.listSnapshots()).length;
    if (options.json) printJson({ ...report, snapshots });
    else {
      print(
        `purged ${counted(report.versions, 'version')} of ${counted(report.entities.length, 'entity', 'entities')} (${counted(report.commits, 'commit')} re-hashed)`,
      );
      if (snapshots)
        print(`${counted(snapshots, 'snapshot')} taken before may still hold them: delete those you do not need`);
    }
  });
}

export function registerTrustCommands(program: Command): void {
  const review = program
    .command('review')
    .description(
      'writes waiting for a person to approve them (MCP clients, mining, consolidation): list, approve, reject',
    );
  withStoreOptions(review.command('list'))
    .description('list the writes waiting for review, newest first')
    .option('--agent <id>', 'only this agent’s')
    .action(async (options: GlobalOptions & { agent?: string }) => {
      const items = await withMemory(options, (memory) => memory.review.list({ agentId: options.agent }));
      if (options.json) printJson(items);
      else print(items.length ? items.map(pendingLine).join('\n') : 'nothing is waiting for review');
    });
  for (const action of ['approve', 'reject'] as const) {
    withStoreOptions(review.command(`${action} [ids...]`))
      .description(
        action === 'approve'
          ? 'approve pending writes (all or none): new ones become searchable, proposals are applied'
          : 'reject pending writes (all or none): each is deleted with its history kept',
      )
      .option('--all', `${action} everything that is waiting`, false)
      .option('--agent <id>', 'with --all: only this agent’s')
      .action(async (ids: string[], options: GlobalOptions & { all: boolean; agent?: string }) => {
        const chosen = idsOrAll(ids, options.all);
        const outcomes = await withMemory(options, async (memory) => {
          if (chosen !== 'all') return memory.review[action](chosen);
          if ((await memory.review.count({ agentId: options.agent })) === 0) return [];
          return action === 'approve'
            ? memory.review.approveAll({ agentId: options.agent })
            : memory.review.rejectAll({ agentId: options.agent });
        });
        if (options.json) printJson(outcomes);
        else print(outcomes.length ? outcomes.map(outcomeLine).join('\n') : 'nothing is waiting for review');
      });
  }

  withStoreOptions(program.command('revert'))
    .description(
      'undo everything one writer wrote: what it created is deleted, what it changed gets back the version from before, as new commits; shows the list and asks first',
    )
    .requiredOption('--by <kind>', `the writer: ${WRITER_KINDS.join('|')}`)
    .option('--name <name>', 'only this person or MCP client (as `history` shows it)')
    .option('--conversation <id>', 'only writes from this conversation or session')
    .option('--since <when>', 'only writes since: an ISO date or time, or a span back from now (30m, 2h, 3d, 1w)')
    .option('--until <when>', 'only writes before this time (same forms)')
    .option('--dry-run', 'list what would be undone, change nothing', false)
    .option('--yes', 'revert without asking (scripts: required when not on a terminal)', false)
    .action(
      async (
        options: GlobalOptions & {
          by: string;
          name?: string;
          conversation?: string;
          since?: string;
          until?: string;
          dryRun: boolean;
          yes: boolean;
        },
      ) => {
        const filter = {
          by: options.by,
          name: options.name,
          conversation: options.conversation,
          since: parseWhen(options.since, Date.now(), '--since'),
          until: parseWhen(options.until, Date.now(), '--until'),
        } as RevertFilter;
        await withMemory(options, async (memory) => {
          const preview = await memory.revert(filter, { dryRun: true });
          const shown = preview.items.slice(0, SHOWN).map(revertLine);
          const more = preview.items.length > SHOWN ? [`  … and ${preview.items.length - SHOWN} more`] : [];
          const summary = [
            `Reverting would change ${counted(preview.items.length, 'entity', 'entities')}:`,
            ...shown,
            ...more,
          ].join('\n');
          if (options.dryRun) {
            if (options.json) printJson(preview);
            else print(summary);
            return;
          }
          const consent = {
            question: 'Revert these writes?',
            what: 'a revert changes these entities',
            flag: 'Give --yes to revert, or --dry-run to only list.',
            declined: 'not reverted; nothing was changed',
          };
          if (!(await consented(options.yes, summary, consent, options.json ? { preview } : undefined))) return;
          const report = await memory.revert(filter);
          if (options.json) printJson(report);
          else print(`reverted ${counted(report.commits.length, 'entity', 'entities')}`);
        });
      },
    );

  withScopeOptions(withStoreOptions(program.command('unused')))
    .description(
      'memories and skills that recall never handed to a model, no tool read and no one changed for --days days, longest unused first, for you to review (deletes nothing)',
    )
    .option('--days <n>', 'how long without use', parseInteger('--days'), 90)
    .option('--limit <n>', 'how many to show (at most 1000)', parseInteger('--limit'), 50)
    .action(async (options: ScopeOptions & { days: number; limit: number }) => {
      const report = await withMemory(options, (memory) =>
        memory.unused(options.agent, options.user, options.days, { limit: options.limit }),
      );
      if (options.json) return printJson(report);
      if (!report.total) return print(`nothing went unused for ${counted(options.days, 'day')}`);
      print(report.items.map(unusedLine).join('\n'));
      const more = report.total - report.items.length;
      print(
        `${counted(report.total, 'memory or skill', 'memories and skills')} unused for ${counted(options.days, 'day')}${more > 0 ? ` (${more} more: --limit)` : ''}; keep, update or delete each`,
      );
    });

  withStoreOptions(program.command('reinstate <id>'))
    .description('put back a memory that a correction superseded (the undo of the correction), as a new commit')
    .action(async (id: string, options: GlobalOptions) => {
      const commit = await withMemory(options, async (memory) => {
        const found = await memory.history(id);
        const type = found[0]?.entity?.type;
        if (!type) throw new MemoryError('NOT_FOUND', `No superseded entity with id ${id}.`);
        return memory.collection(type).reinstate(id);
      });
      if (options.json) printJson(commit);
      else print(`reinstated ${id} (commit ${commit.hash.slice(0, 12)})`);
    });
}
