import type { Dirent, Stats } from 'node:fs';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Ignore } from 'ignore';

import { isInside, outsideReason } from '../paths';
import { secretFileReason } from '../secrets/files';
import {
  type IgnoreContext,
  type IgnoreFile,
  isGitignored,
  readIgnoreFile,
  repositoryIgnores,
  safeTest,
} from './loader-ignore';
import type { ListedFile, ListResult, SkippedFile } from './loader-types';
import {
  byPath,
  byRelativePath,
  checkAborted,
  childPath,
  errorCode,
  ioMessage,
  ioReason,
  parentOf,
  tooLarge,
  undecodableNames,
} from './loader-util';

/**
 * The walk of a synced folder: which files are documents, which folders are
 * entered, and why the others are not. It never leaves the folder: a
 * symlink is followed only when its real path stays inside the root (and
 * does not loop back to a folder above it).
 */

/**
 * The walk lists folders and stats files with synchronous calls, which cost
 * a third of what the promise-based ones do on a local disk (where a
 * workspace's files are, in a remote window too: the extension host runs
 * beside them). It yields to the event loop this often, in milliseconds,
 * so cancellation and other requests are never kept waiting for long.
 */
const WALK_SLICE_MS = 10;
/** Within a folder, how many entries are handled between two looks at the clock. */
const PAUSE_EVERY = 256;

/** The load options, checked. */
export interface Settings {
  extensions: Set<string>;
  maxFileBytes: number;
  maxDepth: number;
  respectGitignore: boolean;
  extraIgnore: Ignore | undefined;
  signal: AbortSignal | undefined;
}

/** What the walk needs to know of an entry: a Dirent while listing, the lstat of a probed path. */
interface EntryKind {
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

interface Folder extends IgnoreContext {
  absolute: string;
  /** 0 for the root. */
  depth: number;
  /** Real paths of this folder and every folder above it in the walk. */
  realChain: string[];
}

/** A resolved symlink: where it leads, and what is there. */
interface LinkTarget {
  real: string;
  stats: Stats;
}

export class Walker {
  private readonly files: ListedFile[] = [];
  private readonly skipped: SkippedFile[] = [];
  /** The root's real path: nothing whose real path is outside it is listed. */
  private readonly realRoot: string;

  constructor(
    private readonly root: string,
    private readonly settings: Settings,
  ) {
    let real = root;
    try {
      real = fs.realpathSync(root);
    } catch {
      // Loops and escapes are then told by the paths as given.
    }
    this.realRoot = real;
  }

  /** Every document under the root. */
  async run(): Promise<ListResult> {
    await this.walk([this.rootFolder()]);
    return this.result();
  }

  /**
   * Only the given paths (relative to the root), each judged by the rules
   * the full walk applies on its way down to it: the folders above it are
   * checked and their .gitignore files read, without listing anything else.
   * A path that is a folder is walked; one that does not exist is left out.
   */
  async probe(relativePaths: readonly string[]): Promise<ListResult> {
    const entered = new Map<string, Folder | undefined>();
    const folderAt = (relative: string): Folder | undefined => {
      if (!entered.has(relative)) entered.set(relative, this.enterChain(relative, folderAt));
      return entered.get(relative);
    };
    const targets = [...new Set(relativePaths)].sort();
    const folders: Folder[] = [];
    for (const relative of targets) {
      await this.pause();
      if (relative === '') {
        folders.push(this.rootFolder());
        continue;
      }
      const parent = folderAt(parentOf(relative));
      if (!parent) continue;
      const folder = this.entry(parent, relative);
      if (folder) folders.push(folder);
    }
    await this.walk(folders);
    return this.result();
  }

  private result(): ListResult {
    // A probe naming a folder and a path inside it meets that path twice.
    const files = [...new Map(this.files.map((file) => [file.relativePath, file])).values()];
    const skipped = [...new Map(this.skipped.map((file) => [`${file.path}\0${file.reason}`, file])).values()];
    return { root: this.root, files: files.sort(byRelativePath), skipped: skipped.sort(byPath) };
  }

  /** A probed path below `parent`, judged as the walk would: a folder to enter comes back. */
  private entry(parent: Folder, relative: string): Folder | undefined {
    const name = relative.slice(relative.lastIndexOf('/') + 1);
    const kind = this.lstat(path.join(parent.absolute, name));
    if (!kind) return undefined; // Deleted: nothing to list; the caller treats it as gone.
    const sorted = this.sort(parent, name, relative, kind);
    return sorted === 'candidate' ? this.candidate(parent, name, relative, kind) : sorted;
  }

  /** The entry's own kind (a link is not followed); undefined if it does not exist, reported if it cannot be read. */
  private lstat(absolute: string): Stats | undefined {
    try {
      return fs.lstatSync(absolute);
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.skipped.push({ path: absolute, reason: ioReason(error) });
      return undefined;
    }
  }

  private rootFolder(): Folder {
    const ignores = this.settings.respectGitignore ? repositoryIgnores(this.root) : [];
    return { absolute: this.root, relative: '', depth: 0, realChain: [this.realRoot], ignores };
  }

  /** When the event loop last ran (see pause). */
  private sliceStart = performance.now();

  /**
   * Stops on an abort, and lets the event loop run once WALK_SLICE_MS have
   * passed since it last did: the walk's calls are synchronous, so this is
   * what keeps other work (and a cancel) from waiting on a big tree.
   */
  private async pause(): Promise<void> {
    checkAborted(this.settings.signal);
    if (performance.now() - this.sliceStart < WALK_SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
    checkAborted(this.settings.signal);
  }

  /** Every folder below `start`, depth first. */
  private async walk(start: Folder[]): Promise<void> {
    const pending = [...start].reverse();
    for (let folder = pending.pop(); folder; folder = pending.pop()) {
      await this.pause();
      const subfolders = await this.visit(folder);
      // One push per folder: spreading a folder of 100,000 subfolders into push() overflows the stack.
      for (let i = subfolders.length - 1; i >= 0; i--) pending.push(subfolders[i]!);
    }
    checkAborted(this.settings.signal);
  }

  /** A folder on the way to a probed path, entered as the walk would (with its own .gitignore), or undefined if the walk would not enter it. */
  private enterChain(relative: string, folderAt: (relative: string) => Folder | undefined): Folder | undefined {
    if (relative === '') return this.withOwnIgnore(this.rootFolder(), true);
    const parent = folderAt(parentOf(relative));
    const folder = parent && this.entry(parent, relative);
    return folder && this.withOwnIgnore(folder, true);
  }

  /** Lists one folder; returns its subfolders to visit. */
  private async visit(folder: Folder): Promise<Folder[]> {
    let entries: Dirent[];
    try {
      entries = fs.readdirSync(folder.absolute, { withFileTypes: true });
    } catch (error) {
      this.skipped.push({ path: folder.absolute, reason: `unreadable folder: ${ioMessage(error)}` });
      return [];
    }
    const context = this.withOwnIgnore(
      folder,
      entries.some((entry) => entry.name === '.gitignore' && !entry.isDirectory()),
    );
    // U+FFFD is rare in a real name, so only then is the folder read again for the names' bytes.
    const undecodable = entries.some((entry) => entry.name.includes('\uFFFD'))
      ? undecodableNames(folder.absolute)
      : undefined;
    const subfolders: Folder[] = [];
    for (const [index, entry] of entries.entries()) {
      // A folder of 100,000 files is many slices' worth of stat calls.
      if (index % PAUSE_EVERY === PAUSE_EVERY - 1) await this.pause();
      if (undecodable?.has(entry.name)) {
        this.undecodable(folder, entry);
        continue;
      }
      const relative = folder.relative ? `${folder.relative}/${entry.name}` : entry.name;
      const sorted = this.sort(context, entry.name, relative, entry);
      const sub = sorted === 'candidate' ? this.candidate(context, entry.name, relative, entry) : sorted;
      if (sub) subfolders.push(sub);
    }
    return subfolders;
  }

  /**
   * An entry whose name is not valid UTF-8 (see undecodableNames): reported
   * where the walk would have taken it (a folder it would enter, a file or
   * link it would load), as the name cannot be opened or stored as it is.
   * Rules that match by name (.gitignore, hidden folders) are applied to
   * the name as readdir spells it, which keeps the name's valid parts.
   */
  private undecodable(folder: Folder, entry: Dirent): void {
    const absolute = childPath(folder.absolute, entry.name);
    const relative = folder.relative ? `${folder.relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || this.exclusion(folder, relative, true)) return;
      this.skipped.push({ path: absolute, reason: 'folder name is not valid UTF-8; rename it to load what it holds' });
      return;
    }
    // A link may lead to a folder, which is not looked at (that needs the raw name): it is reported whatever its extension.
    if (!entry.isSymbolicLink() && !this.wanted(entry.name)) return;
    if (this.exclusion(folder, relative, false)) return;
    this.skipped.push({ path: absolute, reason: 'file name is not valid UTF-8; rename it to load it' });
  }

  /** The folder with its own .gitignore (if `present` and rules are respected) added to the rules in force. */
  private withOwnIgnore(folder: Folder, present: boolean): Folder {
    if (!this.settings.respectGitignore || !present) return folder;
    const file = path.join(folder.absolute, '.gitignore');
    const rules = readIgnoreFile(file, this.realRoot);
    // When probing, `present` is a guess: a missing .gitignore is simply none.
    if (rules === undefined) return folder;
    if (typeof rules === 'string') {
      this.skipped.push({ path: file, reason: rules });
      return folder;
    }
    const own: IgnoreFile = { rules, prefix: '', base: folder.relative, cleared: new Map() };
    return { ...folder, ignores: [...folder.ignores, own] };
  }

  /**
   * What to do with one entry of a folder: a subfolder to enter, a
   * 'candidate' to stat (a wanted file, or a symlink that may be either), or
   * nothing (skipped, and reported if it would have been loaded).
   */
  private sort(parent: Folder, name: string, relative: string, kind: EntryKind): Folder | 'candidate' | undefined {
    if (kind.isDirectory()) return this.folderEntry(parent, name, relative, undefined);
    if (kind.isSymbolicLink()) return 'candidate';
    if (!this.wanted(name) || this.excluded(parent, relative, false)) return undefined;
    if (kind.isFile()) return 'candidate';
    this.skipped.push({ path: path.join(parent.absolute, name), reason: 'not a regular file' });
    return undefined;
  }

  /** Stats a candidate: a file is added if it qualifies; a link to a folder comes back as the folder to enter. */
  private candidate(parent: Folder, name: string, relative: string, kind: EntryKind): Folder | undefined {
    const absolute = childPath(parent.absolute, name);
    if (!kind.isSymbolicLink()) {
      const stats = this.stat(absolute);
      if (stats) this.fileEntry(absolute, relative, stats);
      return undefined;
    }
    // A link ignored by name (patterns without a trailing slash match both
    // files and folders) is not even resolved.
    if (this.excluded(parent, relative, false)) return undefined;
    const target = this.resolveLink(absolute);
    if (!target) return undefined;
    const isFolder = target.stats.isDirectory();
    // A link to a file that would not be loaded anyway is no escape worth reporting.
    if (!isFolder && !this.wanted(name)) return undefined;
    if (!isInside(this.realRoot, target.real)) {
      this.skipped.push({ path: absolute, reason: outsideReason(target.real) });
      return undefined;
    }
    if (isFolder) return this.folderEntry(parent, name, relative, target.real);
    this.fileEntry(absolute, relative, target.stats);
    return undefined;
  }

  /** A regular file's stat; undefined (and reported unless it was just deleted) when it cannot be had. */
  private stat(absolute: string): Stats | undefined {
    try {
      return fs.statSync(absolute);
    } catch (error) {
      // Deleted since the folder was read: not there to load.
      if (errorCode(error) !== 'ENOENT') this.skipped.push({ path: absolute, reason: ioReason(error) });
      return undefined;
    }
  }

  /** Where a symlink leads and what is there; undefined (and reported) for a dangling link, a loop or an error. */
  private resolveLink(absolute: string): LinkTarget | undefined {
    try {
      const real = fs.realpathSync(absolute);
      return { real, stats: fs.statSync(real) };
    } catch (error) {
      const code = errorCode(error);
      let reason = ioReason(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') reason = 'dangling symlink';
      else if (code === 'ELOOP') reason = 'symlink loop';
      this.skipped.push({ path: absolute, reason });
      return undefined;
    }
  }

  /** Adds a file (its stat given, a link's followed) if it qualifies, or reports why not. */
  private fileEntry(absolute: string, relative: string, stats: Stats): void {
    const secret = secretFileReason(relative.slice(relative.lastIndexOf('/') + 1));
    if (secret) this.skipped.push({ path: absolute, reason: secret });
    else if (!stats.isFile()) this.skipped.push({ path: absolute, reason: 'not a regular file' });
    else if (stats.size > this.settings.maxFileBytes)
      this.skipped.push({ path: absolute, reason: tooLarge(this.settings.maxFileBytes, stats.size) });
    else this.files.push({ path: absolute, relativePath: relative, bytes: stats.size, mtimeMs: stats.mtimeMs });
  }

  /**
   * A subfolder to enter, or undefined if it is skipped (and reported). A
   * linked one comes with its real path (inside the root), which must not be
   * a folder above it: that is a loop.
   */
  private folderEntry(
    parent: Folder,
    name: string,
    relative: string,
    linkedTo: string | undefined,
  ): Folder | undefined {
    const absolute = childPath(parent.absolute, name);
    let reason: string | undefined;
    if (name === '.git') reason = '.git folder';
    else if (name === 'node_modules') reason = 'node_modules folder';
    else if (name.startsWith('.')) reason = 'hidden folder';
    else reason = this.exclusion(parent, relative, true);
    if (!reason && parent.depth + 1 > this.settings.maxDepth) reason = 'depth limit';
    if (!reason && linkedTo !== undefined && parent.realChain.includes(linkedTo)) reason = 'symlink loop';
    if (reason) {
      this.skipped.push({ path: absolute, reason });
      return undefined;
    }
    // A real folder's real path is its real parent's plus its name.
    const real = linkedTo ?? childPath(parent.realChain.at(-1)!, name);
    return {
      absolute,
      relative,
      depth: parent.depth + 1,
      realChain: [...parent.realChain, real],
      ignores: parent.ignores,
    };
  }

  private wanted(name: string): boolean {
    return this.settings.extensions.has(path.extname(name).toLowerCase());
  }

  /** True if the path is excluded; reported as skipped (a file here is one that would otherwise be loaded). */
  private excluded(folder: Folder, relative: string, isFolder: boolean): boolean {
    const reason = this.exclusion(folder, relative, isFolder);
    if (reason) this.skipped.push({ path: path.join(this.root, ...relative.split('/')), reason });
    return reason !== undefined;
  }

  private exclusion(folder: Folder, relative: string, isFolder: boolean): string | undefined {
    const tested = isFolder ? `${relative}/` : relative;
    if (this.settings.extraIgnore && safeTest(this.settings.extraIgnore, tested).ignored)
      return 'ignored by extraIgnore';
    if (isGitignored(folder, relative, isFolder)) return 'ignored by .gitignore';
    return undefined;
  }
}
