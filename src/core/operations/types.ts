import type { z } from 'zod';

import type { AiProvider } from '../ai/provider';
import type { Memory } from '../memory';

/**
 * What an operation does to the store. The VS Code tools ask the user to
 * confirm a `destructive` one (it deletes, or replaces current content); MCP
 * clients get it as readOnlyHint/destructiveHint.
 */
export type OperationEffect = 'read' | 'write' | 'destructive';

/** Where an operation is offered: language model tools, the MCP server, the CLI's `call`. */
export type OperationSurface = 'tool' | 'mcp' | 'cli';

/** The part of the Memory facade the operations use, so hosts and tests can pass something narrower. */
export type OperationStore = Pick<
  Memory,
  | 'memories'
  | 'skills'
  | 'profiles'
  | 'sessions'
  | 'recall'
  | 'rag'
  | 'stats'
  | 'verify'
  | 'export'
  | 'review'
  | 'citingFiles'
  | 'staleNotes'
>;

/**
 * Whose memory an operation works on. The host decides it (workspace,
 * settings, CLI flags); it is never taken from a model's arguments.
 */
export interface OperationScope {
  agentId: string;
  userId?: string;
}

export interface OperationContext {
  store: OperationStore;
  scope: OperationScope;
  /**
   * The host's language model, for operations that can use one when asked
   * (reasoning, reranking): VS Code's chat model, or the CLI's and MCP
   * server's OpenAI-compatible endpoint. Without one, they answer plainly and say so.
   */
  ai?: AiProvider;
  /** Cancels an operation's model calls. */
  signal?: AbortSignal;
}

export interface OperationResult {
  /** Short text a model can act on, naming the entity ids involved. */
  text: string;
  /** The structured result; always a JSON object so MCP can send it as structuredContent. */
  data: Record<string, unknown>;
}

/** The schema every operation's arguments are described and validated with. */
export type InputSchema = z.ZodObject;

export interface Operation<S extends InputSchema = InputSchema> {
  /** snake_case, unique; the tool name on every surface. */
  name: string;
  title: string;
  /** Written for a language model: what it does, when to use it, what it returns. */
  description: string;
  input: S;
  effect: OperationEffect;
  surfaces: readonly OperationSurface[];
  /** Gets arguments already parsed by `input`. */
  run(context: OperationContext, args: z.output<S>): Promise<OperationResult>;
}

/** Keeps each operation's argument type tied to its schema. */
export function defineOperation<S extends InputSchema>(operation: Operation<S>): Operation<S> {
  return operation;
}

export const EVERY_SURFACE: readonly OperationSurface[] = ['tool', 'mcp', 'cli'];
/** Store-wide or bulky operations: for MCP clients and the CLI, not for the chat tools. */
export const ADMIN_SURFACES: readonly OperationSurface[] = ['mcp', 'cli'];
