import * as fs from 'node:fs';
import { constants as fsConstants, promises as fsp, type Dirent, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { nodeCrypto } from '../crypto';
import ignore, { type Ignore } from 'ignore';
import { MemoryError } from '../errors';

/**
 * Finds the documents of a folder to ingest: the walk skips `.git`,
 * `node_modules`, hidden folders and whatever the tree's `.gitignore` files
 * (and `extraIgnore`) exclude, follows symlinks without looping, and reports
 * every file it would have loaded but could not (too big, binary, unreadable,
 * a dangling link...) with a reason instead of failing the whole load.
 */

export const DEFAULT_DOC_EXTENSIONS = ['.md', '.mdx', '.markdown', '.txt', '.rst', '.adoc'];
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 20;

export interface LoadOptions {
  /** File extensions to load, with or without the dot, any case. Default {@link DEFAULT_DOC_EXTENSIONS}. */
  extensions?: string[];
  /** Bigger files are skipped with a reason. Default 1 MB. */
  maxFileBytes?: number;
  /** How many folder levels below the root are entered. Default 20; 0 loads the root's own files only. */
  maxDepth?: number;
  /** Apply the `.gitignore` files of the tree (and of its enclosing Git repository). Default true. */
  respectGitignore?: boolean;
  /** More gitignore-style patterns, relative to the root (e.g. VS Code's `files.exclude`). */
  extraIgnore?: string[];
  /** Aborting stops the load promptly with MemoryError 'CANCELLED'. */
  signal?: AbortSignal;
}

export interface ListedFile {
  /** Absolute. */
  path: string;
  /** POSIX separators, relative to the root. */
  relativePath: string;
  bytes: number;
  mtimeMs: number;
}

export interface LoadedFile extends ListedFile {
  /** UTF-8 (or UTF-16 with a BOM) decoded, BOM stripped, line ends normalised to LF. */
  text: string;
  /** Hex SHA-256 of the file's bytes as they are on disk. */
  sha256: string;
}

export interface SkippedFile {
  /** Absolute path of the file or folder. */
  path: string;
  /** Human readable: 'binary file', 'larger than 1 MB (3.2 MB)', 'symlink loop', 'ignored by .gitignore'... */
  reason: string;
}

export interface LoadResult {
  root: string;
  files: LoadedFile[];
  skipped: SkippedFile[];
}

export interface ListResult {
  root: string;
  files: ListedFile[];
  skipped: SkippedFile[];
}

export interface ReadOptions {
  /** Default: the larger of 1 MB and the size the listing saw, so a listed file is never refused for its size. */
  maxFileBytes?: number;
  signal?: AbortSignal;
}

/** Files read at once. */
const CONCURRENCY = 16;
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
/** How much of a file is looked at to tell binary from text. */
const SNIFF_BYTES = 8192;
/** How far up the walk looks for the `.git` of an enclosing repository. */
const MAX_REPO_LEVELS = 64;
// Git's own default on each platform (core.ignorecase).
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

interface Settings {
  extensions: Set<string>;
  maxFileBytes: number;
  maxDepth: number;
  respectGitignore: boolean;
  extraIgnore: Ignore | undefined;
  signal: AbortSignal | undefined;
}

/** The files under `target` that would be loaded, with their size and time, without reading them. */
export async function listDocuments(target: string, options: LoadOptions = {}): Promise<ListResult> {
  const settings = settingsFrom(options);
  checkAborted(settings.signal);
  const absolute = resolveTarget(target);
  let stats: Stats;
  try {
    stats = await fsp.stat(absolute);
  } catch (error) {
    throw targetError(absolute, error);
  }
  checkAborted(settings.signal);
  if (stats.isDirectory()) return new Walker(absolute, settings).run();

  // An explicitly named file is loaded whatever its extension and whatever a
  // .gitignore says: the caller asked for it by name. It is still refused if
  // it is not a regular file, too big, or (when read) binary.
  const root = path.dirname(absolute);
  const relativePath = path.basename(absolute);
  const skipped: SkippedFile[] = [];
  const files: ListedFile[] = [];
  if (!stats.isFile()) skipped.push({ path: absolute, reason: 'not a regular file' });
  else if (stats.size > settings.maxFileBytes)
    skipped.push({ path: absolute, reason: tooLarge(settings.maxFileBytes, stats.size) });
  else files.push({ path: absolute, relativePath, bytes: stats.size, mtimeMs: stats.mtimeMs });
  return { root, files, skipped };
}

export interface ProbeResult extends ListResult {
  /** The probed paths as the listing names them: relative to the root, POSIX separators, '' for the root itself. */
  paths: string[];
}

/**
 * The documents among `paths` (files or folders, relative to the folder
 * `root` or absolute inside it) that a listing of `root` would include, found
 * without listing the rest of the tree: the same rules decide (.gitignore
 * files on the way, `extraIgnore`, hidden folders, node_modules, extensions,
 * size, depth). A folder is listed whole; a path that does not exist is not
 * listed (nor skipped); a path outside the root is skipped.
 */
export async function probeDocuments(
  root: string,
  paths: readonly string[],
  options: LoadOptions = {},
): Promise<ProbeResult> {
  const settings = settingsFrom(options);
  if (!Array.isArray(paths) || paths.some((item) => typeof item !== 'string')) {
    throw new MemoryError('INVALID_INPUT', 'paths must be a list of file or folder paths.');
  }
  const absolute = resolveTarget(root);
  let stats: Stats;
  try {
    stats = await fsp.stat(absolute);
  } catch (error) {
    throw targetError(absolute, error);
  }
  if (!stats.isDirectory()) throw new MemoryError('INVALID_INPUT', `${absolute} is not a folder.`);
  checkAborted(settings.signal);
  const inside: string[] = [];
  const outside: SkippedFile[] = [];
  for (const item of paths) {
    const relative = path.relative(absolute, path.resolve(absolute, item));
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
      outside.push({ path: path.resolve(absolute, item), reason: 'outside the folder being synced' });
    } else inside.push(relative.split(path.sep).join('/'));
  }
  const listing = await new Walker(absolute, settings).probe(inside);
  return { ...listing, skipped: [...outside, ...listing.skipped].sort(byPath), paths: [...new Set(inside)].sort() };
}

/** Lists the documents under `target` (a folder or one file) and reads them. */
export async function loadDocuments(target: string, options: LoadOptions = {}): Promise<LoadResult> {
  const listing = await listDocuments(target, options);
  const signal = options.signal;
  const maxFileBytes = options.maxFileBytes;
  const results = await mapLimit(listing.files, CONCURRENCY, signal, (file) =>
    readDocument(file, { maxFileBytes, signal }),
  );
  const files: LoadedFile[] = [];
  const skipped = [...listing.skipped];
  for (const result of results) {
    if ('sha256' in result) files.push(result);
    else skipped.push(result);
  }
  skipped.sort(byPath);
  return { root: listing.root, files, skipped };
}

/**
 * Reads one listed file. Never throws for the file's sake: one that vanished,
 * grew past the size cap, became unreadable, is not a regular file or is
 * binary comes back as a SkippedFile. Only an abort throws (CANCELLED).
 */
export async function readDocument(
  file: { path: string; relativePath: string; bytes?: number },
  options: ReadOptions = {},
): Promise<LoadedFile | SkippedFile> {
  checkAborted(options.signal);
  const maxFileBytes =
    options.maxFileBytes ?? Math.max(DEFAULT_MAX_FILE_BYTES, typeof file.bytes === 'number' ? file.bytes : 0);
  let handle: FileHandle | undefined;
  try {
    // O_NONBLOCK so that opening a FIFO does not hang (it has no effect on a
    // regular file); fstat on the open handle then rules out anything but a
    // regular file without a window for the path to change in between.
    const flags = fsConstants.O_NONBLOCK === undefined ? 'r' : fsConstants.O_RDONLY | fsConstants.O_NONBLOCK;
    handle = await fsp.open(file.path, flags);
    const stats = await handle.stat();
    if (!stats.isFile()) return { path: file.path, reason: 'not a regular file' };
    if (stats.size > maxFileBytes) return { path: file.path, reason: tooLarge(maxFileBytes, stats.size) };
    // Read one byte past the cap, in case the file grows while it is read.
    const buffer = Buffer.allocUnsafe(Math.min(stats.size, maxFileBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    checkAborted(options.signal);
    if (length > maxFileBytes) return { path: file.path, reason: tooLarge(maxFileBytes, length) };
    const bytes = buffer.subarray(0, length);
    const text = decode(bytes);
    if (text === undefined) return { path: file.path, reason: 'binary file' };
    return {
      path: file.path,
      relativePath: file.relativePath,
      text,
      sha256: nodeCrypto().createHash('sha256').update(bytes).digest('hex'),
      bytes: length,
      mtimeMs: stats.mtimeMs,
    };
  } catch (error) {
    if (error instanceof MemoryError) throw error;
    const code = errorCode(error);
    if (code === 'ENOENT') return { path: file.path, reason: 'vanished: no longer exists' };
    if (code === 'EISDIR') return { path: file.path, reason: 'not a regular file' };
    return { path: file.path, reason: ioReason(error) };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------
// Decoding

/**
 * The file's text, or undefined when it looks binary: a NUL byte, or mostly
 * control characters, in the first 8 KB. A UTF-16 file is only recognised by
 * its BOM (without one its NULs make it binary). Invalid UTF-8 is decoded
 * with U+FFFD replacements rather than refused: a Latin-1 README is still
 * worth indexing.
 */
function decode(bytes: Buffer): string | undefined {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = decodeUtf16(bytes.subarray(2), 'utf-16le');
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = decodeUtf16(bytes.subarray(2), 'utf-16be');
  else {
    if (looksBinary(bytes)) return undefined;
    text = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\0')) return undefined;
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function decodeUtf16(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be'): string {
  if (encoding === 'utf-16le') return new TextDecoder('utf-16le').decode(bytes);
  // Swap to little endian rather than rely on ICU having utf-16be.
  const swapped = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  swapped.swap16();
  return new TextDecoder('utf-16le').decode(swapped);
}

function looksBinary(bytes: Buffer): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!;
    if (byte === 0) return true;
    // Tab, LF, VT, FF, CR and ESC (ANSI colours) are at home in text.
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 11 && byte !== 12 && byte !== 13 && byte !== 27) control++;
  }
  return end > 0 && control / end > 0.1;
}

// ---------------------------------------------------------------------------
// The walk

/** One .gitignore's rules, and how to express a walked path relative to its folder. */
interface IgnoreFile {
  rules: Ignore;
  /** Prefix from the .gitignore's folder to the walk root: '' for the root's own, 'docs/' for a repo's above it. */
  prefix: string;
  /** Folder of the .gitignore relative to the walk root: '' for the root and above, 'a/b' below. */
  base: string;
  /** Copies of `rules` told that a known-not-ignored folder is not ignored (see `isGitignored`). */
  cleared: Map<string, Ignore>;
}

/** What the walk needs to know of an entry: a Dirent while listing, the lstat of a probed path. */
interface EntryKind {
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

interface Folder {
  absolute: string;
  /** POSIX, relative to the root; '' for the root. */
  relative: string;
  /** 0 for the root. */
  depth: number;
  /** Real paths of this folder and every folder above it in the walk. */
  realChain: string[];
  ignores: IgnoreFile[];
}

class Walker {
  private readonly files: ListedFile[] = [];
  private readonly skipped: SkippedFile[] = [];

  constructor(
    private readonly root: string,
    private readonly settings: Settings,
  ) {}

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
      const name = relative.slice(relative.lastIndexOf('/') + 1);
      const kind = this.lstat(path.join(parent.absolute, name));
      if (!kind) continue; // Deleted: nothing to list; the caller treats it as gone.
      const sorted = this.sort(parent, name, relative, kind);
      const folder = sorted === 'candidate' ? this.candidate(parent, name, relative, kind) : sorted;
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
    let real = this.root;
    try {
      real = fs.realpathSync(this.root);
    } catch {
      // Loops are then told by the paths as given.
    }
    const ignores = this.settings.respectGitignore ? repositoryIgnores(this.root) : [];
    return { absolute: this.root, relative: '', depth: 0, realChain: [real], ignores };
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
    if (!parent) return undefined;
    const name = relative.slice(relative.lastIndexOf('/') + 1);
    const kind = this.lstat(path.join(parent.absolute, name));
    if (!kind) return undefined;
    const sorted = this.sort(parent, name, relative, kind);
    const folder = sorted === 'candidate' ? this.candidate(parent, name, relative, kind) : sorted;
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
    const subfolders: Folder[] = [];
    for (const [index, entry] of entries.entries()) {
      // A folder of 100,000 files is many slices' worth of stat calls.
      if (index % PAUSE_EVERY === PAUSE_EVERY - 1) await this.pause();
      const relative = folder.relative ? `${folder.relative}/${entry.name}` : entry.name;
      const sorted = this.sort(context, entry.name, relative, entry);
      const sub = sorted === 'candidate' ? this.candidate(context, entry.name, relative, entry) : sorted;
      if (sub) subfolders.push(sub);
    }
    return subfolders;
  }

  /** The folder with its own .gitignore (if `present` and rules are respected) added to the rules in force. */
  private withOwnIgnore(folder: Folder, present: boolean): Folder {
    if (!this.settings.respectGitignore || !present) return folder;
    const file = path.join(folder.absolute, '.gitignore');
    const rules = readIgnoreFile(file);
    // When probing, `present` is a guess: a missing .gitignore is simply none.
    if (rules === undefined) return folder;
    if (typeof rules === 'string') {
      this.skipped.push({ path: file, reason: rules });
      return folder;
    }
    return {
      ...folder,
      ignores: [...folder.ignores, { rules, prefix: '', base: folder.relative, cleared: new Map() }],
    };
  }

  /**
   * What to do with one entry of a folder: a subfolder to enter, a
   * 'candidate' to stat (a wanted file, or a symlink that may be either), or
   * nothing (skipped, and reported if it would have been loaded).
   */
  private sort(parent: Folder, name: string, relative: string, kind: EntryKind): Folder | 'candidate' | undefined {
    if (kind.isDirectory()) return this.folderEntry(parent, name, relative, false);
    if (kind.isSymbolicLink()) return 'candidate';
    if (!this.wanted(name) || this.excluded(parent, relative, false)) return undefined;
    if (kind.isFile()) return 'candidate';
    this.skipped.push({ path: path.join(parent.absolute, name), reason: 'not a regular file' });
    return undefined;
  }

  /** Stats a candidate: a file is added if it qualifies; a link to a folder comes back as the folder to enter, loops excluded. */
  private candidate(parent: Folder, name: string, relative: string, kind: EntryKind): Folder | undefined {
    const sub = this.fileEntry(parent, name, relative, kind.isSymbolicLink());
    return sub && this.resolveLinkedFolder(parent, sub);
  }

  /** A subfolder to enter, or undefined if it is skipped (and reported). */
  private folderEntry(parent: Folder, name: string, relative: string, viaLink: boolean): Folder | undefined {
    const absolute = childPath(parent.absolute, name);
    let reason: string | undefined;
    if (name === '.git') reason = '.git folder';
    else if (name === 'node_modules') reason = 'node_modules folder';
    else if (name.startsWith('.')) reason = 'hidden folder';
    else reason = this.exclusion(parent, relative, true);
    if (!reason && parent.depth + 1 > this.settings.maxDepth) reason = 'depth limit';
    if (reason) {
      this.skipped.push({ path: absolute, reason });
      return undefined;
    }
    return {
      absolute,
      relative,
      depth: parent.depth + 1,
      // A real folder's real path is its real parent's plus its name; a
      // linked one's is settled by resolveLinkedFolder.
      realChain: viaLink ? parent.realChain : [...parent.realChain, childPath(parent.realChain.at(-1)!, name)],
      ignores: parent.ignores,
    };
  }

  /** A symlinked folder's real path, checked against the folders above it: a loop is skipped. */
  private resolveLinkedFolder(parent: Folder, sub: Folder): Folder | undefined {
    let real: string;
    try {
      real = fs.realpathSync(sub.absolute);
    } catch (error) {
      this.skipped.push({ path: sub.absolute, reason: `unreadable symlink: ${ioMessage(error)}` });
      return undefined;
    }
    if (parent.realChain.includes(real)) {
      this.skipped.push({ path: sub.absolute, reason: 'symlink loop' });
      return undefined;
    }
    return { ...sub, realChain: [...parent.realChain, real] };
  }

  /**
   * A file entry, or a symlink (resolved here). Files that qualify are added;
   * a link to a folder comes back as the Folder to check for loops.
   */
  private fileEntry(parent: Folder, name: string, relative: string, link: boolean): Folder | undefined {
    const absolute = childPath(parent.absolute, name);
    // A link ignored by name (patterns without a trailing slash match both
    // files and folders) is not even resolved.
    if (link && this.excluded(parent, relative, false)) return undefined;
    let stats: Stats;
    try {
      stats = fs.statSync(absolute);
    } catch (error) {
      const code = errorCode(error);
      let reason = ioReason(error);
      if (link && (code === 'ENOENT' || code === 'ENOTDIR')) reason = 'dangling symlink';
      else if (link && code === 'ELOOP') reason = 'symlink loop';
      else if (code === 'ENOENT') return undefined; // Deleted since the folder was read: not there to load.
      this.skipped.push({ path: absolute, reason });
      return undefined;
    }
    if (link && stats.isDirectory()) return this.folderEntry(parent, name, relative, true);
    if (!this.wanted(name)) return undefined;
    if (!stats.isFile()) this.skipped.push({ path: absolute, reason: 'not a regular file' });
    else if (stats.size > this.settings.maxFileBytes)
      this.skipped.push({ path: absolute, reason: tooLarge(this.settings.maxFileBytes, stats.size) });
    else this.files.push({ path: absolute, relativePath: relative, bytes: stats.size, mtimeMs: stats.mtimeMs });
    return undefined;
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

/**
 * Git's precedence: the .gitignore nearest the path speaks first, and the
 * last matching rule in it decides; a file with no matching rule defers to
 * the .gitignore above. `ignore` answers for one rule set, but it also
 * counts a path as ignored when its rules ignore a parent folder, even one a
 * deeper .gitignore re-included with `!folder/`. The walk only tests paths
 * whose folders it entered (so are known not ignored); when a rule set
 * disagrees about such a folder, the path is tested again against a copy of
 * the rules that ends by re-including the folders on the way.
 */
function isGitignored(folder: Folder, relative: string, isFolder: boolean): boolean {
  for (let i = folder.ignores.length - 1; i >= 0; i--) {
    const file = folder.ignores[i]!;
    const local = localPath(file, relative);
    if (local === undefined) continue;
    let result = safeTest(file.rules, isFolder ? `${local}/` : local);
    if (result.ignored) {
      const parent = localPath(file, folder.relative);
      if (parent && safeTest(file.rules, `${parent}/`).ignored) {
        result = safeTest(clearedRules(file, parent), isFolder ? `${local}/` : local);
      }
    }
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/** The path relative to the .gitignore's folder, or undefined if the path is not below it. */
function localPath(file: IgnoreFile, relative: string): string | undefined {
  if (file.base === '') return (relative ? file.prefix + relative : file.prefix.slice(0, -1)) || undefined;
  if (relative === file.base) return undefined;
  return relative.startsWith(`${file.base}/`) ? relative.slice(file.base.length + 1) : undefined;
}

function clearedRules(file: IgnoreFile, folder: string): Ignore {
  let rules = file.cleared.get(folder);
  if (!rules) {
    const escaped = folder.split('/').map(escapeGlob);
    const negations = escaped.map((_, i) => `!/${escaped.slice(0, i + 1).join('/')}/`);
    rules = ignore({ ignorecase: IGNORE_CASE }).add(file.rules).add(negations);
    file.cleared.set(folder, rules);
  }
  return rules;
}

function escapeGlob(name: string): string {
  return name.replace(/[\\*?[\]!# ]/g, (char) => `\\${char}`);
}

/** `ignore` throws on paths it thinks are not relative (odd names like '..foo' are fine, but be safe). */
function safeTest(rules: Ignore, tested: string): { ignored: boolean; unignored: boolean } {
  try {
    return rules.test(tested);
  } catch {
    return { ignored: false, unignored: false };
  }
}

/** The rules of a .gitignore, undefined if there is none, or why it could not be read. */
function readIgnoreFile(file: string): Ignore | string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return ignore({ ignorecase: IGNORE_CASE }).add(text);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    return `unreadable .gitignore, not applied: ${ioMessage(error)}`;
  }
}

/**
 * The .gitignore files of the Git repository enclosing `root`, from the
 * repository's top down to root's parent: Git applies them to root's files
 * too. Nothing is applied above root unless a `.git` is found there.
 */
function repositoryIgnores(root: string): IgnoreFile[] {
  const above: string[] = [];
  let current = root;
  for (let level = 0; level < MAX_REPO_LEVELS; level++) {
    if (exists(path.join(current, '.git'))) {
      const files: IgnoreFile[] = [];
      for (const folder of above.reverse()) {
        const rules = readIgnoreFile(path.join(folder, '.gitignore'));
        if (rules === undefined || typeof rules === 'string') continue;
        const prefix = `${path.relative(folder, root).split(path.sep).join('/')}/`;
        files.push({ rules, prefix, base: '', cleared: new Map() });
      }
      return files;
    }
    const parent = path.dirname(current);
    if (parent === current) return [];
    current = parent;
    above.push(current);
  }
  return [];
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Helpers

function settingsFrom(options: LoadOptions): Settings {
  const extensions = options.extensions ?? DEFAULT_DOC_EXTENSIONS;
  if (!Array.isArray(extensions) || extensions.some((extension) => typeof extension !== 'string')) {
    throw new MemoryError('INVALID_INPUT', 'extensions must be a list of file extensions such as ".md".');
  }
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (typeof maxFileBytes !== 'number' || !(maxFileBytes > 0)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `maxFileBytes must be a positive number of bytes, got ${String(maxFileBytes)}.`,
    );
  }
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new MemoryError('INVALID_INPUT', `maxDepth must be a whole number of 0 or more, got ${String(maxDepth)}.`);
  }
  const extra = options.extraIgnore ?? [];
  if (!Array.isArray(extra) || extra.some((pattern) => typeof pattern !== 'string')) {
    throw new MemoryError('INVALID_INPUT', 'extraIgnore must be a list of gitignore-style patterns.');
  }
  return {
    extensions: new Set(
      extensions.map((extension) => {
        const lower = extension.trim().toLowerCase();
        return lower.startsWith('.') ? lower : `.${lower}`;
      }),
    ),
    maxFileBytes,
    maxDepth,
    respectGitignore: options.respectGitignore ?? true,
    extraIgnore: extra.length > 0 ? ignore({ ignorecase: IGNORE_CASE }).add(extra) : undefined,
    signal: options.signal,
  };
}

function resolveTarget(target: string): string {
  if (typeof target !== 'string' || target.trim() === '') {
    throw new MemoryError('INVALID_INPUT', 'A file or folder path to load documents from is required.');
  }
  return path.resolve(target);
}

function targetError(target: string, error: unknown): MemoryError {
  const code = errorCode(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new MemoryError('NOT_FOUND', `There is no file or folder at ${target}.`, { cause: error });
  }
  if (code === 'ELOOP') return new MemoryError('INVALID_INPUT', `${target} is a symlink loop.`, { cause: error });
  return new MemoryError('INVALID_INPUT', `Cannot read ${target}: ${ioMessage(error)}.`, { cause: error });
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new MemoryError('CANCELLED', 'Loading the documents was cancelled.', { cause: signal.reason });
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function ioReason(error: unknown): string {
  return `unreadable: ${ioMessage(error)}`;
}

/** Node's message, which names the code ('EACCES: permission denied, open ...'), or the code and message. */
function ioMessage(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}

function tooLarge(limit: number, size: number): string {
  return `larger than ${formatBytes(limit)} (${formatBytes(size)})`;
}

function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1024 * 1024 * 1024, 'GB'],
    [1024 * 1024, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * An entry of a folder by its name, as readdir gives it (no separators, no
 * `..`): path.join would normalise the whole path again, for every file of the walk.
 */
function childPath(folder: string, name: string): string {
  return folder.endsWith(path.sep) ? folder + name : folder + path.sep + name;
}

/** '' for a path at the root, 'a/b' for 'a/b/c.md'. */
function parentOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash < 0 ? '' : relative.slice(0, slash);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byRelativePath(a: { relativePath: string }, b: { relativePath: string }): number {
  return compare(a.relativePath, b.relativePath);
}

function byPath(a: { path: string; reason: string }, b: { path: string; reason: string }): number {
  return compare(a.path, b.path) || compare(a.reason, b.reason);
}

/** `fn` over `items`, at most `limit` at a time, results in input order; stops early on abort. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal | undefined,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      checkAborted(signal);
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  checkAborted(signal);
  return results;
}
