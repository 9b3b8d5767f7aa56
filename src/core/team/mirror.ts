import * as fs from 'node:fs';
import * as path from 'node:path';

import { isMemoryError, MemoryError } from '../errors';
import type { TeamMirror } from '../store/entity-store';
import type { Entity } from '../types';
import { readTeamFileAt, scanTeamFolder, shortIdOfPath, teamFileNames, teamFolderAccessError } from './folder';
import { renderTeamFile, shortId, teamFilePath } from './format';

/** Where an entity's file is, and who created it (kept in the file from its first version on). */
interface Placed {
  path: string;
  createdBy?: string;
}

/**
 * Writes the team folder's files as the store changes: a team entity saved,
 * edited or deleted through any door (VS Code, chat, tools, MCP, the CLI)
 * becomes its file's new text, or its file goes. Runs inside the write's
 * transaction (see TeamMirror): a file that cannot be written fails the write.
 */
export class TeamFolderMirror implements TeamMirror {
  /** Each team entity's file, read from the folder on first use and kept as files are written. */
  private placed: Map<string, Placed> | undefined;

  /** Who writes, as git knows them here ("Name <email>"): the files name them rather than the login. */
  person: string | undefined;

  constructor(readonly root: string) {}

  /** Forgets where files are: the next write looks at the folder again (after a sync read it anew). */
  reset(entries?: readonly { id: string; path: string; createdBy?: string }[]): void {
    this.placed = entries && new Map(entries.map(({ id, path: file, createdBy }) => [id, { path: file, createdBy }]));
  }

  changed(id: string, entity: Entity | undefined, author: string): void {
    try {
      this.apply(id, entity, author);
    } catch (error) {
      if (isMemoryError(error)) throw error;
      // The write's transaction rolls back: the store and the folder still agree, and the person is told why.
      const failed = teamFolderAccessError(error, `write the team file of ${id}`);
      throw new MemoryError(
        'TEAM_FOLDER_ACCESS',
        `${failed.message} Nothing was saved: make the team folder writable, then try again.`,
        { cause: error },
      );
    }
  }

  private apply(id: string, entity: Entity | undefined, author: string): void {
    const placed = this.files();
    const before = placed.get(id);
    // A file git could not merge holds both sides: writing over it would lose one, and removing it (a
    // delete, Make Personal) would leave the file to bring the memory back. The person resolves it first.
    if (!before) this.refuseWhileUnreadable(id);
    if (!entity || (entity.type !== 'memory' && entity.type !== 'skill')) {
      if (before) this.remove(before.path);
      placed.delete(id);
      return;
    }
    // A file keeps its name once it has one, though its first words change: an edit then shows in git as
    // an edit of one file (`git commit -a` takes it), and two people's edits meet in one file, where
    // git can merge them or show the conflict. The words of a name are only a guide.
    const file = before?.path ?? teamFilePath(entity);
    const who = this.person ?? author;
    const createdBy = before?.createdBy ?? who;
    this.write(file, renderTeamFile(entity, { createdBy, updatedBy: who }));
    placed.set(id, { path: file, createdBy });
  }

  /**
   * Refuses a change to an entity whose file is in the folder but was not
   * taken in (a conflict, bad YAML, a duplicate id, no read access), saying why.
   */
  private refuseWhileUnreadable(id: string): void {
    const file = teamFileNames(this.root).find((name) => shortIdOfPath(name) === shortId(id));
    if (!file) return;
    // Only that file is read again (the folder may hold thousands); a file that reads well is held back
    // by another (a duplicate id), which `team status` shows.
    const parsed = readTeamFileAt(this.root, file);
    const why = parsed.ok
      ? 'see `workspace-memory team status`'
      : `${parsed.problem.message.replace(/\.$/, '')}; fix: ${parsed.problem.fix.replace(/\.$/, '')}`;
    throw new MemoryError(
      'INVALID_INPUT',
      `The team file ${file} is not taken in (${why}): resolve that first, then change the memory.`,
    );
  }

  private files(): Map<string, Placed> {
    this.placed ??= new Map(
      scanTeamFolder(this.root).entries.map((entry) => [entry.id, { path: entry.path, createdBy: entry.createdBy }]),
    );
    return this.placed;
  }

  /** Writes `text` to the file at `file` (relative), through a temporary file, never through a link. */
  private write(file: string, text: string): void {
    const target = path.join(this.root, file);
    const folder = path.dirname(target);
    fs.mkdirSync(folder, { recursive: true });
    for (const place of [this.root, folder]) {
      if (fs.lstatSync(place).isSymbolicLink()) {
        throw new MemoryError(
          'INVALID_INPUT',
          `The team folder's ${place} is a link; team files are not written through links.`,
        );
      }
    }
    const stats = fs.lstatSync(target, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink()) {
      throw new MemoryError(
        'INVALID_INPUT',
        `The team file ${file} is a link; remove it so the memory can be written.`,
      );
    }
    // Unchanged text is not written again: the file's time stays, and so does git's view of it.
    if (stats?.isFile() && fs.readFileSync(target, 'utf8') === text) return;
    const temporary = path.join(folder, `.${path.basename(target)}.${process.pid}.tmp`);
    fs.writeFileSync(temporary, text, { encoding: 'utf8', mode: 0o644 });
    fs.renameSync(temporary, target);
  }

  private remove(file: string): void {
    fs.rmSync(path.join(this.root, file), { force: true });
  }
}
