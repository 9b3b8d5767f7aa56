import * as fs from 'node:fs';
import * as path from 'node:path';

import { readBoundedSync } from '../bounded-read';
import { MemoryError } from '../errors';
import { isInside } from '../paths';
import { listDocuments } from '../rag/loader';
import { decode } from '../rag/loader-read';
import { errorCode, formatBytes, ioMessage } from '../rag/loader-util';

/**
 * The workspace an import reads from and an export writes into. Every path
 * is judged by where it really leads (links resolved): one outside the
 * workspace folder is refused, whatever name brought it in (a `..`, an
 * absolute path, a symbolic link, a CLAUDE.md `@import`).
 */

/** A source file bigger than this is no rule or note file: a knowledge graph of some tens of thousands of facts fits. */
export const MAX_SOURCE_BYTES = 16 * 1024 * 1024;
/** How deep the walk for AGENTS.md, CLAUDE.md and the like goes, and how many it takes. */
const WALK_DEPTH = 12;
const MAX_WALK_FILES = 500;
/** Tool folders (.cursor/rules, a memory folder) are listed this deep, at most this many files. */
const FOLDER_DEPTH = 4;
const MAX_FOLDER_FILES = 500;
/** How long reading and comparing run before letting the event loop run (see pause), in milliseconds. */
const SLICE_MS = 10;

export type EntryKind = 'file' | 'folder';

export class Workspace {
  private walked: Promise<string[]> | undefined;
  /** When the event loop last ran (see pause). */
  private sliceStart = performance.now();

  private constructor(
    /** The workspace folder's real path. */
    readonly root: string,
    readonly signal: AbortSignal | undefined,
  ) {}

  static open(workspaceRoot: string, signal?: AbortSignal): Workspace {
    if (typeof workspaceRoot !== 'string' || workspaceRoot.trim() === '') {
      throw new MemoryError('INVALID_INPUT', 'The workspace folder is required.');
    }
    let real: string;
    try {
      real = fs.realpathSync(path.resolve(workspaceRoot));
    } catch (error) {
      throw new MemoryError(
        'NOT_FOUND',
        `The workspace folder ${workspaceRoot} cannot be opened: ${ioMessage(error)}.`,
        {
          cause: error,
        },
      );
    }
    if (!fs.statSync(real).isDirectory()) {
      throw new MemoryError('INVALID_INPUT', `The workspace folder ${workspaceRoot} is not a folder.`);
    }
    return new Workspace(real, signal);
  }

  /** CANCELLED once the signal is aborted: the import stops before it writes (the walk says so in its own words). */
  checkAborted(): void {
    if (this.signal?.aborted) {
      throw new MemoryError('CANCELLED', 'Cancelled; nothing was written.', { cause: this.signal.reason });
    }
  }

  /**
   * Stops on an abort, and lets the event loop run once SLICE_MS have passed
   * since it last did. Reading files and comparing items with the store are
   * synchronous calls: without this, a cancel (Ctrl-C, a message to the
   * store's worker) is only heard once the import is over.
   */
  async pause(): Promise<void> {
    this.checkAborted();
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
    this.checkAborted();
  }

  absolute(relative: string): string {
    return relative === '' ? this.root : path.join(this.root, ...relative.split('/'));
  }

  /**
   * A path the user gave (relative to the workspace folder, or absolute) as
   * the workspace-relative path of what it really is. INVALID_INPUT when it
   * leads outside the workspace, NOT_FOUND when nothing is there.
   */
  locate(given: string): { path: string; kind: EntryKind } {
    if (typeof given !== 'string') throw new MemoryError('INVALID_INPUT', 'The path to import must be text.');
    const named = path.resolve(this.root, given.trim() === '' ? '.' : given.trim());
    let real: string;
    try {
      real = fs.realpathSync(named);
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') {
        // A dangling link still says where it leads: outside is the reason to give.
        if (!isInside(this.root, linkTarget(named))) throw outside(given, this.root);
        throw new MemoryError('NOT_FOUND', `There is no file or folder at ${given}.`, { cause: error });
      }
      throw new MemoryError('INVALID_INPUT', `Cannot read ${given}: ${ioMessage(error)}.`, { cause: error });
    }
    if (!isInside(this.root, real)) throw outside(given, this.root);
    const stats = fs.statSync(real);
    if (!stats.isFile() && !stats.isDirectory()) {
      throw new MemoryError('INVALID_INPUT', `${given} is neither a file nor a folder.`);
    }
    // The name as given, for formats judge a file by its name (a CLAUDE.md linked to AGENTS.md is read as
    // CLAUDE.md); the real path when the name itself is not below the folder (another path to the workspace).
    const name = this.relative(named);
    const shown = name === '..' || name.startsWith('../') || path.isAbsolute(name) ? this.relative(real) : name;
    return { path: shown, kind: stats.isDirectory() ? 'folder' : 'file' };
  }

  /**
   * Where an export of `given` (workspace-relative) writes: the file a link
   * there leads to (a CLAUDE.md linked to AGENTS.md stays a link), or a new
   * file in a folder that is, or will be created, inside the workspace.
   * INVALID_INPUT for anything leading outside.
   */
  writable(given: string): { absolute: string; relative: string; exists: boolean } {
    const named = path.resolve(this.root, given);
    if (!isInside(this.root, named) || named === this.root) throw outside(given, this.root);
    let real: string;
    try {
      real = fs.realpathSync(named);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') {
        throw new MemoryError('INVALID_INPUT', `Cannot write ${given}: ${ioMessage(error)}.`, { cause: error });
      }
      const target = linkTarget(named);
      if (!isInside(this.root, target)) throw outside(given, this.root);
      return { absolute: target, relative: this.relative(target), exists: false };
    }
    if (!isInside(this.root, real)) throw outside(given, this.root);
    if (!fs.statSync(real).isFile()) throw new MemoryError('INVALID_INPUT', `${given} is not a file.`);
    return { absolute: real, relative: this.relative(real), exists: true };
  }

  /** What is at a workspace-relative path, links followed only while they stay inside; undefined otherwise. */
  kindOf(relative: string): EntryKind | undefined {
    try {
      const real = fs.realpathSync(this.absolute(relative));
      if (!isInside(this.root, real)) return undefined;
      const stats = fs.statSync(real);
      return stats.isDirectory() ? 'folder' : stats.isFile() ? 'file' : undefined;
    } catch {
      return undefined;
    }
  }

  /** The real path of a workspace-relative path, as a workspace-relative path (a link's target), or undefined. */
  realRelative(relative: string): string | undefined {
    try {
      const real = fs.realpathSync(this.absolute(relative));
      return isInside(this.root, real) ? this.relative(real) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A source file's text (UTF-8, or UTF-16 with a BOM; line ends made LF).
   * IMPORT_INVALID for a binary or oversized file, or one that cannot be read.
   */
  readText(relative: string): string {
    const file = this.absolute(relative);
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch (error) {
      throw new MemoryError('IMPORT_INVALID', `${relative} cannot be read: ${ioMessage(error)}.`, { cause: error });
    }
    if (!isInside(this.root, real)) throw outside(relative, this.root);
    let read;
    try {
      read = readBoundedSync(real, MAX_SOURCE_BYTES);
    } catch (error) {
      throw new MemoryError('IMPORT_INVALID', `${relative} cannot be read: ${ioMessage(error)}.`, { cause: error });
    }
    if (read.kind === 'not-a-file') throw new MemoryError('IMPORT_INVALID', `${relative} is not a regular file.`);
    if (read.kind === 'too-large') {
      throw new MemoryError(
        'IMPORT_INVALID',
        `${relative} is ${formatBytes(read.size)}; a source to import may be at most ${formatBytes(MAX_SOURCE_BYTES)}.`,
      );
    }
    const text = decode(read.bytes);
    if (text === undefined) throw new MemoryError('IMPORT_INVALID', `${relative} is not a text file.`);
    return text;
  }

  /**
   * The files under a folder (workspace-relative) whose path `match`es,
   * hidden folders included (tool folders are hidden: .cursor, .claude),
   * sorted; bounded in depth and count, links followed only inside.
   */
  listFolder(folder: string, match: (relative: string) => boolean, depth = FOLDER_DEPTH): string[] {
    const found: string[] = [];
    const visit = (relative: string, level: number): void => {
      if (found.length >= MAX_FOLDER_FILES) return;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(this.absolute(relative), { withFileTypes: true });
      } catch {
        return; // Not there, or not readable: nothing of it can be imported.
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
        const kind = entry.isSymbolicLink() ? this.kindOf(child) : entry.isDirectory() ? 'folder' : 'file';
        if (kind === 'folder' && level < depth && entry.name !== 'node_modules' && entry.name !== '.git') {
          visit(child, level + 1);
        } else if (kind === 'file' && match(child) && found.length < MAX_FOLDER_FILES) found.push(child);
      }
    };
    visit(folder, 0);
    return found;
  }

  /**
   * Files of the given names anywhere in the workspace's visible tree: the
   * document loader's walk, so `.gitignore`, `node_modules` and hidden
   * folders are left out as they are for document sync. Listed once per
   * Workspace, at most MAX_WALK_FILES.
   */
  async walkNamed(names: ReadonlySet<string>): Promise<string[]> {
    this.walked ??= listDocuments(this.root, {
      extensions: ['.md', '.json', '.jsonl'],
      maxDepth: WALK_DEPTH,
      maxFileBytes: MAX_SOURCE_BYTES,
      signal: this.signal,
    }).then((listing) => listing.files.map((file) => file.relativePath));
    const all = await this.walked;
    return all.filter((relative) => names.has(path.posix.basename(relative))).slice(0, MAX_WALK_FILES);
  }

  private relative(real: string): string {
    return path.relative(this.root, real).split(path.sep).join('/');
  }
}

function outside(given: string, root: string): MemoryError {
  return new MemoryError(
    'INVALID_INPUT',
    `${given} is outside the workspace (${root}); only files inside it are imported or written.`,
  );
}

/** Where a link that leads nowhere would lead, resolved as far as it exists. */
function linkTarget(named: string): string {
  let target = named;
  try {
    target = path.resolve(path.dirname(named), fs.readlinkSync(named));
  } catch {
    // Not a link: the path itself is what is missing.
  }
  let existing = path.dirname(target);
  for (;;) {
    try {
      return path.join(fs.realpathSync(existing), path.relative(existing, target));
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return target;
      existing = parent;
    }
  }
}
