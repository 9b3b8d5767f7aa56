import type { Command } from 'commander';

import { consolidate, type ConsolidationReport, type ConsolidationTarget } from '../../core/ai/consolidation';
import { mineSession, type MiningReport, type PlannedItem } from '../../core/ai/mining';
import { MemoryError } from '../../core/errors';
import { oneLine } from '../../core/text';
import {
  chatFromEnvironment,
  type GlobalOptions,
  interruptible,
  parseInteger,
  progress,
  type ScopeOptions,
  withMemory,
  withScopeOptions,
  withStoreOptions,
  withWorkspaceOption,
  workspaceFolder,
} from './context';
import { counted, inline, print, printJson } from './output';

const TARGETS: readonly ConsolidationTarget[] = ['memory', 'skill', 'knowledge'];

interface AiOptions {
  dryRun: boolean;
  maxRequestChars?: number;
}

/** `mine` and `consolidate`: the AI pipelines, with the chat model of WORKSPACE_MEMORY_CHAT_URL/_MODEL. */
export function registerAiCommands(program: Command): void {
  withWorkspaceOption(withAiOptions(withStoreOptions(program.command('mine <sessionId>'))))
    .description('extract memories, skills and profile facts from a session with the chat model')
    .option('--force', 'mine a session already marked as mined', false)
    .action(async (sessionId: string, options: GlobalOptions & AiOptions & { force: boolean }) => {
      const ai = chatFromEnvironment('mine');
      const report = await interruptible((signal) =>
        withMemory(options, (memory) =>
          mineSession(memory, ai, sessionId, {
            dryRun: options.dryRun,
            force: options.force,
            maxRequestChars: options.maxRequestChars,
            signal,
            onProgress: progress('requests'),
            workspaceFolders: [workspaceFolder(options.workspace, options.dir)],
          }),
        ),
      );
      if (options.json) printJson(report);
      else print(miningSummary(report));
    });

  withAiOptions(withScopeOptions(withStoreOptions(program.command('consolidate'))))
    .description('merge duplicate and delete outdated memories, skills and knowledge with the chat model')
    .option('--type <list>', `what to consolidate, comma-separated: ${TARGETS.join(', ')}`, TARGETS.join(','))
    .action(async (options: ScopeOptions & AiOptions & { type: string }) => {
      const targets = parseTargets(options.type);
      const ai = chatFromEnvironment('consolidate');
      const reports = await interruptible((signal) =>
        withMemory(options, async (memory) => {
          const done: ConsolidationReport[] = [];
          for (const target of targets) {
            done.push(
              await consolidate(memory, ai, {
                target,
                agentId: options.agent,
                userId: options.user,
                dryRun: options.dryRun,
                maxRequestChars: options.maxRequestChars,
                signal,
                onProgress: progress(`${target} batches`),
              }),
            );
          }
          return done;
        }),
      );
      if (options.json) printJson(reports);
      else print(reports.map(consolidationSummary).join('\n\n'));
    });
}

function withAiOptions(command: Command): Command {
  return command
    .option('--dry-run', 'show the plan and write nothing', false)
    .option(
      '--max-request-chars <n>',
      'characters per request to the model (default 16000)',
      parseInteger('--max-request-chars'),
    );
}

function parseTargets(list: string): ConsolidationTarget[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(TARGETS as readonly string[]).includes(name));
  if (unknown.length || names.length === 0) {
    throw new MemoryError('INVALID_INPUT', `--type takes ${TARGETS.join(', ')} (got "${list}").`);
  }
  return [...new Set(names)] as ConsolidationTarget[];
}

/** Mining's and consolidation's writes wait for review by default: say so, and where to go. */
function waitingLine(count: number): string {
  return `${counted(count, 'write')} ${count === 1 ? 'waits' : 'wait'} for review: \`workspace-memory review list\`, then \`review approve\``;
}

function miningSummary(report: MiningReport): string {
  const { plan } = report;
  const lines: string[] = [];
  if (report.dryRun) {
    for (const item of plan.memories) lines.push(plannedLine('memory', item));
    for (const item of plan.skills) lines.push(plannedLine('skill', item));
    for (const fact of plan.profileFacts) lines.push(`would add     profile fact  ${oneLine(fact)}`);
  } else {
    for (const item of report.created) lines.push(`created   ${item.id}  ${oneLine(item.content)}`);
    for (const item of report.updated) lines.push(`updated   ${item.id}  ${oneLine(item.content)}`);
  }
  for (const skip of report.skipped) {
    lines.push(`skipped   ${skip.kind}${skip.content ? `  ${oneLine(skip.content, 60)}` : ''}: ${inline(skip.reason)}`);
  }
  const counts = report.dryRun
    ? `dry run, nothing written: ${counted(plan.memories.length, 'memory', 'memories')}, ${counted(plan.skills.length, 'skill')}, ${counted(plan.profileFacts.length, 'profile fact')} planned`
    : `${report.created.length} created, ${report.updated.length} updated${report.markedMined ? ', session marked mined' : ''}`;
  lines.push(`${report.sessionId}: ${counts}, ${report.skipped.length} skipped (${counted(plan.requests, 'request')})`);
  if (report.droppedCitations > 0) {
    lines.push(`${counted(report.droppedCitations, 'citation')} left out: not lines of a file in the workspace`);
  }
  if (report.pendingReview > 0) lines.push(waitingLine(report.pendingReview));
  return lines.join('\n');
}

function plannedLine(kind: 'memory' | 'skill', item: PlannedItem<string>): string {
  const where = item.existing
    ? `would update  ${item.existing.id} (similarity ${item.existing.similarity.toFixed(2)})`
    : `would add     ${kind}/${item.category}`;
  return `${where}  ${oneLine(item.content)}`;
}

function consolidationSummary(report: ConsolidationReport): string {
  const { plan } = report;
  const verb = report.dryRun ? 'would ' : '';
  const lines = [`${plan.target}: ${plan.reviewed} reviewed in ${counted(plan.requests, 'request')}`];
  for (const merge of plan.merges) {
    lines.push(`  ${verb}merge   ${merge.ids.join(' + ')} -> ${merge.ids[0]}: ${inline(merge.reason)}`);
  }
  for (const deletion of plan.deletions) lines.push(`  ${verb}delete  ${deletion.id}: ${inline(deletion.reason)}`);
  for (const rejected of plan.rejected) {
    lines.push(`  rejected ${rejected.action} ${rejected.ids.join(', ')}: ${inline(rejected.reason)}`);
  }
  for (const skipped of plan.skipped) lines.push(`  skipped  ${skipped.id}: ${inline(skipped.reason)}`);
  for (const failed of report.notApplied) {
    lines.push(`  not applied ${failed.action} ${failed.ids.join(', ')}: ${inline(failed.reason)}`);
  }
  if (plan.documentChunks) lines.push(`  ${counted(plan.documentChunks, 'document chunk')} left to sync`);
  lines.push(
    report.dryRun
      ? '  dry run, nothing written'
      : `  ${report.merged.length} merged, ${report.deleted.length} deleted, ${report.notApplied.length} not applied`,
  );
  if (report.pendingReview > 0) lines.push(`  ${waitingLine(report.pendingReview)}`);
  return lines.join('\n');
}
