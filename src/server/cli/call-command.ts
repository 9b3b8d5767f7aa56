import type { Command } from 'commander';

import { MemoryError } from '../../core/errors';
import { jsonSchemaOf, operationsFor, runOperation } from '../../core/operations';
import {
  chatIfConfigured,
  parseJsonObject,
  readStdin,
  type ScopeOptions,
  withMemory,
  withScopeOptions,
  withStoreOptions,
} from './context';
import { print, printJson } from './output';

interface CallOptions extends ScopeOptions {
  list: boolean;
}

/** A line per argument: name, type, whether required, and what it means. */
function argumentLines(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string; description?: string }>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(
    ([name, field]) =>
      `    ${name}${required.has(name) ? '' : '?'}: ${field.type ?? 'any'}${field.description ? `  ${field.description}` : ''}`,
  );
}

function listOperations(json: boolean): void {
  const operations = operationsFor('cli');
  if (json) {
    printJson(
      operations.map((operation) => ({
        name: operation.name,
        title: operation.title,
        effect: operation.effect,
        surfaces: operation.surfaces,
        description: operation.description,
        inputSchema: jsonSchemaOf(operation),
      })),
    );
    return;
  }
  for (const operation of operations) {
    print(`${operation.name}  (${operation.effect})  ${operation.title}`);
    argumentLines(jsonSchemaOf(operation)).forEach((line) => print(line));
  }
}

/**
 * `workspace-memory call <operation> [json]`: runs any catalogue operation the
 * CLI surface offers, exactly as a model would through MCP or a tool.
 */
export function registerCallCommand(program: Command): void {
  withScopeOptions(withStoreOptions(program.command('call [operation] [arguments]')))
    .description(
      'run an operation of the catalogue the MCP server and the chat tools use; arguments are a JSON object ("-" reads them from standard input); --list shows the operations',
    )
    .option('--list', 'list the operations and their arguments', false)
    .action(async (name: string | undefined, text: string | undefined, options: CallOptions) => {
      if (options.list) return listOperations(options.json);
      if (!name) throw new MemoryError('INVALID_INPUT', 'Name an operation, or use --list to see them.');
      const args = text === undefined ? {} : parseJsonObject('The arguments', text === '-' ? await readStdin() : text);
      const result = await withMemory(options, (memory) =>
        runOperation(
          { store: memory, scope: { agentId: options.agent, userId: options.user }, ai: chatIfConfigured() },
          name,
          args,
          'cli',
        ),
      );
      if (options.json) printJson(result.data);
      else print(result.text);
    });
}
