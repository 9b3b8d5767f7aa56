import { promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from '../errors';
import { isInside, outsideReason } from '../paths';
import { secretFileReason } from '../secrets/files';
import { checkSecretPolicy, type SecretPolicy } from '../secrets/guard';
import { isArray } from '../validation';
import { newRules } from './loader-ignore';
import { readListedFile } from './loader-read';
import type { ListedFile, ListResult, LoadedFile, LoadResult, SkippedFile } from './loader-types';
import { byPath, checkAborted, errorCode, ioMessage, tooLarge } from './loader-util';
import { type Settings, Walker } from './loader-walk';

/**
 * Finds the documents of a folder to ingest and reads them: the walk skips
 * `.git`, `node_modules`, hidden folders and whatever the tree's
 * `.gitignore` files (and `extraIgnore`) exclude, follows symlinks without
 * looping and never out of the folder, and reports every file it would have
 * loaded but could not (too big, binary, unreadable, a dangling link, a link
 * leading outside...) with a reason instead of failing the whole load.
 *
 * This module is the public API; the walk (loader-walk.ts), its ignore rules
 * (loader-ignore.ts) and the reading of one file (loader-read.ts) are apart.
 */

export type { ListedFile, ListResult, LoadedFile, LoadResult, SkippedFile } from './loader-types';

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
  /** Which documents holding secrets are skipped; see ReadOptions. */
  secrets?: SecretPolicy;
  /** Aborting stops the load promptly with MemoryError 'CANCELLED'. */
  signal?: AbortSignal;
}

export interface ReadOptions {
  /** Default: the larger of 1 MB and the size the listing saw, so a listed file is never refused for its size. */
  maxFileBytes?: number;
  /**
   * The folder the file was listed from (a listing's `root`): the file is
   * refused if its real path is not inside it when read. Required: a
   * document's name need not be its path below the root (see sourcePrefix),
   * so the root cannot be told from the file.
   */
  root: string;
  /**
   * The store's secret policy, for what a document's text does to it (see
   * secrets/files.ts): under 'block' one holding any secret is skipped,
   * under 'redact' (the default) only one that is mostly a secret, under
   * 'allow' none. Key, certificate and .env files are skipped by name
   * whatever the policy.
   */
  secrets?: SecretPolicy;
  signal?: AbortSignal;
}

/** Files read at once. */
const CONCURRENCY = 16;

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
  // it is not a regular file, too big, a link leading out of its folder (the
  // root its document is named from), a key or .env file, or (when read)
  // binary or holding secrets the policy keeps out.
  const root = path.dirname(absolute);
  const relativePath = path.basename(absolute);
  const skipped: SkippedFile[] = [];
  const files: ListedFile[] = [];
  const escape = await escapeOf(root, absolute);
  const secret = secretFileReason(relativePath);
  if (escape) skipped.push({ path: absolute, reason: escape });
  else if (secret) skipped.push({ path: absolute, reason: secret });
  else if (!stats.isFile()) skipped.push({ path: absolute, reason: 'not a regular file' });
  else if (stats.size > settings.maxFileBytes)
    skipped.push({ path: absolute, reason: tooLarge(settings.maxFileBytes, stats.size) });
  else files.push({ path: absolute, relativePath, bytes: stats.size, mtimeMs: stats.mtimeMs });
  return { root, files, skipped };
}

/** Why the (existing) `file` is not to be read from `root`: its real path is elsewhere. */
async function escapeOf(root: string, file: string): Promise<string | undefined> {
  try {
    const [realRoot, real] = await Promise.all([fsp.realpath(root), fsp.realpath(file)]);
    return isInside(realRoot, real) ? undefined : outsideReason(real);
  } catch (error) {
    throw targetError(file, error);
  }
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
 * size, depth, symlinks leading out). A folder is listed whole; a path that
 * does not exist is not listed (nor skipped); a path outside the root is skipped.
 */
export async function probeDocuments(
  root: string,
  paths: readonly string[],
  options: LoadOptions = {},
): Promise<ProbeResult> {
  const settings = settingsFrom(options);
  if (!isArray(paths) || paths.some((item) => typeof item !== 'string')) {
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
    const named = path.resolve(absolute, item);
    if (isInside(absolute, named)) inside.push(path.relative(absolute, named).split(path.sep).join('/'));
    else outside.push({ path: named, reason: 'outside the folder being synced' });
  }
  const listing = await new Walker(absolute, settings).probe(inside);
  return { ...listing, skipped: [...outside, ...listing.skipped].sort(byPath), paths: [...new Set(inside)].sort() };
}

/** Lists the documents under `target` (a folder or one file) and reads them. */
export async function loadDocuments(target: string, options: LoadOptions = {}): Promise<LoadResult> {
  const listing = await listDocuments(target, options);
  const { signal, maxFileBytes, secrets } = options;
  const results = await mapLimit(listing.files, CONCURRENCY, signal, (file) =>
    readDocument(file, { maxFileBytes, root: listing.root, secrets, signal }),
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
 * grew past the size cap, became unreadable, is not a regular file, now
 * leads outside its root or is binary comes back as a SkippedFile. Only an
 * abort throws (CANCELLED).
 */
export async function readDocument(
  file: { path: string; relativePath: string; bytes?: number },
  options: ReadOptions,
): Promise<LoadedFile | SkippedFile> {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw new MemoryError('INVALID_INPUT', 'readDocument needs the root the file was listed from.');
  }
  const maxFileBytes =
    options.maxFileBytes ?? Math.max(DEFAULT_MAX_FILE_BYTES, typeof file.bytes === 'number' ? file.bytes : 0);
  const secrets = options.secrets ?? 'redact';
  checkSecretPolicy(secrets);
  return readListedFile({ file, root: options.root, maxFileBytes, secrets, signal: options.signal });
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
  if (options.secrets !== undefined) checkSecretPolicy(options.secrets);
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
    extraIgnore: extra.length > 0 ? newRules(extra) : undefined,
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
