import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../../core/errors';

/** Reads a file the user named (--file, import), failing with a reason they can act on. */
export function readTextFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw fileError('read', file, error);
  }
}

/** Writes a file the user named (export --out), failing with a reason they can act on. */
export function writeTextFile(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text);
  } catch (error) {
    throw fileError('write', file, error);
  }
}

function fileError(verb: 'read' | 'write', file: string, error: unknown): MemoryError {
  return new MemoryError('INVALID_INPUT', `Cannot ${verb} ${file}: ${problem(verb, file, error)}.`, { cause: error });
}

/** Node's own messages ("ENOENT: no such file or directory, open ...") say it in its terms, not the user's. */
function problem(verb: 'read' | 'write', file: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      // Writing creates the file, so what is missing is its folder.
      return verb === 'write' ? `the folder ${path.dirname(path.resolve(file))} does not exist` : 'no such file';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return (error as Error).message;
  }
}
