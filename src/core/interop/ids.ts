import { sha256 } from '../store/hashing';
import type { ImportedType, InteropScope } from './types';

/**
 * The ids imported items get, derived rather than random so that importing
 * again finds what the last import wrote: `<type>-imp-<source>-<item>`.
 *
 * `<source>` hashes the scope written to and the item's group (its file, or
 * the format for stores whose entries carry ids), so two agents importing one
 * CLAUDE.md each get their own copy, and every id one file gave starts alike
 * (which is how a later import finds what the file no longer holds).
 * `<item>` hashes the item's key within its group (heading path and
 * occurrence, entity name, entry id). The format is left out on purpose: a
 * CLAUDE.md that is a link to AGENTS.md is one file, read by two tools.
 * Hex only, so every id passes assertId.
 */

const SOURCE_DIGITS = 10;
const ITEM_DIGITS = 16;

/** What every id of one group in one scope starts with. */
export function sourcePrefix(type: ImportedType, scope: InteropScope, group: string): string {
  const source = sha256(`${scope.agentId}\u0000${scope.userId ?? ''}\u0000${group}`).slice(0, SOURCE_DIGITS);
  return `${type}-imp-${source}-`;
}

export function importedId(type: ImportedType, scope: InteropScope, group: string, key: string): string {
  return `${sourcePrefix(type, scope, group)}${sha256(key).slice(0, ITEM_DIGITS)}`;
}
