import * as vscode from 'vscode';

import { cutAtWord } from '../../core/text';
import { type Entity, ENTITY_TYPES, type EntityType } from '../../core/types';

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

/** Most characters of a document's readable name. */
const NAME_LENGTH = 48;

/**
 * What a tab calls an entity: its first words, or a chunk's file and
 * heading, rather than its id (which stays in the path, the tooltip and the
 * front matter). Characters a file name cannot hold become spaces.
 */
export function readableName(entity: Entity): string {
  const heading = entity.type === 'knowledge' ? entity.headingPath?.at(-1) : undefined;
  const text =
    entity.type === 'knowledge' && entity.source
      ? [entity.source.split('/').at(-1), heading].filter(Boolean).join(' › ')
      : (entity.content.split('\n').find((line) => line.trim()) ?? '').replace(/^#+\s*/, '');
  const name = text
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|%@]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return name ? cutAtWord(name, NAME_LENGTH).head : entity.id;
}

/**
 * The folder of an entity's documents (`/memory/<id>`), and its document's
 * file name: readable when the entity is known, the id otherwise. Only the
 * folder identifies the entity; the name is for people.
 */
function entityPath(entity: Pick<Entity, 'type' | 'id'>, commitHash?: string, version?: number): string {
  const folder = `/${entity.type}/${escapeId(entity.id)}${commitHash ? `@${commitHash.slice(0, SHORT_HASH)}` : ''}`;
  if (!('content' in entity)) return `${folder}.md`;
  const name = readableName(entity as Entity);
  return `${folder}/${escapeId(version === undefined ? name : vscode.l10n.t('{0} (version {1})', name, version))}.md`;
}

/** The live, editable document of an entity: `workspace-memory:/memory/<id>/<first words>.md`. */
export function entityUri(entity: Pick<Entity, 'type' | 'id'>): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: entityPath(entity) });
}

/**
 * One version of an entity, read-only: `workspace-memory:/memory/<id>@<hash>/<first words>.md`,
 * or `…/<first words> (version 2).md` when its number is known, so its tab tells it from the current one.
 */
export function versionUri(entity: Pick<Entity, 'type' | 'id'>, commitHash: string, version?: number): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: entityPath(entity, commitHash, version) });
}

/** The query of a document shown as one side of a comparison (see renderEntity). */
const COMPARED = 'compared';

/** The same document as one side of a comparison: its header leaves out what differs between any two versions. */
export function comparedUri(uri: vscode.Uri): vscode.Uri {
  return uri.with({ query: COMPARED });
}

export function isCompared(uri: vscode.Uri): boolean {
  return uri.query === COMPARED;
}

/** Reads both forms: `/memory/<id>.md` (an id alone, as older links have it) and `/memory/<id>/<name>.md`. */
export function parseEntityUri(uri: vscode.Uri): EntityLocation | undefined {
  if (uri.scheme !== SCHEME) return undefined;
  const match = /^\/([a-z]+)\/([^/@]+?)(?:@([0-9a-f]{4,64}))?(?:\.md|\/[^/]+\.md)$/.exec(uri.path);
  if (!match || !(ENTITY_TYPES as readonly string[]).includes(match[1]!)) return undefined;
  return { type: match[1] as EntityType, id: unescapeId(match[2]!), commit: match[3] };
}

/** Whether two documents show the same entity version (whatever their readable names). */
export function sameEntityDocument(a: vscode.Uri, b: vscode.Uri): boolean {
  const left = parseEntityUri(a);
  const right = parseEntityUri(b);
  return !!left && !!right && left.type === right.type && left.id === right.id && left.commit === right.commit;
}
