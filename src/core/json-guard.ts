/**
 * Keys refused in every JSON a caller hands the store. Assigned on a plain
 * object, `__proto__` replaces its prototype instead of making a key, so
 * zod, Object.assign and the canonical hashing would all lose it without a
 * word: refusing it by name is simpler and safer than keeping it as data
 * through every copy the store makes. `constructor` and `prototype` are
 * ordinary own keys once parsed (they survive every copy, and a test
 * round-trips them), so metadata such as `{"constructor": "Ford"}` is kept.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__']);

export interface JsonBounds {
  /** Most levels of nested objects and arrays; the value itself, if a container, is level 1. */
  maxDepth: number;
  /** Most bytes: UTF-8 bytes of every string and key, plus 1 for every other value. */
  maxBytes?: number;
}

export type JsonProblemKind = 'depth' | 'size' | 'key';

export interface JsonProblem {
  kind: JsonProblemKind;
  /** Where, as keys and indexes from the value's root. */
  path: (string | number)[];
  message: string;
}

interface Node {
  value: unknown;
  depth: number;
  parent: Node | undefined;
  key: string | number | undefined;
}

/**
 * The first problem of `value` as caller-supplied JSON: nested deeper than
 * the bound, bigger than the bound, or holding a forbidden key. Iterative, so
 * a value nested ten thousand deep is measured instead of overflowing the
 * stack; it stops at the first problem, so a huge value costs no more than
 * the bound.
 */
export function findJsonProblem(value: unknown, bounds: JsonBounds): JsonProblem | undefined {
  const maxBytes = bounds.maxBytes ?? Infinity;
  let bytes = 0;
  const stack: Node[] = [{ value, depth: 1, parent: undefined, key: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const current = node.value;
    if (typeof current === 'string') bytes += Buffer.byteLength(current, 'utf8');
    else bytes += 1;
    if (bytes > maxBytes) {
      return problem('size', node, `is larger than ${maxBytes} bytes (the UTF-8 bytes of its strings and keys)`);
    }
    if (current === null || typeof current !== 'object') continue;
    if (node.depth > bounds.maxDepth) return problem('depth', node, `is nested deeper than ${bounds.maxDepth} levels`);
    if (Array.isArray(current)) {
      // Pushed in reverse so problems are found in document order.
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index] as unknown, depth: node.depth + 1, parent: node, key: index });
      }
      continue;
    }
    // Object.keys returns an own `__proto__` key (JSON.parse makes one), which is the point.
    const keys = Object.keys(current);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      const child: Node = { value: undefined, depth: node.depth + 1, parent: node, key };
      if (FORBIDDEN_KEYS.has(key)) {
        return problem('key', child, "is not allowed as a key (it can reach an object's prototype); rename it");
      }
      bytes += Buffer.byteLength(key, 'utf8');
      child.value = (current as Record<string, unknown>)[key];
      stack.push(child);
    }
  }
  return undefined;
}

function problem(kind: JsonProblemKind, node: Node, message: string): JsonProblem {
  const path: (string | number)[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) path.push(at.key);
  return { kind, path: path.reverse(), message };
}

/** `a.b[2].c`, cut in the middle when long (a path ten thousand levels deep is no help). */
export function formatJsonPath(path: readonly (string | number)[]): string {
  const step = (part: string | number, first: boolean) =>
    typeof part === 'number' ? `[${part}]` : first ? part : `.${part}`;
  const join = (parts: readonly (string | number)[], first: boolean) =>
    parts.map((part, index) => step(part, first && index === 0)).join('');
  if (path.length <= 8) return join(path, true);
  return `${join(path.slice(0, 4), true)}…${join(path.slice(-3), false)}`;
}
