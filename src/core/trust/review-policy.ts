import { MemoryError } from '../errors';
import { currentProvenance, isWriterKind, type Provenance, WRITER_KINDS, type WriterKind } from '../provenance';

/** `queue`: the write waits for a person's approval; `immediate`: it lands at once. */
export type ReviewMode = 'queue' | 'immediate';
export const REVIEW_MODES: readonly ReviewMode[] = ['queue', 'immediate'];

/** One mode for every writer, or a mode per writer kind (kinds left out keep their default). */
export type ReviewPolicy = ReviewMode | Partial<Record<WriterKind, ReviewMode>>;

/**
 * Writes no person saw wait for review: MCP clients, mining, consolidation.
 * A person writing in the UI or the CLI, Copilot in a chat the person is
 * reading, an import or document sync the person started land at once.
 */
export const DEFAULT_REVIEW: Readonly<Record<WriterKind, ReviewMode>> = {
  user: 'immediate',
  copilot: 'immediate',
  mcp: 'queue',
  cli: 'immediate',
  import: 'immediate',
  docsync: 'immediate',
  mining: 'queue',
  consolidation: 'queue',
  // It only moves a citation to the lines that moved, content unchanged.
  anchoring: 'immediate',
  // The team folder as git brought it: its changes were reviewed there (a pull request), and the store
  // follows the files whatever the policy says (see isQueued).
  team: 'immediate',
};

function assertMode(value: unknown, where: string): ReviewMode {
  if (value === 'queue' || value === 'immediate') return value;
  throw new MemoryError('INVALID_INPUT', `${where} must be "queue" or "immediate" (got ${JSON.stringify(value)}).`);
}

/** The mode for every writer kind, from a policy as settings or flags give it; bad input is a clear error. */
export function resolveReviewPolicy(policy: unknown = {}): Record<WriterKind, ReviewMode> {
  if (typeof policy === 'string') {
    const mode = assertMode(policy, 'The review policy');
    return Object.fromEntries(WRITER_KINDS.map((kind) => [kind, mode])) as Record<WriterKind, ReviewMode>;
  }
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new MemoryError(
      'INVALID_INPUT',
      'The review policy must be "queue", "immediate" or an object by writer kind.',
    );
  }
  const resolved = { ...DEFAULT_REVIEW };
  for (const [kind, mode] of Object.entries(policy)) {
    if (!isWriterKind(kind)) {
      throw new MemoryError(
        'UNKNOWN_WRITER',
        `Unknown writer kind "${kind}" in the review policy: use ${WRITER_KINDS.join(', ')}.`,
      );
    }
    resolved[kind] = assertMode(mode, `The review mode for ${kind}`);
  }
  return resolved;
}

/**
 * Whether the write running now waits for review: by its writer's kind,
 * unless a person confirmed it (the chat's tool confirmation), which is the
 * review.
 */
export function isQueued(modes: Readonly<Record<WriterKind, ReviewMode>>, fallback: Provenance): boolean {
  const writer = currentProvenance() ?? fallback;
  // The files are the team scope's truth: holding their change back would leave the store behind them.
  if (writer.kind === 'team') return false;
  return !writer.confirmed && modes[writer.kind] === 'queue';
}
