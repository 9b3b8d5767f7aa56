/**
 * The catalogue of operations behind the language model tools, the MCP
 * server and the CLI's `call` command.
 */
export { findOperation, jsonSchemaOf, OPERATIONS, operationsFor, parseArguments, runOperation } from './catalogue';
export type {
  Operation,
  OperationContext,
  OperationEffect,
  OperationResult,
  OperationScope,
  OperationStore,
  OperationSurface,
} from './types';
