import { describeProvenance } from '../../core/provenance';
import { entityTitle, oneLine } from '../../core/text';
import type { CommitInfo, Entity, HistoryEntry } from '../../core/types';
import { TEAM_AGENT_ID } from '../../core/types';
import { escapeForTerminal } from './terminal-text';

// Everything the CLI writes goes through this module. Human output is always
// escaped (escapeForTerminal), not only when standard output is a terminal:
// text piped to a file or a pager (`less -R`, `cat log`) reaches a terminal
// later all the same, and the same bytes on and off a terminal keep scripts
// and tests honest. `--json` is the exact form, for programs.

/**
 * Writes unless the reader has gone: after `| head -1` has read its line the
 * pipe is closed, and the write fails with EPIPE (see guardOutput).
 */
function write(stream: NodeJS.WriteStream, text: string): void {
  if (!stream.destroyed) stream.write(text);
}

/** A line (or lines) of human output on standard output, escaped for the terminal. */
export function print(text: string): void {
  const safe = escapeForTerminal(text);
  write(process.stdout, safe.endsWith('\n') ? safe : `${safe}\n`);
}

/** JSON on standard output, exactly as stored: the machine-readable form (`--json`, `export`). */
export function printJson(value: unknown): void {
  write(process.stdout, `${JSON.stringify(value, null, 2)}\n`);
}

/** A line for people on standard error (errors, warnings, summaries that are not output), escaped. */
export function printError(text: string): void {
  write(process.stderr, `${escapeForTerminal(text)}\n`);
}

/** Rewrites the progress line on a terminal; nothing when standard error is not one (it is not output). */
export function printProgress(text: string): void {
  if (process.stderr.isTTY) write(process.stderr, `\r${escapeForTerminal(text)}`);
}

/** Ends the progress line, on a terminal only. */
export function endProgress(): void {
  if (process.stderr.isTTY) write(process.stderr, '\n');
}

/** Commander's help and usage errors, which quote what was typed: escaped like the rest. */
export const commanderOutput = {
  writeOut: (text: string): void => write(process.stdout, escapeForTerminal(text)),
  writeErr: (text: string): void => write(process.stderr, escapeForTerminal(text)),
};

/**
 * A reader that stops early (`| head -1`, a pager quit) closes the pipe: the
 * next write fails with EPIPE, which Node raises as an unhandled 'error' event
 * with a stack trace. That is the reader's choice, not a failure: stop writing
 * and let the command finish (the store closes as usual) with its own exit
 * status. Any other write error still surfaces.
 */
export function guardOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

/**
 * A field shown on its line of a listing (a label, a path, a tag, a commit
 * message): a line break in it would start what reads as another line of the
 * listing, so it is escaped as well.
 */
export function inline(text: string): string {
  return escapeForTerminal(text, 'line');
}

/** How many characters of an entity's first words a line quotes. */
const NAME_LENGTH = 48;

/** The noun for a count: "1 memory", "2 memories" (irregular plurals are given). */
export function noun(count: number, singular: string, plural = `${singular}s`): string {
  return count === 1 ? singular : plural;
}

/** A count and its noun: "1 memory", "0 memories". */
export function counted(count: number, singular: string, plural?: string): string {
  return `${count} ${noun(count, singular, plural)}`;
}

export function entityLine(entity: Entity): string {
  const type = 'category' in entity ? `${entity.type}/${entity.category}` : entity.type;
  // Team memory comes with every agent's own (search, list): say which is which.
  const kind = entity.agentId === TEAM_AGENT_ID ? `team ${type}` : type;
  const tags = 'tags' in entity && entity.tags.length ? ` [${inline(entity.tags.join(', '))}]` : '';
  return `${entity.id}  ${kind}${tags}  ${oneLine(entity.content)}`;
}

/** What a change of team memory adds to its line: the team sees it once the folder is committed. */
export function teamReminder(entity: Entity): string {
  return entity.agentId === TEAM_AGENT_ID ? '; team memory: commit the team folder to share the change' : '';
}

export function entityDetail(entity: Entity): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(entity)) {
    if (key === 'content') continue;
    lines.push(`${key}: ${typeof value === 'string' ? inline(value) : JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n\n${entity.content}`;
}

/** How a write names what it wrote: its type and first words (a chunk's file and heading), and its id. */
function entityName(entity: Entity): string {
  return `${entity.type} “${inline(entityTitle(entity, NAME_LENGTH).title)}” (${entity.id})`;
}

/** What `delete` says of each entity: which one, in words, and that its history stays. */
export function deletedLine(entity: Entity): string {
  return `deleted ${entityName(entity)}; its history is kept: workspace-memory history ${entity.id}`;
}

export function commitLine(commit: CommitInfo): string {
  return `${commit.hash.slice(0, 12)}  ${commit.time}  ${commit.op.padEnd(9)}  ${inline(commit.message)}`;
}

/** Who made a commit and what it links to, in words: "by Copilot · gpt-4.1 · memory_save · waiting for review". */
export function commitProvenance(commit: CommitInfo): string {
  const notes = [describeProvenance(commit.by, commit.author)];
  // Said of the commit: it may have been approved since.
  if (commit.review === 'pending') notes.push('queued for review');
  if (commit.review === 'rejected') notes.push('rejected in review');
  if (commit.proposes) notes.push(`proposes to ${commit.proposes.action} ${commit.proposes.target}`);
  if (commit.supersedes) notes.push(`corrects ${commit.supersedes}`);
  if (commit.supersededBy) notes.push(`superseded by ${commit.supersededBy}`);
  return inline(notes.join(' · '));
}

export function historyLines(entries: HistoryEntry[]): string {
  return entries
    .map(
      (entry) =>
        `${commitLine(entry.commit)}\n    ${commitProvenance(entry.commit)}` +
        `${entry.entity ? `\n    ${oneLine(entry.entity.content, 76)}` : ''}`,
    )
    .join('\n');
}
