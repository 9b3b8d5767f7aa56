/**
 * The `contributes.languageModelTools` entries, derived from the operation
 * catalogue. package.json must hold exactly these (a unit test checks it;
 * `npm run manifest` rewrites them), so the tools' names, descriptions and
 * schemas cannot drift from the MCP server's and the CLI's.
 * No `vscode` import: it runs under plain Node for that test and script.
 */
import { jsonSchemaOf, operationsFor } from '../../core/operations/catalogue';
import type { Operation } from '../../core/operations/types';

const ICONS: Record<string, string> = {
  memory: '$(lightbulb)',
  skill: '$(tools)',
  docs: '$(book)',
  profile: '$(account)',
  session: '$(comment-discussion)',
};

/** Short names users type after `#` in chat; the rest are camelCase of the operation name. */
const REFERENCE_NAMES: Record<string, string> = {
  memory_recall: 'memory',
  docs_search: 'docs',
};

function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());
}

/** The package.nls.json key of a tool's user-facing name. */
const titleKey = (operation: Operation): string => `tool.${operation.name}.title`;

export function toolContribution(operation: Operation): Record<string, unknown> {
  return {
    name: operation.name,
    // What users read is translated; the description is for the model and stays as written.
    displayName: `%${titleKey(operation)}%`,
    toolReferenceName: REFERENCE_NAMES[operation.name] ?? camelCase(operation.name),
    canBeReferencedInPrompt: true,
    icon: ICONS[operation.name.split('_')[0]!] ?? '$(database)',
    userDescription: `%${titleKey(operation)}%`,
    modelDescription: operation.description,
    tags: ['workspace-memory', operation.effect === 'read' ? 'read' : 'write'],
    inputSchema: jsonSchemaOf(operation),
  };
}

export function toolContributions(): Record<string, unknown>[] {
  return operationsFor('tool').map(toolContribution);
}

/** The package.nls.json entries the tools' contributions refer to. */
export function toolStrings(): Record<string, string> {
  return Object.fromEntries(operationsFor('tool').map((operation) => [titleKey(operation), operation.title]));
}
