import * as vscode from 'vscode';
import { ENTITY_TYPES, type Entity, type EntityType } from '../../core/types';

/** Entities open as documents under this scheme (see memory-fs.ts). */
export const SCHEME = 'workspace-memory';

/** Commit hashes in version URIs are shortened to this many hex digits, like Git's. */
const SHORT_HASH = 12;

export interface EntityLocation {
  type: EntityType;
  id: string;
  /** A commit hash prefix: the document is that old version, read-only. */
  commit?: string;
}

// An id may hold `@` (imported ids are any name), which in a path marks the
// commit: it is written as %40, and `%` itself as %25, so every id comes back whole.
const escapeId = (id: string): string => id.replace(/%/g, '%25').replace(/@/g, '%40');
const unescapeId = (text: string): string => text.replace(/%40/g, '@').replace(/%25/g, '%');

/** The live, editable document of an entity: `workspace-memory:/memory/<id>.md`. */
export function entityUri(entity: Pick<Entity, 'type' | 'id'>): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/${entity.type}/${escapeId(entity.id)}.md` });
}

/** One version of an entity, read-only: `workspace-memory:/memory/<id>@<hash>.md`. */
export function versionUri(entity: Pick<Entity, 'type' | 'id'>, commitHash: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: SCHEME,
    path: `/${entity.type}/${escapeId(entity.id)}@${commitHash.slice(0, SHORT_HASH)}.md`,
  });
}

export function parseEntityUri(uri: vscode.Uri): EntityLocation | undefined {
  if (uri.scheme !== SCHEME) return undefined;
  const match = /^\/([a-z]+)\/([^/@]+?)(?:@([0-9a-f]{4,64}))?\.md$/.exec(uri.path);
  if (!match || !(ENTITY_TYPES as readonly string[]).includes(match[1]!)) return undefined;
  return { type: match[1] as EntityType, id: unescapeId(match[2]!), commit: match[3] };
}
