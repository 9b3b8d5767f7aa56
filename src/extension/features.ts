/**
 * Registers the extension's features one at a time, so that one that throws
 * (a view that cannot be created, an API this VS Code lacks) is logged and
 * reported while the others still register: a broken view must not take
 * chat, the tools and the commands down with it. No `vscode` import, so the
 * rule is unit-tested under plain Node.
 */
export class Features {
  private readonly failures: string[] = [];

  constructor(private readonly onFailure: (feature: string, error: unknown) => void) {}

  /** The features that failed to register, in order. */
  get failed(): readonly string[] {
    return this.failures;
  }

  /** Runs one feature's registration; undefined (and reported) when it throws. */
  register<T>(feature: string, register: () => T): T | undefined {
    try {
      return register();
    } catch (error) {
      this.failures.push(feature);
      this.onFailure(feature, error);
      return undefined;
    }
  }
}

/** What a feature built on another one needs; throws (so that feature fails too, and says why) when it is missing. */
export function requireFeature<T>(value: T | undefined, feature: string): T {
  if (value === undefined) throw new Error(`it needs the ${feature}, which failed to register`);
  return value;
}
