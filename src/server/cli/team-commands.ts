import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Command } from 'commander';

import { MemoryError } from '../../core/errors';
import { git } from '../../core/git-process';
import { checkStagedTeamFolder, checkTeamFolder, type TeamCheckFinding } from '../../core/team/check';
import { DEFAULT_TEAM_FOLDER, teamFolderPath, type TeamFolderProblem } from '../../core/team/folder';
import type { TeamSyncReport } from '../../core/team/sync';
import type { Team } from '../../core/team/team';
import { entityTitle } from '../../core/text';
import {
  environmentValue,
  FOUND_EXIT_CODE,
  type GlobalOptions,
  type ScopeOptions,
  withMemory,
  withScopeOptions,
  withStoreOptions,
  withWorkspaceOption,
  workspaceFolder,
} from './context';
import { counted, inline, print, printJson } from './output';

/** The team folder option's name in the environment, as the store's commands read it too. */
const FOLDER_VARIABLE = 'WORKSPACE_MEMORY_TEAM_FOLDER';

const folderOf = (options: GlobalOptions): string =>
  teamFolderPath(
    workspaceFolder(options.workspace, options.dir).path,
    environmentValue(FOLDER_VARIABLE) ?? DEFAULT_TEAM_FOLDER,
  );

/** The store's team scope; TEAM_FOLDER_MISSING (with how to start one) when the workspace has no team folder. */
function requireTeam(team: Team | undefined, options: GlobalOptions): Team {
  if (team) return team;
  const folder = path.relative(process.cwd(), folderOf(options)) || '.';
  throw new MemoryError(
    'NOT_FOUND',
    `The workspace has no team folder (${folder}); \`workspace-memory team share <id>\` starts one.`,
  );
}

/** The top of the git repository `folder` is in, if it is in one. */
async function repositoryTop(folder: string): Promise<string | undefined> {
  return (await git(folder, ['rev-parse', '--show-toplevel']))?.trim() || undefined;
}

const problemLine = ({ path: file, problem }: TeamFolderProblem): string =>
  `problem  ${inline(file)}${problem.line ? `:${problem.line}` : ''}: ${inline(problem.message)}\n         fix: ${inline(problem.fix)}`;

function syncSummary(report: TeamSyncReport): string {
  const lines = report.problems.map(problemLine);
  lines.push(
    `${report.added.length} added, ${report.updated.length} updated, ${report.removed.length} removed, ` +
      `${report.unchanged} unchanged${report.problems.length ? `; ${counted(report.problems.length, 'file')} not taken in` : ''}`,
  );
  return lines.join('\n');
}

const findingLine = (finding: TeamCheckFinding): string =>
  `${finding.kind.padEnd(9)} ${inline(finding.path)}${finding.line ? `:${finding.line}` : ''}: ${inline(finding.message)}\n          fix: ${inline(finding.fix)}`;

export function registerTeamCommands(program: Command): void {
  const team = program
    .command('team')
    .description(
      `team memory: memories and skills kept as files in the repository's team folder (${DEFAULT_TEAM_FOLDER}/, or $${FOLDER_VARIABLE}), shared through git`,
    );

  withWorkspaceOption(withStoreOptions(team.command('sync')))
    .description(
      'bring the team folder into the store (every command also does, first); exits 3 when a file is not taken in',
    )
    .action(async (options: GlobalOptions) => {
      const report = await withMemory(options, (memory) => requireTeam(memory.team, options).sync(), false, false);
      if (options.json) printJson(report);
      else print(syncSummary(report));
      if (report.problems.length) process.exitCode = FOUND_EXIT_CODE;
    });

  withWorkspaceOption(withStoreOptions(team.command('status')))
    .description(
      "the team folder's memories and skills with their git state (new, modified, committed), and the files not taken in (then exits 3)",
    )
    .action(async (options: GlobalOptions) => {
      const status = await withMemory(options, (memory) => requireTeam(memory.team, options).status());
      if (status.problems.length) process.exitCode = FOUND_EXIT_CODE;
      if (options.json) return printJson(status);
      for (const file of status.files) print(`${file.state.padEnd(9)} ${file.type.padEnd(6)} ${inline(file.path)}`);
      for (const problem of status.problems) print(problemLine(problem));
      print(
        `${counted(status.files.length, 'team file')} in ${inline(path.relative(process.cwd(), status.folder) || '.')}` +
          (status.problems.length ? `; ${counted(status.problems.length, 'file')} not taken in` : ''),
      );
    });

  withWorkspaceOption(withStoreOptions(team.command('share <ids...>')))
    .description(
      'make memories or skills team memory: each is written to the team folder (started if missing) and leaves your own',
    )
    .action(async (ids: string[], options: GlobalOptions) => {
      // Sharing starts the folder: the store opens with it then.
      fs.mkdirSync(folderOf(options), { recursive: true });
      const shared = await withMemory(options, async (memory) => {
        const scope = requireTeam(memory.team, options);
        const done = [];
        for (const id of ids) done.push(await scope.share(id));
        return done;
      });
      if (options.json) return printJson(shared);
      for (const entity of shared) {
        print(
          `shared ${entity.type} “${inline(entityTitle(entity, 48).title)}” (${entity.id}): commit the team folder to share it`,
        );
      }
    });

  withWorkspaceOption(withScopeOptions(withStoreOptions(team.command('unshare <ids...>'))))
    .description("make team memories or skills your own again (--agent's, and --user's for memories): their files go")
    .action(async (ids: string[], options: ScopeOptions) => {
      const moved = await withMemory(options, async (memory) => {
        const scope = requireTeam(memory.team, options);
        const done = [];
        for (const id of ids) done.push(await scope.makePersonal(id, options.agent, options.user));
        return done;
      });
      if (options.json) return printJson(moved);
      for (const entity of moved) {
        print(
          `made personal ${entity.type} ${entity.id}: its team file is removed; commit the team folder to share that`,
        );
      }
    });

  team
    .command('check [repository]')
    .description(
      'check the team folder of a repository (default: the git repository of the current folder) for CI and pre-commit hooks: files the store would refuse, secrets, near-duplicates, stale citations; exits 3 on findings. Needs no store.',
    )
    .option(
      '--staged',
      "check what is staged for the next commit, not the working tree (a pre-commit hook's view)",
      false,
    )
    .option('--json', 'print machine-readable JSON', false)
    .action(async (repository: string | undefined, options: { json: boolean; staged: boolean }) => {
      // From a subfolder, the repository's own team folder: not an empty one that passes for nothing.
      const workspace = path.resolve(repository ?? (await repositoryTop(process.cwd())) ?? '.');
      const check = options.staged ? checkStagedTeamFolder : checkTeamFolder;
      const report = await check(workspace, environmentValue(FOLDER_VARIABLE));
      if (options.json) printJson(report);
      else {
        for (const finding of report.findings) print(findingLine(finding));
        print(
          `${counted(report.files, 'team file')} checked in ${inline(path.relative(process.cwd(), report.folder) || '.')}: ` +
            (report.findings.length ? counted(report.findings.length, 'finding') : 'nothing to fix'),
        );
      }
      if (report.findings.length) process.exitCode = FOUND_EXIT_CODE;
    });
}
