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
};

/** Short names users type after `#` in chat; the rest are camelCase of the operation name. */
const REFERENCE_NAMES: Record<string, string> = {
  memory_recall: 'memory',
  docs_search: 'docs',
};

function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());
}

export function toolContribution(operation: Operation): Record<string, unknown> {
  return {
    name: operation.name,
    displayName: operation.title,
    toolReferenceName: REFERENCE_NAMES[operation.name] ?? camelCase(operation.name),
    canBeReferencedInPrompt: true,
    icon: ICONS[operation.name.split('_')[0]!] ?? '$(database)',
    userDescription: operation.title,
    modelDescription: operation.description,
    tags: ['workspace-memory', operation.effect === 'read' ? 'read' : 'write'],
    inputSchema: jsonSchemaOf(operation),
  };
}

export function toolContributions(): Record<string, unknown>[] {
  return operationsFor('tool').map(toolContribution);
}
