import type { Command } from 'commander';

import { REVIEW_HELP, SCOPED_ONLY_HELP, serveStdio } from '../mcp/stdio';
import { type ScopeOptions, withScopeOptions, withStoreOptions } from './context';

/** `workspace-memory mcp`: the same MCP server as dist/mcp.js, started from the CLI. */
export function registerMcpCommand(program: Command, version: string): void {
  withScopeOptions(withStoreOptions(program.command('mcp')))
    .description(
      'serve the store to an MCP client (Claude Code, Cursor, ...) over standard input and output; creates the store if missing',
    )
    .option('--scoped-only', SCOPED_ONLY_HELP, false)
    .option('--review <mode>', REVIEW_HELP, process.env.WORKSPACE_MEMORY_REVIEW || undefined)
    .action(async (options: ScopeOptions & { scopedOnly: boolean; review?: string }) => {
      await serveStdio({
        dir: options.dir,
        scope: { agentId: options.agent, userId: options.user },
        version,
        scopedOnly: options.scopedOnly,
        review: options.review,
      });
    });
}
