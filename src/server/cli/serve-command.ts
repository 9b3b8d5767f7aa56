import { type Command, InvalidArgumentError } from 'commander';

import { DEFAULT_HOST } from '../http/bind';
import type { ListeningInfo } from '../http/serve';
import { REVIEW_HELP } from '../mcp/stdio';
import { type ScopeOptions, withScopeOptions, withStoreOptions } from './context';
import { print, printError, printJson } from './output';

/** The port when --port is not given. */
export const DEFAULT_PORT = 7411;

function parsePort(value: string): number {
  const port = Number(value);
  // Commander reports an InvalidArgumentError as bad usage (exit status 2).
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('--port must be a whole number from 0 to 65535.');
  }
  return port;
}

interface ServeOptions extends ScopeOptions {
  host?: string;
  port: number;
  allowRemote: boolean;
  printToken: boolean;
  review?: string;
}

function announce(info: ListeningInfo, options: ServeOptions): void {
  if (options.json) {
    printJson({
      url: info.url,
      mcp: `${info.url}/mcp`,
      openapi: `${info.url}/openapi.json`,
      store: info.store,
      tokenFile: info.tokenFile,
      ...(options.printToken ? { token: info.token } : {}),
    });
    return;
  }
  print(`Serving ${info.store} at ${info.url}`);
  print(`  REST: ${info.url}/v1/<operation>   MCP: ${info.url}/mcp   OpenAPI: ${info.url}/openapi.json`);
  print(
    `  Token: ${options.printToken ? info.token : `in ${info.tokenFile}`}${info.tokenCreated ? ' (new)' : ''}; send it as "Authorization: Bearer <token>".`,
  );
  print('Ctrl-C stops it.');
}

/** `workspace-memory serve`: the store over HTTP, as a REST API and as MCP (Streamable HTTP). */
export function registerServeCommand(program: Command, version: string): void {
  withScopeOptions(withStoreOptions(program.command('serve')))
    .description(
      'serve the store over HTTP: a REST API (/v1/<operation>, see /openapi.json) and MCP at /mcp, with a bearer token; creates the store if missing',
    )
    .option('--host <address>', `the address to listen on (default: ${DEFAULT_HOST}, this machine only)`)
    .option('--port <number>', 'the port (0 picks a free one)', parsePort, DEFAULT_PORT)
    .option('--allow-remote', 'allow a --host that other machines can reach', false)
    .option('--print-token', 'print the token itself, not only where it is', false)
    .option('--review <mode>', REVIEW_HELP, process.env.WORKSPACE_MEMORY_REVIEW || undefined)
    .action(async (options: ServeOptions) => {
      // Loaded on use: evaluating Hono's Node adapter loads node:http and node:http2 (some 50 built-in
      // modules, about 50 ms), which every other command would otherwise pay for at start.
      const { serveHttp } = await import('../http/serve');
      await serveHttp({
        dir: options.dir,
        scope: { agentId: options.agent, userId: options.user },
        version,
        host: options.host,
        port: options.port,
        allowRemote: options.allowRemote,
        review: options.review,
        onListening: (info) => announce(info, options),
        log: (line) => printError(`workspace-memory serve: ${line}`),
      });
    });
}
