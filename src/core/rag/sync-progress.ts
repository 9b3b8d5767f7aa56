/**
 * Where a document sync is. `done` and `total` count the whole job: each
 * listed file once when it is checked (and read, if it changed), then each
 * document once when its chunks are written (added, replaced, renamed or
 * removed). `total` grows while files are checked, as each changed file adds
 * a write to come, and is final once writing starts: `done` reaches it only
 * when the last chunk is written.
 */
export interface SyncProgress {
  phase: 'reading' | 'writing';
  done: number;
  total: number;
  /** The file just checked, or the document just written. */
  path?: string;
}

/** Counts a sync's steps and reports each to `onProgress`. */
export class SyncProgressCounter {
  private done = 0;
  private total: number;

  constructor(
    listed: number,
    private readonly onProgress: ((progress: SyncProgress) => void) | undefined,
  ) {
    this.total = listed;
  }

  /** A listed file was checked (read if it changed). */
  checked(path: string): void {
    this.step('reading', 1, path);
  }

  /** `count` more documents will be written. */
  expect(count: number): void {
    this.total += count;
  }

  /** `count` documents were written, the last of them `path`. */
  wrote(count: number, path: string): void {
    if (count > 0) this.step('writing', count, path);
  }

  private step(phase: SyncProgress['phase'], count: number, path: string): void {
    this.done += count;
    this.onProgress?.({ phase, done: this.done, total: this.total, path });
  }
}
