/** The shapes the document loader's parts pass to each other and to its callers (see loader.ts). */

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
  /**
   * Human readable: 'binary file', 'larger than 1 MB (3.2 MB)', 'symlink loop', 'ignored by .gitignore',
   * 'symlink leads outside the synced folder (/etc/passwd)'...
   */
  reason: string;
}

export interface ListResult {
  root: string;
  files: ListedFile[];
  skipped: SkippedFile[];
}

export interface LoadResult {
  root: string;
  files: LoadedFile[];
  skipped: SkippedFile[];
}
