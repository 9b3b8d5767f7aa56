import * as path from 'node:path';

import { ENTITY_DEFAULTS } from '../collections/collection';
import { isMemoryError } from '../errors';
import { lazy } from '../lazy';
import { withProvenance } from '../provenance';
import type { EntityStore, VersionBody } from '../store/entity-store';
import { text } from '../store/rows';
import { type CommitInfo, type Entity, TEAM_AGENT_ID } from '../types';
import {
  fileStamp,
  mayHold,
  shortIdOfPath,
  teamFileNames,
  type TeamFolderEntry,
  type TeamFolderProblem,
  type TeamFolderScan,
} from './folder';
import { shortId } from './format';
import type { TeamAuthors } from './git';

/*
 * The team folder brought into the store: each file's entity written as the
 * file says (a new version only where it differs), and the team entities
 * whose file is gone deleted. The files are the truth (they are what git
 * carries); the store is how they are searched and recalled. A file with a
 * problem changes nothing: its entity keeps its last good version.
 */

export interface TeamSyncReport {
  /** Ids of entities the folder brought that the store did not have as team memory. */
  added: string[];
  updated: string[];
  /** Team entities whose file is gone. */
  removed: string[];
  unchanged: number;
  /** Files not imported, and why. */
  problems: TeamFolderProblem[];
}

/** One change the sync made, for the events a Memory sends once the transaction is done. */
export type TeamChange =
  | { kind: 'save'; entity: Entity; commit: CommitInfo }
  | { kind: 'update'; entity: Entity; previous: Entity; commit: CommitInfo }
  | { kind: 'delete'; entityId: string; entityType: Entity['type']; commit: CommitInfo };

/**
 * Writes the folder's state into the store, in one transaction: either all of
 * it lands or none. `authors`: who git says last changed each file, and who
 * removed each file a commit removed; the commits name them. A file git does
 * not know yet is its `updatedBy`'s; without git, a removal is the store's
 * own author's.
 */
export function syncTeamFolder(
  store: EntityStore,
  root: string,
  scan: TeamFolderScan,
  authors: TeamAuthors,
): { report: TeamSyncReport; changes: TeamChange[] } {
  const report: TeamSyncReport = { added: [], updated: [], removed: [], unchanged: 0, problems: [...scan.problems] };
  const changes: TeamChange[] = [];
  // A file gone from the folder is its remover's: the commit that removed it, or this person's uncommitted removal.
  const present = new Set(scan.entries.map(({ path }) => path));
  const removers = new Map(
    [...authors.lastAuthors, ...authors.removedBy]
      .filter(([file]) => !present.has(file))
      .map(([file, author]) => [shortIdOfPath(file), author]),
  );
  store.db.transaction(() => {
    // The folder was read before this transaction began. Another process may have written a team entity
    // (and its file) since: a file whose stamp changed, or that appeared, is that write's, and the store
    // already has it. The next sync reads it again.
    const inFolder = new Set<string>();
    for (const entry of scan.entries) {
      inFolder.add(entry.id);
      if (fileStamp(path.join(root, entry.path)) !== entry.stamp) continue;
      const change = writeEntry(store, entry, authors.lastAuthors.get(entry.path) ?? entry.updatedBy, report);
      if (change) changes.push(change);
    }
    const appeared = lazy(() => new Set(teamFileNames(root).map(shortIdOfPath)));
    for (const id of liveTeamIds(store)) {
      const ref = store.readRef(id)!;
      if (inFolder.has(id) || mayHold(scan.problems, id, ref.type) || appeared().has(shortId(id))) continue;
      const remover = removers.get(shortId(id));
      const commit = withProvenance({ kind: 'team', ...(remover ? { name: remover } : {}) }, () =>
        store.tombstone(ref, 'team folder: its file was removed'),
      );
      report.removed.push(id);
      changes.push({ kind: 'delete', entityId: id, entityType: ref.type, commit });
    }
    const changed = [...report.added, ...report.updated, ...report.removed];
    if (changed.length) {
      store.log.record('teamSync', null, changed, { added: report.added.length, removed: report.removed.length });
    }
  });
  return { report, changes };
}

/** Writes one file's entity as team memory; the change it made, if any. */
function writeEntry(
  store: EntityStore,
  entry: TeamFolderEntry,
  author: string | undefined,
  report: TeamSyncReport,
): TeamChange | undefined {
  const ref = store.readRef(entry.id);
  // Someone's own memory (or one they made personal again) is never taken over by a file that holds
  // its id: a pull or a checkout must not move a person's memory into the team, nor overwrite it.
  if (ref && ref.agentId !== TEAM_AGENT_ID) {
    report.problems.push({
      path: entry.path,
      problem: {
        code: 'ID_MISMATCH',
        message: `The id ${entry.id} belongs to a ${ref.type} of your own in this store, not to team memory.`,
        fix: 'To keep it yours, remove the file from the team folder (`git rm`); to share yours, Share with Team (`team share`) replaces the file; or give the file a new id and name.',
      },
    });
    return undefined;
  }
  if (ref && ref.type !== entry.type) {
    report.problems.push({
      path: entry.path,
      problem: {
        code: 'TYPE_MISMATCH',
        message: `The id ${entry.id} belongs to a ${ref.type} in this store, not a ${entry.type}.`,
        fix: 'Give the file a new id (and the matching file name), or move it to the folder of its type.',
      },
    });
    return undefined;
  }
  const previous = (ref && ref.state === 0 ? store.get(entry.id) : undefined) ?? undefined;
  const body = {
    type: entry.type,
    agentId: TEAM_AGENT_ID,
    ...ENTITY_DEFAULTS[entry.type],
    ...localFields(previous),
    ...entry.input,
  } as VersionBody;
  const wasTeam = previous?.agentId === TEAM_AGENT_ID;
  try {
    const written = withProvenance({ kind: 'team', ...(author ? { name: author } : {}) }, () =>
      store.write({
        id: entry.id,
        body,
        op: previous ? 'update' : 'create',
        message: `team folder: ${entry.path}`,
        fresh: !ref,
      }),
    );
    if (!written.changed) {
      report.unchanged++;
      return undefined;
    }
    (wasTeam ? report.updated : report.added).push(entry.id);
    return previous
      ? { kind: 'update', entity: written.entity, previous, commit: written.commit }
      : { kind: 'save', entity: written.entity, commit: written.commit };
  } catch (error) {
    // A value the store refuses (a secret under `block`, say): the file is reported, the rest goes on.
    if (!isMemoryError(error)) throw error;
    report.problems.push({
      path: entry.path,
      problem: { code: 'INVALID', message: error.message, fix: 'Change the file so the store accepts it.' },
    });
    return undefined;
  }
}

/**
 * What a team file does not carry but the store's version has: the session
 * a memory was mined from and the memory it corrects are this store's own,
 * kept through every sync rather than dropped by the file's next reading.
 */
function localFields(previous: Entity | undefined): Partial<Record<'sourceSession' | 'supersedes', string>> {
  if (previous?.type !== 'memory') return {};
  const { sourceSession, supersedes } = previous;
  return { ...(sourceSession ? { sourceSession } : {}), ...(supersedes ? { supersedes } : {}) };
}

/** The ids of the live team memories and skills. */
function liveTeamIds(store: EntityStore): string[] {
  return store.db
    .all(`SELECT id FROM refs WHERE agent_id = ? AND deleted = 0 ORDER BY id`, TEAM_AGENT_ID)
    .map((row) => text(row, 'refs', 'id'));
}
