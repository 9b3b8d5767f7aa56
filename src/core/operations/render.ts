import type { StaleNote } from '../anchors/staleness';
import type { RecallReasoning } from '../recall/types';
import {
  INSTRUCTION_WARNING,
  isFlagged,
  provenanceText,
  quoteEntity,
  quoteInline,
  STORED_DATA_NOTICE,
} from '../trust/framing';
import type { Entity, HistoryEntry } from '../types';
import type { OperationStore } from './types';

/**
 * How read results read in an operation's text: a line saying what was
 * found, the notice that stored text is data (once), then each entity quoted
 * under its source line (see trust/framing). Write results stay one line.
 */

const MAX_SHOWN = 1500;

/** Long content is cut for the text only; `data` always has the whole entity. */
export function clip(text: string, max = MAX_SHOWN): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}

/** An entity of a listing: its source line (with the score), then its content, clipped, quoted. */
export function quotedResult(entity: Entity, score?: number, max = MAX_SHOWN, stale?: StaleNote): string {
  return quoteEntity(entity, { score, shown: clip(entity.content, max), stale });
}

/**
 * Search results as a model gets them: each stale one marked ("may be
 * outdated: the code it cites changed…"), or left out, as the store's
 * staleness mode says (the same as recall's).
 */
export async function withStaleness<E extends Entity>(
  store: Pick<OperationStore, 'staleNotes'>,
  results: readonly { entity: E; score: number }[],
): Promise<{ entity: E; score: number; stale?: StaleNote }[]> {
  const { mode, notes } = await store.staleNotes(results.map(({ entity }) => entity));
  return results.flatMap((result) => {
    const stale = notes.get(result.entity.id);
    if (stale && mode === 'exclude') return [];
    return [stale ? { ...result, stale } : result];
  });
}

/** "1 memory", "2 memories". */
export function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A read result: what was found, the notice, then the quoted items, apart by blank lines. */
export function storedText(summary: string, quoted: readonly string[]): string {
  return [summary, STORED_DATA_NOTICE, ...quoted].join('\n\n');
}

/** One version of an entity: when, how and by whom, and what it said, quoted on one line. */
export function historyLine(entry: HistoryEntry): string {
  const { commit, entity } = entry;
  const head = `${commit.time} ${commit.op} ${provenanceText(commit.by)} (commit ${commit.hash.slice(0, 12)})`;
  if (!entity) return `${head}: deleted`;
  const warning = isFlagged(entity, { provenance: commit.by }) ? ` ${INSTRUCTION_WARNING}` : '';
  return `${head}: ${quoteInline(entity.content, 300)}${warning}`;
}

/**
 * What the model did for a search or recall that asked for reasoning, in a
 * line: the strategy and the searches it ran, or why plain search answered.
 */
export function reasoningLine(reasoning: RecallReasoning | undefined): string {
  if (!reasoning) return '';
  const { strategy, steps, degraded } = reasoning;
  const parts = [
    strategy.reasoning !== 'none' ? strategy.reasoning : undefined,
    strategy.rerank ? 'rerank' : undefined,
  ];
  const named = parts.filter(Boolean);
  const asked = named.join(' and ');
  if (degraded)
    return `(Plain search answered; ${asked} ${named.length > 1 ? 'were' : 'was'} skipped: ${degraded.reason})`;
  const searches = steps.reduce((sum, step) => sum + step.queries.length, 0);
  return `(Reasoning: ${asked}; ${counted(searches, 'search', 'searches')} run.)`;
}
