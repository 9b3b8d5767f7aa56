/**
 * Runs doc sync jobs one at a time: two syncs of one agent at once would
 * each read the other's half-written stamps. `cancelAll` aborts the running
 * job and every queued one (they start, see their signal aborted, and end).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private controller = new AbortController();
  private unfinished = 0;

  /** Whether a job is running or waiting. */
  get busy(): boolean {
    return this.unfinished > 0;
  }

  run<T>(job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    this.unfinished++;
    const result = this.tail.then(() => job(signal)).finally(() => this.unfinished--);
    // The next job waits for this one however it ends.
    this.tail = result.catch(() => undefined);
    return result;
  }

  cancelAll(): void {
    this.controller.abort();
    this.controller = new AbortController();
  }
}
