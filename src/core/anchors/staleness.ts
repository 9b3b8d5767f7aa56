import * as fs from 'node:fs';

import type { Collection } from '../collections/collection';
import { isMemoryError } from '../errors';
import { asWriter } from '../provenance';
import type { Database } from '../store/database';
import { ENTITY_SELECT, rowToEntity } from '../store/entity-queries';
import { canonicalJson } from '../store/hashing';
import {
  type Citation,
  type Entity,
  type MemoryEntity,
  SHARED_AGENT_ID,
  type SkillEntity,
  TEAM_AGENT_ID,
} from '../types';
import { assertId } from '../validation';
import { appliesTo } from './applies-to';
import {
  checkCitation,
  checkCitationFollowingRenames,
  type CitationCheck,
  type CitationState,
  citedFile,
  CitedFiles,
  folderCommit,
} from './citations';
import { GitRenames } from './git';
import { normalCitedPath, type WorkspaceFolder, workspaceRelative } from './workspace-paths';

/** A memory or skill that cites code. */
export type CitingEntity = MemoryEntity | SkillEntity;

/** One citation of an entity, as the check found it. */
export interface CitationStatus {
  citation: Citation;
  state: CitationState;
  /**
   * For `moved`: where its lines are now (the citation is re-anchored there unless asked not to), with
   * the `path` git says its file was renamed to when it was.
   */
  movedTo?: { path?: string; startLine: number; endLine: number };
  /** For `changed`: when the cited file was last modified, the date a reader is told the code changed. */
  changedAt?: string;
  /** For `changed`: the path git says the cited file was renamed to (the lines are not found there). */
  renamedTo?: string;
}

export interface CitedEntityReport {
  entity: CitingEntity;
  citations: CitationStatus[];
  /** The entity's `appliesTo` globs that match the files asked about (none when it only cites them). */
  matchedGlobs?: string[];
  /** The full check wrote its moved citations at their new places (not when another writer changed it meanwhile). */
  reanchored?: boolean;
  /** A citation changed or is missing: what the entity says may no longer be true. */
  stale: boolean;
}

export interface CitationReport {
  entities: CitedEntityReport[];
  counts: Record<CitationState, number>;
  /** Entities whose moved citations were written at their new lines (one commit each). */
  reanchored: number;
}

export interface CitationCheckOptions {
  /** Only this agent's memories and skills (and the shared ones); all when left out. */
  agentId?: string;
  /** Write moved citations at their new lines (default true); false only reports. */
  reanchor?: boolean;
}

/** Why an entity may be outdated: its citations whose code changed or is gone. */
export interface StaleNote {
  citations: { path: string; startLine: number; endLine: number; state: 'changed' | 'missing'; changedAt?: string }[];
}

/**
 * One citation as recall's check finds it (no process run: a renamed file is
 * missing here until a full check follows the rename), with where it moved
 * or when its file changed.
 */
function statusOf(folders: readonly WorkspaceFolder[], citation: Citation, files: CitedFiles): CitationStatus {
  return statusFrom(folders, citation, checkCitation(folders, citation, files));
}

/** A check's finding as a status: where the lines moved (and the file, if renamed), or when the file changed. */
function statusFrom(
  folders: readonly WorkspaceFolder[],
  citation: Citation,
  { state, moved, renamedTo }: CitationCheck,
): CitationStatus {
  if (moved) {
    const { startLine, endLine } = moved;
    const renamed = moved.path === citation.path ? {} : { path: moved.path };
    return { citation, state, movedTo: { ...renamed, startLine, endLine } };
  }
  if (state === 'changed') {
    const changedAt = modifiedAt(folders, renamedTo ?? citation.path);
    return { citation, state, ...(changedAt ? { changedAt } : {}), ...(renamedTo ? { renamedTo } : {}) };
  }
  return { citation, state };
}

/** What makes an entity stale among its citations' statuses, if anything does. */
export function noteOf(statuses: readonly CitationStatus[]): StaleNote | undefined {
  const stale = statuses.flatMap(({ citation: { path, startLine, endLine }, state, changedAt }) =>
    state === 'changed' || state === 'missing'
      ? [{ path, startLine, endLine, state, ...(changedAt ? { changedAt } : {}) }]
      : [],
  );
  return stale.length ? { citations: stale } : undefined;
}

/**
 * The stale ones among `entities` (those citing code that changed or is
 * gone), with why. Writes nothing: a moved citation counts as current here,
 * and only `checkCitations` re-anchors it. Cheap when no cited file changed
 * since the last call with the same `files`, and never runs a process: a
 * file renamed since it was cited is missing here until `checkCitations`
 * follows the rename (the extension runs it when a cited file goes).
 */
export function staleNotes(
  folders: readonly WorkspaceFolder[],
  entities: readonly Entity[],
  files: CitedFiles,
): Map<string, StaleNote> {
  const notes = new Map<string, StaleNote>();
  for (const entity of entities) {
    if ((entity.type !== 'memory' && entity.type !== 'skill') || !entity.citations?.length) continue;
    const note = noteOf(entity.citations.map((citation) => statusOf(folders, citation, files)));
    if (note) notes.set(entity.id, note);
  }
  return notes;
}

/**
 * The memories and skills an agent (and a user) can see that cite any of
 * `paths` or whose `appliesTo` globs match one (every one that cites code
 * or names files when left out), oldest first, each with the citations of
 * those files and their state now: what an agent about to edit the files
 * should know. Writes nothing.
 */
export function citingFiles(
  db: Database,
  folders: readonly WorkspaceFolder[],
  files: CitedFiles,
  scope: { agentId: string; userId?: string },
  paths?: readonly string[],
): CitedEntityReport[] {
  const wanted = paths && [...new Set(paths.map((given) => workspaceRelative(folders, given)))];
  return citingEntities(db, scope.agentId).flatMap((entity) => {
    if (entity.userId !== undefined && entity.userId !== scope.userId) return [];
    const cited = (entity.citations ?? []).filter(
      (citation) => !wanted || wanted.includes(normalCitedPath(citation.path)),
    );
    const globs = entity.appliesTo ?? [];
    const matchedGlobs = wanted
      ? globs.filter((glob) => wanted.some((file) => appliesTo([glob], file, folders)))
      : globs;
    if (!cited.length && !matchedGlobs.length) return [];
    const citations = cited.map((citation) => statusOf(folders, citation, files));
    return [
      { entity, citations, ...(matchedGlobs.length ? { matchedGlobs } : {}), stale: noteOf(citations) !== undefined },
    ];
  });
}

/**
 * Writes an entity's moved citations at their new lines, unless it changed
 * since the check read it (another writer's citations are theirs to keep,
 * and the next check looks at them) or is gone. True when it wrote.
 */
async function reanchor(
  folders: readonly WorkspaceFolder[],
  collections: { memory: Collection<'memory'>; skill: Collection<'skill'> },
  entity: CitingEntity,
  citations: readonly CitationStatus[],
): Promise<boolean> {
  const collection = entity.type === 'memory' ? collections.memory : collections.skill;
  const now = await collection.get(entity.id);
  if (!now || now.updatedAt !== entity.updatedAt || canonicalJson(now.citations) !== canonicalJson(entity.citations)) {
    return false;
  }
  const moved = citations.map(({ citation, movedTo, renamedTo }) =>
    movedTo
      ? reanchored(folders, citation, movedTo)
      : // Changed in a file git renamed: it follows the file (still stale: its lines are as they were
        // cited), so what asks about the new file finds it.
        renamedTo
        ? { ...citation, path: renamedTo }
        : citation,
  );
  try {
    await asWriter('anchoring', () =>
      collection.update(entity.id, { citations: moved }, { message: 're-anchor citations to the lines they moved to' }),
    );
    return true;
  } catch (error) {
    // Deleted (or held for review) between the look and the write: nothing to re-anchor.
    if (isMemoryError(error, 'NOT_FOUND')) return false;
    throw error;
  }
}

/**
 * A moved citation cited anew where its lines are: its new lines (and
 * path), and the commit its folder is at now (or none, out of a
 * repository). The commit is what the next check asks git about renames
 * since, and the new path is not in the old commit.
 */
function reanchored(
  folders: readonly WorkspaceFolder[],
  citation: Citation,
  movedTo: NonNullable<CitationStatus['movedTo']>,
): Citation {
  const { commit: _cited, ...moved } = { ...citation, ...movedTo };
  const commit = folderCommit(folders, moved.path);
  return commit ? { ...moved, commit } : moved;
}

/** Live memories and skills whose current version cites code or names files by appliesTo, through the small refs_cites index. */
function citingEntities(db: Database, agentId: string | undefined): CitingEntity[] {
  // An agent sees its own, the shared skills and the team's memory.
  const agent = agentId === undefined ? '' : ` AND r.agent_id IN (?, '${SHARED_AGENT_ID}', '${TEAM_AGENT_ID}')`;
  return db
    .all(
      // INDEXED BY: without statistics SQLite would rather walk every memory of the agent by refs_scope.
      `${ENTITY_SELECT.replace('FROM refs r', 'FROM refs r INDEXED BY refs_cites')}
         WHERE r.cites = 1 AND r.type IN ('memory', 'skill') AND r.deleted = 0${agent}
         ORDER BY r.created_at, r.id`,
      ...(agentId === undefined ? [] : [agentId]),
    )
    .map(rowToEntity)
    .filter(
      (entity): entity is CitingEntity =>
        (entity.type === 'memory' || entity.type === 'skill') &&
        (!!entity.citations?.length || !!entity.appliesTo?.length),
    );
}

/** When the cited file last changed, or undefined when it cannot be told. */
function modifiedAt(folders: readonly WorkspaceFolder[], cited: string): string | undefined {
  try {
    return fs.statSync(citedFile(folders, cited)).mtime.toISOString();
  } catch {
    return undefined;
  }
}

/**
 * Checks every citation of the store's memories and skills against the
 * workspace: valid, moved (re-anchored to its new lines, in the file git
 * says its file was renamed to if it was: a commit by the `anchoring`
 * writer with the content unchanged), changed or missing (the entity is
 * stale).
 */
export async function checkCitations(
  db: Database,
  folders: readonly WorkspaceFolder[],
  collections: { memory: Collection<'memory'>; skill: Collection<'skill'> },
  options: CitationCheckOptions = {},
): Promise<CitationReport> {
  if (options.agentId !== undefined) assertId(options.agentId, 'agent id');
  const counts: Record<CitationState, number> = { valid: 0, moved: 0, changed: 0, missing: 0 };
  const entities: CitedEntityReport[] = [];
  let reanchored = 0;
  // One look at each file, and one question to git per folder and commit, for the whole run: many
  // citations share a file, and the missing ones a commit.
  const files = new CitedFiles();
  const renames = new GitRenames();
  for (const entity of citingEntities(db, options.agentId)) {
    if (!entity.citations?.length) continue;
    const citations: CitationStatus[] = [];
    for (const citation of entity.citations) {
      citations.push(
        statusFrom(folders, citation, await checkCitationFollowingRenames(folders, citation, files, renames)),
      );
    }
    for (const { state } of citations) counts[state]++;
    const report: CitedEntityReport = { entity, citations, stale: noteOf(citations) !== undefined };
    entities.push(report);
    if (options.reanchor !== false && citations.some(({ movedTo, renamedTo }) => movedTo || renamedTo)) {
      if (await reanchor(folders, collections, entity, citations)) {
        report.reanchored = true;
        reanchored++;
      }
    }
  }
  return { entities, counts, reanchored };
}
