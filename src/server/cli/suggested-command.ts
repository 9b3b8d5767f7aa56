/**
 * Pieces of the commands the CLI tells the user to run, written as they
 * would type them in a POSIX shell.
 */
import * as path from 'node:path';

/** `word` as one shell word: as it is when it holds only plain path characters, single-quoted otherwise. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** ` --dir <folder>`, or nothing when `dir` is the default folder: what the user would type themselves. */
export function dirArgument(dir: string, defaultDir: string): string {
  return path.resolve(dir) === path.resolve(defaultDir) ? '' : ` --dir ${shellWord(dir)}`;
}
