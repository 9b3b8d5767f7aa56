import { parseArgs } from 'node:util';

import { isMemoryError } from '../../core/errors';
import { defaultDir, scopeFromEnvironment } from '../cli/context';
import { logToStderr, REVIEW_HELP, SCOPED_ONLY_HELP, serveStdio } from './stdio';

declare const PACKAGE_VERSION: string;

const USAGE = `Usage: node dist/mcp.js [--dir <store>] [--agent <id>] [--user <id>] [--scoped-only] [--review <mode>]

Serves a Workspace Memory store over MCP on standard input and output.
  --dir    the store folder (default: $WORKSPACE_MEMORY_DIR or ./.workspace-memory)
  --agent  the agent whose memory the tools use (default: $WORKSPACE_MEMORY_AGENT or "default")
  --user   the user, for user memories and the profile (default: $WORKSPACE_MEMORY_USER)
  --scoped-only  ${SCOPED_ONLY_HELP}
  --review ${REVIEW_HELP}`;

/** `dist/mcp.js`: the MCP server as its own small entry point, for clients that start it with `node`. */
async function main(argv: string[]): Promise<number> {
  let values: {
    dir?: string;
    agent?: string;
    user?: string;
    'scoped-only'?: boolean;
    review?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        agent: { type: 'string' },
        user: { type: 'string' },
        'scoped-only': { type: 'boolean' },
        review: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  const environment = scopeFromEnvironment();
  await serveStdio({
    dir: values.dir ?? defaultDir(),
    scope: { agentId: values.agent ?? environment.agentId, userId: values.user ?? environment.userId },
    version: PACKAGE_VERSION,
    scopedOnly: values['scoped-only'] ?? false,
    // An empty variable counts as unset, as the others do.
    review: values.review ?? (process.env.WORKSPACE_MEMORY_REVIEW || undefined),
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    logToStderr(`${message}${isMemoryError(error) ? ` [${error.code}]` : ''}`);
    process.exitCode = 1;
  },
);
