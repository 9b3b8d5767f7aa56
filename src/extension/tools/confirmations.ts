/**
 * Which tool calls the person confirmed. VS Code's API does not tell a
 * tool's `invoke` whether a confirmation came before it: `prepareInvocation`
 * asks for one, and VS Code invokes the tool only once it is given, by the
 * person in the chat, or by an "Always Allow" the person chose for that
 * tool. So the calls prepared with a confirmation are remembered here, by
 * tool and input, and `invoke` takes its call's mark: a write with one
 * counts as reviewed. No `vscode` import, so it is unit-tested under plain Node.
 */

/** A confirmation waits this long for its call (the person may take a while to answer). */
const CONFIRM_TTL_MS = 30 * 60_000;
/** Calls remembered at most: prepared calls that are never invoked (cancelled) must not pile up. */
const MAX_REMEMBERED = 500;

export class Confirmations {
  /** When each prepared call's mark expires, per tool and input; a call prepared twice has two. */
  private readonly marks = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A call of `tool` with `input` was prepared with a confirmation. */
  asked(tool: string, input: unknown): void {
    const now = this.now();
    for (const [key, expiries] of this.marks) {
      const live = expiries.filter((expiry) => expiry > now);
      if (live.length > 0) this.marks.set(key, live);
      else this.marks.delete(key);
    }
    // The oldest go first when too many calls were never invoked.
    while (this.marks.size >= MAX_REMEMBERED) this.marks.delete(this.marks.keys().next().value!);
    const key = keyOf(tool, input);
    this.marks.set(key, [...(this.marks.get(key) ?? []), now + CONFIRM_TTL_MS]);
  }

  /** Whether this call was prepared with a confirmation; its mark is used up. */
  take(tool: string, input: unknown): boolean {
    const key = keyOf(tool, input);
    const now = this.now();
    const live = (this.marks.get(key) ?? []).filter((expiry) => expiry > now);
    const confirmed = live.length > 0;
    live.shift();
    if (live.length > 0) this.marks.set(key, live);
    else this.marks.delete(key);
    return confirmed;
  }
}

function keyOf(tool: string, input: unknown): string {
  return `${tool}\0${JSON.stringify(input ?? {})}`;
}
