import { Command, CommanderError } from 'commander';

import { isMemoryError } from '../../core/errors';
import { registerAiCommands } from './ai-commands';
import { registerCallCommand } from './call-command';
import { registerCitationCommands } from './citation-commands';
import { INTERRUPTED_EXIT_CODE } from './context';
import { registerEntityCommands } from './entity-commands';
import { registerInteropCommands } from './interop-commands';
import { registerMcpCommand } from './mcp-command';
import { commanderOutput, guardOutput, printError } from './output';
import { registerRagCommands } from './rag-commands';
import { registerSearchCommands } from './search-commands';
import { registerServeCommand } from './serve-command';
import { registerStoreCommands } from './store-commands';
import { registerTeamCommands } from './team-commands';
import { registerTrustCommands } from './trust-commands';

declare const PACKAGE_VERSION: string;

/**
 * `workspace-memory`: the store from a terminal. Exit codes: 0 success,
 * 1 the operation failed (the reason is printed on one line), 2 bad usage,
 * 130 stopped by Ctrl-C (see interruptible).
 */
export async function main(argv: string[]): Promise<number> {
  guardOutput();
  const program = new Command('workspace-memory')
    .description('A versioned, searchable memory store for a workspace.')
    .version(PACKAGE_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.configureOutput(commanderOutput);
  registerStoreCommands(program);
  registerInteropCommands(program);
  registerEntityCommands(program);
  registerSearchCommands(program);
  registerRagCommands(program);
  registerAiCommands(program);
  registerTrustCommands(program);
  registerCitationCommands(program);
  registerTeamCommands(program);
  registerCallCommand(program);
  registerMcpCommand(program, PACKAGE_VERSION);
  registerServeCommand(program, PACKAGE_VERSION);
  program.commands.forEach(function exitOverride(command: Command) {
    command.exitOverride();
    command.commands.forEach(exitOverride);
  });

  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
        ? 0
        : 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    // Messages quote ids, labels and stored text: printError escapes them like any output.
    printError(`workspace-memory: ${message.split('\n')[0]}${isMemoryError(error) ? ` [${error.code}]` : ''}`);
    // A run that Ctrl-C cancelled fails with CANCELLED: still an interruption, not a failure.
    return process.exitCode === INTERRUPTED_EXIT_CODE ? INTERRUPTED_EXIT_CODE : 1;
  }
}

// main reports every error it expects; one escaping it is a bug, left to Node's unhandled-rejection crash (stack and exit 1).
void main(process.argv).then((code) => {
  process.exitCode = code;
});
