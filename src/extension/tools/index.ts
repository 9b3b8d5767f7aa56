import * as vscode from 'vscode';
import { isMemoryError } from '../../core/errors';
import { oneLine } from '../../core/text';
import { operationsFor } from '../../core/operations/catalogue';
import { inScope } from '../../core/operations/scope';
import type { Operation } from '../../core/operations/types';
import type { Entity } from '../../core/types';
import type { Services } from '../services';

type ToolInput = Record<string, unknown>;

/** What a destructive call is about to change, so the confirmation names it. */
async function describeTarget(services: Services, input: ToolInput): Promise<string> {
  if (typeof input.id !== 'string') return '';
  try {
    const entity: Entity | null = await (await services.memory()).get(input.id);
    // Only entities in the host's scope are previewed; the call itself refuses any other.
    return entity && inScope(entity, services.scope()) ? `\n\n> ${oneLine(entity.content, 300)}` : '';
  } catch {
    return '';
  }
}

function confirmation(
  operation: Operation,
  input: ToolInput,
  target: string,
): vscode.LanguageModelToolConfirmationMessages {
  const message = new vscode.MarkdownString();
  switch (operation.name) {
    case 'memory_forget':
      message.appendMarkdown(vscode.l10n.t('Delete memory `{0}`? Its history is kept.', String(input.id)));
      break;
    case 'memory_update':
      message.appendMarkdown(vscode.l10n.t('Replace memory `{0}` with a new version?', String(input.id)));
      break;
    case 'profile_update':
      message.appendMarkdown(vscode.l10n.t('Update your profile in this workspace?'));
      break;
    default:
      message.appendMarkdown(vscode.l10n.t('Run {0}?', operation.title));
  }
  message.appendMarkdown(target);
  if (typeof input.content === 'string') {
    message.appendMarkdown(`\n\n${vscode.l10n.t('New content:')}\n\n> ${oneLine(input.content, 300)}`);
  }
  return { title: operation.title, message };
}

function tool(operation: Operation, services: Services): vscode.LanguageModelTool<ToolInput> {
  return {
    async prepareInvocation(options) {
      const input = options.input ?? {};
      const invocationMessage =
        typeof input.query === 'string'
          ? vscode.l10n.t('{0}: "{1}"', operation.title, oneLine(input.query, 60))
          : operation.title;
      if (operation.effect !== 'destructive') return { invocationMessage };
      return {
        invocationMessage,
        confirmationMessages: confirmation(operation, input, await describeTarget(services, input)),
      };
    },
    async invoke(options) {
      try {
        const memory = await services.memory();
        const result = await memory.worker.operation(operation.name, services.scope(), options.input ?? {});
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
      } catch (error) {
        services.log.warn(`Tool ${operation.name} failed: ${(error as Error).message}`);
        // The model gets the reason (a bad argument, an unknown id) and can correct itself.
        if (isMemoryError(error)) throw new Error(`${error.message} [${error.code}]`, { cause: error });
        throw error;
      }
    },
  };
}

/**
 * The language model tools Copilot's agent mode calls: one per catalogue
 * operation offered to tools, declared in package.json from the same
 * catalogue. The scope is the workspace's, never the model's choice.
 */
export function registerTools(context: vscode.ExtensionContext, services: Services): void {
  for (const operation of operationsFor('tool')) {
    context.subscriptions.push(vscode.lm.registerTool(operation.name, tool(operation, services)));
  }
}
