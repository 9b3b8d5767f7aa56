import * as fs from 'node:fs';

import { Memory } from '../../core/memory';
import type { Team } from '../../core/team/team';
import type { ReviewMode } from '../../core/trust/review-policy';
import { embedderFromEnvironment, secretPolicyFromEnvironment, teamFolderOf, workspaceFolder } from '../cli/context';

/** How long a burst of changes in the team folder settles before one sync. */
const TEAM_SETTLE_MS = 300;

export interface ServerStoreOptions {
  dir: string;
  /** `queue` or `immediate` for the clients' writes; undefined: the store's policy (they wait for review). */
  review?: string;
  /** Warnings and errors, one line each. */
  log: (line: string) => void;
}

/** A store opened for a server (stdio MCP, HTTP), with its team folder kept in step while it runs. */
export interface ServerStore {
  memory: Memory;
  /** Stops watching the team folder and closes the store. */
  close: () => Promise<void>;
}

/**
 * Opens the store the way every server does: its clients write as `mcp`
 * (reviewed as the policy or `review` says), with the secret policy and the
 * embedder the environment names, citations resolved in the workspace around
 * the store, and the repository's team folder synced now and after every
 * burst of changes (a pull, a checkout) while the server runs.
 */
export async function openServerStore(options: ServerStoreOptions): Promise<ServerStore> {
  const workspace = workspaceFolder(undefined, options.dir);
  const memory = await Memory.open({
    dir: options.dir,
    writer: { kind: 'mcp' },
    secrets: secretPolicyFromEnvironment(),
    // The clients' writes only: people approving in the same store write through their own shells.
    ...(options.review === undefined ? {} : { review: { mcp: options.review as ReviewMode } }),
    embedder: embedderFromEnvironment(),
    workspaceFolders: [workspace],
    teamFolder: teamFolderOf(workspace.path),
    onWarning: (message) => options.log(`warning: ${message}`),
  });
  const watch = memory.team ? watchTeamFolder(memory.team, options.log) : undefined;
  return {
    memory,
    close: async () => {
      // The sync started at open (or after a change) finishes first: the store is not closed under it.
      await watch?.close();
      await memory.close();
    },
  };
}

/**
 * Syncs the team folder now and after every burst of changes to it; a sync
 * that fails is logged, and the server goes on with the store as it was.
 */
function watchTeamFolder(team: Team, log: (line: string) => void): { close(): Promise<void> } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = Promise.resolve();
  let closed = false;
  const sync = () => {
    running = running.then(async () => {
      // Queued behind a sync that was running when the watch was closed: not started.
      if (closed) return;
      try {
        const { problems } = await team.sync();
        if (problems.length)
          log(`team folder: ${problems.length} file(s) not taken in (see \`workspace-memory team status\`)`);
      } catch (error) {
        log(`team folder: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  };
  sync();
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(team.folder, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(sync, TEAM_SETTLE_MS);
    });
  } catch (error) {
    log(`team folder: not watched (${error instanceof Error ? error.message : String(error)}); synced at start only`);
  }
  return {
    /** Stops watching and resolves once the sync in progress, if any, is over. */
    close: () => {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
      return running;
    },
  };
}
