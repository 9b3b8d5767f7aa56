import type * as vscode from 'vscode';

/**
 * Collects changed paths per folder and hands them over together once no
 * new change came for `delayMs()`: a save, a branch switch or a formatter
 * run touching many files becomes one sync per folder, not one per event.
 */
export class PathBatcher implements vscode.Disposable {
  private readonly pending = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly delayMs: () => number,
    private readonly flush: (batches: Map<string, string[]>) => void,
  ) {}

  /** `root` names the folder; `relative` is the changed path below it. */
  add(root: string, relative: string): void {
    let paths = this.pending.get(root);
    if (!paths) this.pending.set(root, (paths = new Set()));
    paths.add(relative);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.emit(), this.delayMs());
  }

  private emit(): void {
    this.timer = undefined;
    const batches = new Map([...this.pending].map(([root, paths]) => [root, [...paths].sort()]));
    this.pending.clear();
    if (batches.size > 0) this.flush(batches);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.pending.clear();
  }
}
