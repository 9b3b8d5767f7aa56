import type { Command } from 'commander';

import type { CitationReport, CitationStatus, CitedEntityReport } from '../../core/anchors/staleness';
import { entityTitle } from '../../core/text';
import { FOUND_EXIT_CODE, type GlobalOptions, withMemory, withStoreOptions, withWorkspaceOption } from './context';
import { counted, inline, print, printJson } from './output';

interface CheckOptions extends GlobalOptions {
  agent?: string;
  reanchor: boolean;
}

/** Where a citation points: `src/app.ts:10-24`. */
const place = ({ path, startLine, endLine }: { path: string; startLine: number; endLine: number }) =>
  `${inline(path)}:${startLine === endLine ? startLine : `${startLine}-${endLine}`}`;

/** One citation that needs a reader's eye, on one line; nothing for a valid one. */
function citationLine(report: CitedEntityReport, status: CitationStatus): string | undefined {
  const { entity } = report;
  const name = `${entity.type} “${inline(entityTitle(entity, 48).title)}” (${entity.id})`;
  const cited = place(status.citation);
  switch (status.state) {
    case 'valid':
      return undefined;
    case 'moved': {
      const to = status.movedTo!;
      const lines = `${to.startLine}-${to.endLine}`;
      return `moved    ${name}: ${cited} → ${to.path ? `${inline(to.path)}:${lines}` : lines}${report.reanchored ? ' (re-anchored)' : ''}`;
    }
    case 'changed': {
      const renamed = status.renamedTo ? ` in ${inline(status.renamedTo)}, its new name,` : '';
      return `stale    ${name}: ${cited} changed${renamed}${status.changedAt ? ` on ${status.changedAt.slice(0, 10)}` : ''}`;
    }
    case 'missing':
      return `stale    ${name}: ${cited} is gone (the file was deleted or renamed, is no longer text, or is over 4 MB)`;
  }
}

function summary(report: CitationReport): string {
  const { counts } = report;
  const total = counts.valid + counts.moved + counts.changed + counts.missing;
  const stale = report.entities.filter((entry) => entry.stale).length;
  return (
    `${counted(total, 'citation')} in ${counted(report.entities.length, 'memory or skill', 'memories and skills')}: ` +
    `${counts.valid} valid, ${counts.moved} moved, ${counts.changed} changed, ${counts.missing} missing; ` +
    `${stale ? `${counted(stale, 'stale entity', 'stale entities')}` : 'none stale'}`
  );
}

export function registerCitationCommands(program: Command): void {
  const citations = program
    .command('citations')
    .description('the code that memories and skills cite: check whether it still says what they cite');
  withWorkspaceOption(withStoreOptions(citations.command('check')))
    .description(
      'check every citation against the workspace: moved lines are re-anchored; exits 3 when a memory or skill is stale (its cited code changed or is gone), 1 on an error, for CI',
    )
    .option('--agent <id>', "only this agent's memories and skills (and the shared skills)")
    .option('--no-reanchor', 'report moved citations without writing them at their new lines')
    .action(async (options: CheckOptions) => {
      const report = await withMemory(options, (memory) =>
        memory.checkCitations({ agentId: options.agent, reanchor: options.reanchor }),
      );
      if (options.json) printJson(report);
      else {
        for (const entry of report.entities) {
          for (const status of entry.citations) {
            const line = citationLine(entry, status);
            if (line) print(line);
          }
        }
        print(summary(report));
      }
      if (report.entities.some((entry) => entry.stale)) process.exitCode = FOUND_EXIT_CODE;
    });
}
