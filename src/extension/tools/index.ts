import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import { operationsFor } from '../../core/operations/catalogue';
import { inScope } from '../../core/operations/scope';
import type { Operation } from '../../core/operations/types';
import { oneLine } from '../../core/text';
import type { Entity, SkillInput } from '../../core/types';
import { lazyModel } from '../ai/reasoning';
import type { Services } from '../services';
import { Confirmations } from './confirmations';

type ToolInput = Record<string, unknown>;

/**
 * The entity a destructive call would change, so the confirmation names it:
 * the one given by id, or the near-duplicate a memory_save or skill_save
 * would give its content to. Undefined when a save would only add (it needs
 * no confirmation then); null when the target cannot be shown.
 */
async function target(services: Services, operation: Operation, input: ToolInput): Promise<Entity | null | undefined> {
  try {
    const memory = await services.memory();
    const scope = services.scope();
    // A save asks only when it would replace a near-duplicate's text. (Two saves
    // prepared together are each checked before either runs.) Without text
    // content the call fails anyway, on its own clear error.
    if (operation.name === 'memory_save') {
      if (typeof input.content !== 'string') return undefined;
      return (await memory.memories.nearDuplicate(scope.agentId, scope.userId, input.content)) ?? undefined;
    }
    if (operation.name === 'skill_save') {
      if (typeof input.content !== 'string') return undefined;
      const category = typeof input.category === 'string' ? input.category : undefined;
      const skill = { content: input.content, ...(category ? { category } : {}) } as SkillInput;
      return (await memory.skills.nearDuplicate(scope.agentId, skill)) ?? undefined;
    }
    if (typeof input.id !== 'string') return null;
    const entity: Entity | null = await memory.get(input.id);
    // Only entities in the host's scope are previewed; the call itself refuses any other.
    return entity && inScope(entity, scope) ? entity : null;
  } catch {
    return null;
  }
}

function confirmation(
  operation: Operation,
  input: ToolInput,
  entity: Entity | null,
): vscode.LanguageModelToolConfirmationMessages {
  const message = new vscode.MarkdownString();
  switch (operation.name) {
    case 'memory_save':
    case 'skill_save':
      message.appendMarkdown(
        entity
          ? vscode.l10n.t(
              '{0} `{1}` says nearly the same: give it this content as a new version? Its history keeps the old one.',
              entity.type === 'skill' ? vscode.l10n.t('Skill') : vscode.l10n.t('Memory'),
              entity.id,
            )
          : vscode.l10n.t('Save this? If something saved says nearly the same, it gets this content as a new version.'),
      );
      break;
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
  if (entity) message.appendMarkdown(`\n\n> ${oneLine(entity.content, 300)}`);
  const changes = [
    ...(Array.isArray(input.tags) ? [vscode.l10n.t('tags: {0}', input.tags.map(String).join(', '))] : []),
    ...(typeof input.category === 'string' ? [vscode.l10n.t('category: {0}', input.category)] : []),
  ];
  if (changes.length) message.appendMarkdown(`\n\n${changes.join(' · ')}`);
  if (typeof input.content === 'string') {
    message.appendMarkdown(`\n\n${vscode.l10n.t('New content:')}\n\n> ${oneLine(input.content, 300)}`);
  }
  return { title: operation.title, message };
}

function tool(
  operation: Operation,
  services: Services,
  confirmations: Confirmations,
): vscode.LanguageModelTool<ToolInput> {
  return {
    async prepareInvocation(options) {
      const input = options.input ?? {};
      const invocationMessage =
        typeof input.query === 'string'
          ? vscode.l10n.t('{0}: "{1}"', operation.title, oneLine(input.query, 60))
          : operation.title;
      if (operation.effect !== 'destructive') return { invocationMessage };
      const entity = await target(services, operation, input);
      // A memory_save that only adds changes nothing that exists: no need to ask.
      if (entity === undefined) return { invocationMessage };
      confirmations.asked(operation.name, input);
      return { invocationMessage, confirmationMessages: confirmation(operation, input, entity) };
    },
    async invoke(options, token) {
      const input = options.input ?? {};
      try {
        // Written as Copilot through this tool. VS Code's API gives a tool neither the chat's model
        // nor its conversation (only proposed APIs do), so those stay unrecorded.
        const confirmed = confirmations.take(operation.name, input);
        // The model an agent's search or recall may ask to reason with (chosen only if it does).
        const cancelled = new AbortController();
        token.onCancellationRequested(() => cancelled.abort());
        const memory = await services.memoryAs(
          { kind: 'copilot', tool: operation.name, ...(confirmed ? { confirmed } : {}) },
          lazyModel(undefined, cancelled.signal),
        );
        const result = await memory.worker.operation(operation.name, services.scope(), input);
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
  const confirmations = new Confirmations();
  for (const operation of operationsFor('tool')) {
    context.subscriptions.push(vscode.lm.registerTool(operation.name, tool(operation, services, confirmations)));
  }
}
