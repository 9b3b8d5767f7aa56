import {
  INSTRUCTION_WARNING,
  isFlagged,
  provenanceText,
  quoteEntity,
  quoteInline,
  STORED_DATA_NOTICE,
} from '../trust/framing';
import type { Entity, HistoryEntry } from '../types';

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
export function quotedResult(entity: Entity, score?: number, max = MAX_SHOWN): string {
  return quoteEntity(entity, { score, shown: clip(entity.content, max) });
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
