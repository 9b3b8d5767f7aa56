import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from '../../core/errors';
import { keepStoreOutOfGit } from '../../core/paths';

/** The token's file, in the store's folder. */
export const TOKEN_FILE = 'http-token';

/** 32 random bytes, as base64url: 43 characters. */
const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43,512}$/;

// O_NOFOLLOW: a link planted at the token's name must not make the server read or write another file.
// Windows has no such flag (nor symlinks an unprivileged user can make), hence the fallback to none.
const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** Checks bearer tokens against the one the server was started with. */
export interface TokenCheck {
  matches(given: string): boolean;
}

/**
 * A check that compares SHA-256 digests in constant time: both sides are
 * 32 bytes whatever was sent, so neither the comparison's time nor an early
 * length mismatch tells a caller how much of a guess was right.
 */
export function tokenCheck(token: string): TokenCheck {
  const expected = digest(token);
  return { matches: (given) => timingSafeEqual(digest(given), expected) };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export interface LoadedToken {
  token: string;
  file: string;
  /** True when this start made it. */
  created: boolean;
}

/**
 * The server's token from `<storeDir>/http-token`, made on first start.
 * A token file that others can read, that is not the user's own, or that
 * is not a regular file is refused rather than fixed: if anyone else could
 * read it, it may have leaked already, and a chmod would not take that
 * back. The message says how to get a fresh one.
 */
export function loadOrCreateToken(storeDir: string): LoadedToken {
  const file = path.join(storeDir, TOKEN_FILE);
  const existing = readToken(file);
  if (existing !== undefined) return { token: existing, file, created: false };
  // A store the MCP server or the extension made has no .gitignore (only `init` writes one), and a token
  // committed with the workspace is a token published.
  keepStoreOutOfGit(storeDir);
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  if (createExclusive(file, `${token}\n`)) return { token, file, created: true };
  // Another server starting on the same store made it first: use that one.
  const theirs = readToken(file);
  if (theirs === undefined) throw new MemoryError('INVALID_INPUT', `${file} disappeared while it was being read.`);
  return { token: theirs, file, created: false };
}

function cannotWrite(target: string, error: unknown): MemoryError {
  return new MemoryError('INVALID_INPUT', `Cannot write ${target}: ${(error as Error).message}`, { cause: error });
}

/** The token in `file`, or undefined when there is no such file. */
function readToken(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refused(file, 'is a symbolic link');
    throw new MemoryError('INVALID_INPUT', `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    assertPrivate(file, fs.fstatSync(fd));
    const token = fs.readFileSync(fd, 'utf8').trim();
    if (!TOKEN_PATTERN.test(token)) {
      throw refused(file, 'does not hold a token (43 to 512 characters of A-Z, a-z, 0-9, - and _)');
    }
    return token;
  } finally {
    fs.closeSync(fd);
  }
}

/** Permission bits are the guard on POSIX systems; Windows keeps the file private through the profile folder's ACLs. */
function assertPrivate(file: string, stats: fs.Stats): void {
  if (!stats.isFile()) throw refused(file, 'is not a regular file');
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw refused(file, `belongs to another user (uid ${stats.uid})`);
  if ((stats.mode & 0o077) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(3, '0');
    throw refused(file, `can be read or written by other users (mode ${mode}), so the token may have leaked`);
  }
}

function refused(file: string, why: string): MemoryError {
  return new MemoryError(
    'INVALID_INPUT',
    `The HTTP token file ${file} ${why}. Delete it and start the server again to get a new token (clients then need the new one).`,
  );
}

/**
 * Writes `text` to `file` only if no file is there, in one step a reader
 * can never see half of: written and flushed under a temporary name with
 * mode 0600, then hard-linked to its name (which fails if the name is
 * taken). False when it was taken.
 */
function createExclusive(file: string, text: string): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(
      temporary,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NO_FOLLOW,
      0o600,
    );
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotWrite(file, error);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
