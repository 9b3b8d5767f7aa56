import type * as NodeSqlite from 'node:sqlite';

import { MemoryError } from './errors';

type SqliteModule = typeof NodeSqlite;

let cached: SqliteModule | undefined;

/**
 * Loads `node:sqlite` lazily. Two reasons it is not a top-level import:
 * a host without it (Node < 22.13, an old VS Code) must get a clear
 * MemoryError instead of a crash at load time, and Node prints an
 * "SQLite is an experimental feature" warning on first load that would end up
 * in every CLI command's stderr; only that one warning is swallowed.
 */
export function loadSqlite(): SqliteModule {
  if (cached) return cached;
  // Kept unbound on purpose: it is put back as it was, and called with its own `this` below.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const originalEmit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/i.test(text)) return;
    return (originalEmit as (...args: unknown[]) => void).call(this, warning, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cached = require('node:sqlite') as SqliteModule;
    return cached;
  } catch (error) {
    throw new MemoryError(
      'SQLITE_UNAVAILABLE',
      `Workspace Memory needs the built-in node:sqlite module (Node.js 22.13 or newer; this is Node.js ${process.versions.node}).`,
      { cause: error },
    );
  } finally {
    process.emitWarning = originalEmit;
  }
}

/** True when this runtime can open a store; used to fail early with a helpful message. */
export function sqliteAvailable(): boolean {
  try {
    loadSqlite();
    return true;
  } catch {
    return false;
  }
}
