import * as fs from 'node:fs';
import * as path from 'node:path';

import { readBoundedSync } from '../bounded-read';
import { MemoryError } from '../errors';
import { isInside } from '../paths';
import { decode } from '../rag/loader-read';
import { secretFileReason } from '../secrets/files';
import { guardText } from '../secrets/guard';
import { sha256 } from '../store/hashing';
import type { Citation, CitationRequest } from '../types';
import { LIMITS } from '../validation';
import { type GitRenames, headCommit } from './git';
import { normalCitedPath, type WorkspaceFolder } from './workspace-paths';

/*
 * Citations: a memory's link to the code it is about (issue #13). A citation
 * names lines of a workspace file and keeps what they said, so a later check
 * can tell whether they still say it, moved, changed or are gone.
 */

/**
 * Workspace folders as given to Memory.open, checked: each with a name (the
 * first segment of a citation's path in a multi-root workspace) and an
 * existing folder, absolute once resolved; names are unique.
 */
export function normalizeFolders(folders: unknown): WorkspaceFolder[] {
  if (folders === undefined) return [];
  if (!Array.isArray(folders)) throw new MemoryError('INVALID_INPUT', 'workspaceFolders must be a list of folders.');
  const names = new Set<string>();
  return folders.map((folder: unknown) => {
    const { name, path: where } = (folder ?? {}) as Partial<WorkspaceFolder>;
    if (typeof name !== 'string' || !name || name.includes('/') || typeof where !== 'string' || !where) {
      throw new MemoryError('INVALID_INPUT', 'A workspace folder needs a name (without "/") and a path.');
    }
    if (names.has(name)) throw new MemoryError('INVALID_INPUT', `Two workspace folders are named "${name}".`);
    names.add(name);
    const resolved = path.resolve(where);
    if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
      throw new MemoryError('INVALID_INPUT', `The workspace folder ${resolved} is not a folder.`);
    }
    return { name, path: resolved };
  });
}

export type CitationState = 'valid' | 'moved' | 'changed' | 'missing';

export interface CitationCheck {
  state: CitationState;
  /**
   * For `moved`: the citation at its new lines (text and hash unchanged), in
   * the file git says its file was renamed to if it was (a new `path`).
   */
  moved?: Citation;
  /** For `changed`: the cited file was renamed (git says) to this path, and the lines are not found there. */
  renamedTo?: string;
}

/** Kept text per citation: enough to show what was cited, bounded so a memory stays small. */
export const MAX_CITED_LINES = 40;
/** A cited file is read whole to find moved lines; beyond this it is not code a memory cites by line. */
const MAX_CITED_FILE_BYTES = 4 * 1024 * 1024;

/** The lines of a text, whatever its line endings; a final line break ends the last line, it does not start one. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * A line as a check compares it: trailing whitespace dropped (editors add
 * and remove it unseen), everything else kept. Indentation is meaning in
 * Python and YAML, and so are the spaces inside a string.
 */
const comparable = (line: string): string => line.replace(/\s+$/, '');

/**
 * What a check compares lines by. A secret in them is redacted first, as
 * the kept text is: an unsalted hash of the raw lines would let anyone with
 * the store guess a short secret back from the rest of its line.
 */
function normalizedHash(lines: readonly string[], redacted: boolean): string {
  const text = lines.map(comparable).join('\n');
  return sha256(redacted ? redactText(text) : text);
}

/** The lines with any secret in them replaced by its redaction mark, as every write stores them. */
const redactText = (text: string): string => guardText(text, 'redact').text;

/** Whether kept text had a secret redacted out of it (its check then redacts the lines it compares too). */
const REDACTED = /\[redacted: [^\]]+\]/;

/** Where a citation path leads: its workspace folder, and the `/`-separated path inside it. */
interface CitedLocation {
  folder: WorkspaceFolder;
  rest: string;
}

/**
 * The folder and path inside it that a citation path names:
 * `<folder name>/<relative path>` in a multi-root workspace, the relative
 * path alone with one folder. Refused when it is absolute, climbs with `..`
 * or names no folder.
 */
function citedLocation(folders: readonly WorkspaceFolder[], cited: string): CitedLocation {
  const relative = normalCitedPath(cited);
  if (!relative || path.isAbsolute(cited.trim()) || relative.split('/').includes('..')) {
    throw new MemoryError('INVALID_INPUT', `A citation needs a path inside the workspace, not "${cited}".`);
  }
  let folder = folders.length === 1 ? folders[0] : undefined;
  let rest = relative;
  if (folders.length > 1) {
    const [first, ...tail] = relative.split('/');
    folder = folders.find((candidate) => candidate.name === first);
    rest = tail.join('/');
  }
  if (!folder || !rest) {
    const names = folders.map((candidate) => candidate.name).join(', ');
    throw new MemoryError(
      'INVALID_INPUT',
      folders.length === 0
        ? 'Citations need a workspace folder to resolve against.'
        : `A citation's path starts with its workspace folder's name (${names}), not "${cited}".`,
    );
  }
  return { folder, rest };
}

/** A citation path for `rest` inside `folder`: led by the folder's name in a multi-root workspace. */
function citedPathOf(folders: readonly WorkspaceFolder[], folder: WorkspaceFolder, rest: string): string {
  return folders.length > 1 ? `${folder.name}/${rest}` : rest;
}

/**
 * The file a citation path names (see citedLocation). Refused unless it
 * leads, every link resolved, to a file inside its folder.
 */
export function citedFile(folders: readonly WorkspaceFolder[], cited: string): string {
  const { folder, rest } = citedLocation(folders, cited);
  const file = path.join(folder.path, rest);
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    return file;
  }
  if (!isInside(fs.realpathSync.native(folder.path), real)) {
    throw new MemoryError('INVALID_INPUT', `The cited file ${cited} leads outside its workspace folder.`);
  }
  return real;
}

/**
 * The commit the git repository holding a citation's workspace folder is at
 * now, if the folder is in one (and the path names a folder at all).
 */
export function folderCommit(folders: readonly WorkspaceFolder[], cited: string): string | undefined {
  try {
    return headCommit(citedLocation(folders, cited).folder.path);
  } catch {
    return undefined;
  }
}

/** A cited file's lines, or undefined when it is gone (or no longer a readable text file). */
function readLines(file: string): string[] | undefined {
  let read;
  try {
    read = readBoundedSync(file, MAX_CITED_FILE_BYTES);
  } catch {
    return undefined;
  }
  if (read.kind !== 'read') return undefined;
  const text = decode(read.bytes);
  return text === undefined ? undefined : linesOf(text);
}

/** How many cited files a process keeps the lines of. */
const CACHED_FILES = 256;
/** How many resolved citation paths a process keeps. */
const MAX_RESOLVED = 50_000;

/** One version of a cited file: its lines, and what checks found of citations in it. */
interface CachedFile {
  size: number;
  mtimeMs: number;
  lines: string[] | undefined;
  /** Check results by citation (hash and lines): the same citation in the same file gets the same answer. */
  verdicts: Map<string, CitationCheck>;
}

/**
 * Cited files' lines, read again only when a file's size or modification
 * time changed, and what was found of each citation in them: recall checks
 * the citations of every item it hands a model, and most of the time no
 * cited file changed since the last look, so a check is then one stat.
 */
export class CitedFiles {
  private readonly files = new Map<string, CachedFile>();
  /** Cited paths resolved to their real files (links followed, checked to stay inside their folder). */
  private readonly resolved = new Map<string, string>();

  /**
   * citedFile, remembered: resolving follows every link of the path, several
   * system calls a citation, where the file's stat alone tells whether it
   * changed. A remembered file that is gone is resolved again next time.
   */
  resolve(folders: readonly WorkspaceFolder[], cited: string): string {
    const key = `${folders.map((folder) => folder.path).join('\0')}\0${cited}`;
    let file = this.resolved.get(key);
    if (file === undefined) {
      file = citedFile(folders, cited);
      if (this.resolved.size >= MAX_RESOLVED) this.resolved.clear();
      this.resolved.set(key, file);
    }
    return file;
  }

  forget(folders: readonly WorkspaceFolder[], cited: string): void {
    this.resolved.delete(`${folders.map((folder) => folder.path).join('\0')}\0${cited}`);
  }

  /**
   * The file as it is now, or undefined when it is gone or is no longer a
   * plain file (a link put in its place may lead anywhere: the next check
   * resolves the path again, and refuses what leads out of the workspace).
   */
  current(file: string): CachedFile | undefined {
    const stats = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!stats?.isFile()) {
      this.files.delete(file);
      return undefined;
    }
    const known = this.files.get(file);
    if (known && known.size === stats.size && known.mtimeMs === stats.mtimeMs) return known;
    const fresh: CachedFile = { size: stats.size, mtimeMs: stats.mtimeMs, lines: readLines(file), verdicts: new Map() };
    this.files.delete(file);
    this.files.set(file, fresh);
    // Oldest first in a Map: the one read longest ago goes.
    if (this.files.size > CACHED_FILES) this.files.delete(this.files.keys().next().value!);
    return fresh;
  }

  lines(file: string): string[] | undefined {
    return this.current(file)?.lines;
  }
}

/**
 * Why a file cannot be cited, if it cannot: credentials by purpose (.env,
 * keys, certificates): nothing in them is worth remembering, and their lines
 * would be kept in the store's history (document sync leaves the same files
 * out). Judged by the name given and by the file it leads to: a link named
 * notes.txt may lead to .env.
 */
function secretReason(cited: string, file: string): string | undefined {
  return secretFileReason(path.posix.basename(normalCitedPath(cited))) ?? secretFileReason(path.basename(file));
}

/**
 * A citation of the lines `request` names, with what they say now, and the
 * commit its folder is at where the folder is in a git repository (what a
 * later check asks git about renames since). A path outside the workspace,
 * a missing file or a range beyond the file is INVALID_INPUT, saying which.
 */
export function anchorCitation(folders: readonly WorkspaceFolder[], request: CitationRequest): Citation {
  const { startLine, endLine } = request;
  if (!Number.isInteger(startLine) || !Number.isInteger(endLine) || startLine < 1 || endLine < startLine) {
    throw new MemoryError(
      'INVALID_INPUT',
      `A citation's lines run from startLine to endLine, both whole numbers from 1 (got ${startLine}-${endLine}).`,
    );
  }
  const { cited, file } = citablePath(folders, request.path);
  if (!fs.existsSync(file)) throw new MemoryError('INVALID_INPUT', `The cited file ${cited} does not exist.`);
  if (fs.statSync(file).size > MAX_CITED_FILE_BYTES) {
    throw new MemoryError(
      'INVALID_INPUT',
      `The cited file ${cited} is over ${MAX_CITED_FILE_BYTES / 1024 / 1024} MB, too large to cite by line; name it by an appliesTo glob instead.`,
    );
  }
  const lines = readLines(file);
  if (!lines)
    throw new MemoryError('INVALID_INPUT', `The cited file ${request.path} is not a text file in the workspace.`);
  if (endLine > lines.length) {
    throw new MemoryError(
      'INVALID_INPUT',
      `The citation's lines ${startLine}-${endLine} are beyond the end of ${request.path} (${lines.length} lines).`,
    );
  }
  const range = lines.slice(startLine - 1, endLine);
  const shown = redactText(range.join('\n'));
  const redacted = shown !== range.join('\n');
  const commit = folderCommit(folders, request.path);
  return {
    path: cited,
    startLine,
    endLine,
    // At most 40 lines and the store's limit on kept text: one minified line can be megabytes.
    text: cutText(shown.split('\n').slice(0, MAX_CITED_LINES).join('\n')),
    hash: normalizedHash(range, redacted),
    ...(request.symbol ? { symbol: request.symbol } : {}),
    ...(commit ? { commit } : {}),
  };
}

/** Folders no citation may point into: git's own (a config can hold credentials) and the store's. */
const UNCITABLE = new Set(['.git', '.workspace-memory']);

/**
 * A path a citation may name, normalised, and the file it leads to:
 * inside its workspace folder (every link followed), not in git's or the
 * store's folder, not a file of credentials. INVALID_INPUT saying why not.
 */
function citablePath(folders: readonly WorkspaceFolder[], given: string): { cited: string; file: string } {
  const file = citedFile(folders, given);
  const cited = citableName(given);
  // A link named notes.txt may lead to .env.
  const secret = secretReason(cited, file);
  if (secret) throw new MemoryError('INVALID_INPUT', `${cited} cannot be cited: it is a ${secret}.`);
  return { cited, file };
}

/**
 * The path of a citation given whole, checked as far as it can be without
 * its file: not into git's or the store's folder, not a file of
 * credentials, not through a link out of the workspace. A path naming a
 * folder that is not open now is kept: the citation reads as missing there.
 */
function wholeCitationPath(folders: readonly WorkspaceFolder[], given: string): string {
  let location: CitedLocation;
  try {
    location = citedLocation(folders, given);
  } catch {
    return normalCitedPath(given);
  }
  const file = path.join(location.folder.path, location.rest);
  return fs.existsSync(file) ? citablePath(folders, given).cited : citableName(given);
}

/** A path refused for its name alone: inside git's or the store's folder, or a file of credentials. */
function citableName(given: string): string {
  const cited = normalCitedPath(given);
  if (cited.split('/').some((part) => UNCITABLE.has(part))) {
    throw new MemoryError('INVALID_INPUT', `${cited} cannot be cited: it is inside git's or the store's own folder.`);
  }
  const secret = secretFileReason(path.posix.basename(cited));
  if (secret) throw new MemoryError('INVALID_INPUT', `${cited} cannot be cited: it is a ${secret}.`);
  return cited;
}

/**
 * Whether a citation still holds: its lines say what they said (valid), the
 * same lines are elsewhere in the file (moved, the nearest place to the old
 * one), they say something else (changed), or the file is gone (missing).
 */
export function checkCitation(
  folders: readonly WorkspaceFolder[],
  citation: Citation,
  files?: CitedFiles,
): CitationCheck {
  let file: string;
  try {
    file = files ? files.resolve(folders, citation.path) : citedFile(folders, citation.path);
  } catch {
    return { state: 'missing' };
  }
  const cached = files?.current(file);
  const lines = files ? cached?.lines : readLines(file);
  if (!lines) {
    files?.forget(folders, citation.path);
    return { state: 'missing' };
  }
  const key = `${citation.hash} ${citation.startLine} ${citation.endLine}`;
  const known = cached?.verdicts.get(key);
  if (known) return known;
  const verdict = findLines(lines, citation);
  cached?.verdicts.set(key, verdict);
  return verdict;
}

/**
 * checkCitation, and for a file that is gone, the file git says it was
 * renamed to (GitRenames): the lines there, in place or elsewhere, have
 * `moved` to the new path. Lines found nowhere in it are `changed`, not
 * `missing`: git paired the two files by their content, so the code the
 * citation is about is still there, renamed and edited, and what is said of
 * it needs looking at as after any change to it. A rename to a path that
 * leads out of the folder (a link) or to a secret file is not followed: the
 * citation stays missing. Asynchronous, as asking git is; recall's check of
 * each item it hands a model (checkCitation) runs no process, so there a
 * renamed file stays missing until a full check follows the rename and
 * writes the new path.
 */
export async function checkCitationFollowingRenames(
  folders: readonly WorkspaceFolder[],
  citation: Citation,
  files: CitedFiles,
  renames: GitRenames,
): Promise<CitationCheck> {
  const check = checkCitation(folders, citation, files);
  if (check.state !== 'missing') return check;
  const renamed = await renamedPath(folders, citation, renames);
  if (renamed === undefined) return check;
  const there = checkCitation(folders, { ...citation, path: renamed }, files);
  if (there.state === 'valid') return { state: 'moved', moved: { ...citation, path: renamed } };
  if (there.state === 'changed') return { state: 'changed', renamedTo: renamed };
  // Moved within the renamed file (its `moved` has the new path), or gone from there too.
  return there.state === 'moved' ? there : check;
}

/** The citation path git says a cited file was renamed to, if it stays inside its folder and is no secret file. */
async function renamedPath(
  folders: readonly WorkspaceFolder[],
  citation: Citation,
  renames: GitRenames,
): Promise<string | undefined> {
  let location: CitedLocation;
  try {
    location = citedLocation(folders, citation.path);
  } catch {
    return undefined;
  }
  const rest = await renames.renamedTo(location.folder.path, location.rest, citation.commit);
  if (rest === undefined) return undefined;
  const cited = citedPathOf(folders, location.folder, rest);
  try {
    return secretReason(cited, citedFile(folders, cited)) ? undefined : cited;
  } catch {
    // citedFile refused it: a link on the new path leads out of the folder.
    return undefined;
  }
}

/** Kept text cut to the store's limit, marked where it was cut. */
function cutText(text: string): string {
  return text.length <= LIMITS.maxCitationText ? text : `${text.slice(0, LIMITS.maxCitationText - 1)}…`;
}

/** Where the cited lines are in `lines`: in place, elsewhere (the nearest), or nowhere. */
function findLines(lines: readonly string[], citation: Citation): CitationCheck {
  const span = citation.endLine - citation.startLine + 1;
  const redacted = REDACTED.test(citation.text);
  const at = (start: number) => normalizedHash(lines.slice(start, start + span), redacted);
  if (citation.endLine <= lines.length && at(citation.startLine - 1) === citation.hash) return { state: 'valid' };
  // Most of the block still stands where it was: it was edited there. A copy of the old lines elsewhere
  // in the file (two functions ending alike) is not where it went.
  if (editedInPlace(lines, citation)) return { state: 'changed' };
  // Nearest first: the same lines often appear twice (a repeated block), and the move is usually small.
  const starts = Array.from({ length: Math.max(lines.length - span + 1, 0) }, (_, start) => start).sort(
    (a, b) => Math.abs(a - citation.startLine + 1) - Math.abs(b - citation.startLine + 1),
  );
  // A cheap test of the first line before hashing the whole window; not where a secret was cut out of it.
  const first = citation.text.split('\n')[0];
  const quick = first !== undefined && !REDACTED.test(first) && !first.endsWith('…') ? comparable(first) : undefined;
  for (const start of starts) {
    if (quick !== undefined && comparable(lines[start]!) !== quick) continue;
    if (at(start) === citation.hash) {
      return { state: 'moved', moved: { ...citation, startLine: start + 1, endLine: start + span } };
    }
  }
  return { state: 'changed' };
}

/** A line that says something of its own: not blank, not a lone brace or bracket. */
const telling = (line: string): boolean => /[^\s{}()[\];,]/.test(line) && line.trim().length > 3;

/**
 * Whether the cited block was edited where it stands rather than moved: of
 * its telling lines (as kept, up to 40, none with a secret cut out), at
 * least half are still on their own lines. A block that moved holds other
 * lines at its old place; one edited in place keeps most of its own.
 */
function editedInPlace(lines: readonly string[], citation: Citation): boolean {
  const kept = citation.text.split('\n');
  let compared = 0;
  let same = 0;
  kept.forEach((line, index) => {
    const last = index === kept.length - 1 && line.endsWith('…');
    if (last || REDACTED.test(line) || !telling(line)) return;
    compared++;
    const now = lines[citation.startLine - 1 + index];
    if (now !== undefined && comparable(now) === comparable(line)) same++;
  });
  return compared >= 2 && same * 2 >= compared;
}

/**
 * Citations as a write stores them: each given as a path and lines is
 * anchored (what the lines say now is read and kept); one given whole (an
 * import, a re-anchoring) is kept as it is.
 */
export function anchorAll(
  folders: readonly WorkspaceFolder[],
  citations: readonly (CitationRequest | Citation)[],
): Citation[] {
  const anchored = citations.map((cited) => {
    if (!('hash' in cited && typeof cited.hash === 'string' && typeof cited.text === 'string')) {
      return anchorCitation(folders, cited);
    }
    // Kept as given (its file may have changed since, or be gone), but it must name a place a
    // citation may name: what a caller hands in whole is checked like what the store reads itself.
    return { ...cited, path: wholeCitationPath(folders, cited.path) };
  });
  // The same lines cited twice are one citation.
  const seen = new Set<string>();
  return anchored.filter(({ path: where, startLine, endLine }) => {
    const key = `${where}:${startLine}-${endLine}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
