/**
 * Runs `work` at most once per `ms`, however often it is requested, and
 * always once after the last request: a view or a count keeps up during a
 * long burst of store changes (a doc sync posts one every 50 ms for minutes)
 * without running for each, which a debounce would put off until the end.
 */
export function throttled(ms: number, work: () => void): { request(): void; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    request: () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        work();
      }, ms);
    },
    dispose: () => clearTimeout(timer),
  };
}
