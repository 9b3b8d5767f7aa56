/**
 * Keeps the extension host's event loop free while the worker writes in
 * bulk. Node delivers all the messages queued on a port in one go, so a doc
 * sync that reported each of its 28,000 chunk writes separately would block
 * the host for hundreds of milliseconds; changes and progress are therefore
 * coalesced here, in the worker.
 */
import type { Response } from './protocol';

/** How long changes are gathered before one message reports them all. */
const CHANGE_WINDOW_MS = 50;
/** Above this many ids a report just says "many changed": listeners refresh everything anyway. */
const MAX_IDS = 500;
/** Progress reports per second, at most. */
const PROGRESS_INTERVAL_MS = 100;

export class ChangeBatcher {
  private ids = new Set<string>();
  private all = false;
  private replaced = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly post: (message: Response) => void) {}

  add(id: string): void {
    if (!this.all) this.ids.add(id);
    if (this.ids.size > MAX_IDS) this.everything();
    else this.schedule();
  }

  /**
   * The whole state changed (too many ids to list, or `replaced` by a restore
   * or an import): an empty id list means "everything".
   */
  everything(replaced = false): void {
    this.all = true;
    this.replaced ||= replaced;
    this.ids.clear();
    this.schedule();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.all && this.ids.size === 0) return;
    this.post({
      kind: 'changed',
      origin: 'local',
      entityIds: this.all ? [] : [...this.ids],
      ...(this.replaced ? { replaced: true } : {}),
    });
    this.ids = new Set();
    this.all = false;
    this.replaced = false;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), CHANGE_WINDOW_MS);
  }
}

/**
 * Passes on at most one progress report per interval, and always the last
 * one (done === total), so a bar reaches its end.
 */
export function throttle<T>(send: (value: T) => void, intervalMs = PROGRESS_INTERVAL_MS): (value: T) => void {
  let last = 0;
  return (value: T) => {
    const now = performance.now();
    const progress = value as { done?: number; total?: number } | undefined;
    const final = progress?.done !== undefined && progress.done === progress.total;
    if (!final && now - last < intervalMs) return;
    last = now;
    send(value);
  };
}
