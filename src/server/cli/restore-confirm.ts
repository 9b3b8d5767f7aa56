import * as readline from 'node:readline/promises';

import type { RestoreChange, RestorePreview } from '../../core/snapshots/preview';
import type { EntityType } from '../../core/types';
import { counted, printError, printJson } from './output';

/** Plurals of the entity types, for "2 memories, 1 knowledge". */
const PLURAL: Record<EntityType, string> = {
  memory: 'memories',
  skill: 'skills',
  knowledge: 'knowledge',
  session: 'sessions',
  profile: 'profiles',
};

/** How many ids a line names before "and N more": the summary must fit on a screen. */
const IDS_SHOWN = 5;

function changeLine(verb: string, change: RestoreChange): string {
  const types = Object.entries(change.byType)
    .map(([type, n]) => counted(n, type, PLURAL[type as EntityType]))
    .join(', ');
  const shown = change.ids.slice(0, IDS_SHOWN).map((entry) => entry.id);
  const more = change.total - shown.length;
  const ids = `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
  return `  ${verb.padEnd(11)} ${counted(change.total, 'entity', 'entities')} (${types}): ${ids}`;
}

/** The words of a restore summary: what it would do (asked first), or what it did (said afterwards). */
const WORDS = {
  plan: {
    restored: 'bring back',
    removed: 'remove',
    changed: 'change',
    rebuild: 'rebuild',
    keep: 'keep',
    rewind: "rewind      every entity's history to the snapshot: commits made since it are dropped",
  },
  done: {
    restored: 'brought back',
    removed: 'removed',
    changed: 'changed',
    rebuild: 'rebuilt',
    keep: 'kept',
    rewind: "rewound     every entity's history to the snapshot: commits made since it were dropped",
  },
} as const;

/**
 * What a restore would change (`plan`) or changed (`done`), for people: one
 * line per kind of change that has any, and how many entities stay as they
 * are. The plan also says the store is kept as a snapshot first.
 */
export function describeRestore(preview: RestorePreview, tense: keyof typeof WORDS = 'plan'): string {
  const words = WORDS[tense];
  const kinds = (['restored', 'removed', 'changed'] as const).filter((kind) => preview[kind].total > 0);
  const lines = kinds.map((kind) => changeLine(words[kind], preview[kind]));
  if (preview.liveDamage)
    lines.unshift(
      `  ${words.rebuild.padEnd(11)} the live store, which is damaged (${preview.liveDamage}), from the snapshot`,
    );
  if (lines.length === 0) lines.push('  no entity changes');
  if (tense === 'plan')
    lines.unshift('  first save  the store as it is now as a snapshot, so this restore can be undone');
  lines.push(
    `  ${words.keep.padEnd(11)} ${counted(preview.unchanged, 'entity', 'entities')} as ${preview.unchanged === 1 ? 'it is' : 'they are'}`,
  );
  // A restore replaces the history too: commits made since the snapshot are gone afterwards.
  lines.push(`  ${words.rewind}`);
  return lines.join('\n');
}

/** Streams a question is asked on; a terminal when `isTTY` is set. */
export interface Prompt {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

/**
 * Asks a yes/no question and waits for the answer: yes only for "y" or
 * "yes" (any case); anything else, or input that ends, is no.
 */
export async function confirm(question: string, prompt: Prompt): Promise<boolean> {
  const rl = readline.createInterface({ input: prompt.input, output: prompt.output, terminal: false });
  try {
    const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
    const answer = await Promise.race([rl.question(`${question} [y/N] `), closed]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

/** What a confirmation asks and says: the question, what the change does, how to skip asking, the answer to a no. */
export interface Consent {
  question: string;
  what: string;
  flag: string;
  declined: string;
}

/**
 * Whether to go on with a change that cannot be taken back in one step:
 * --yes, or "y" at the question on a terminal. The question and what it is
 * about go to standard error: they are not the command's output. With nobody
 * to ask, a script must say --yes; like a missing option, that is bad usage
 * (exit 2). With --json (`json` holds what would change) nobody is asked
 * either: a program reads the preview and the refusal as JSON, never prose.
 */
export async function consented(
  yes: boolean,
  summary: string,
  consent: Consent,
  json: { preview: unknown } | undefined,
): Promise<boolean> {
  if (yes) return true;
  if (json) {
    const message = `${consent.what}: nothing was changed. ${consent.flag}`;
    printJson({ done: false, error: { code: 'CONFIRMATION_REQUIRED', message }, preview: json.preview });
    process.exitCode = 2;
    return false;
  }
  printError(summary);
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    printError(
      `workspace-memory: ${consent.what} and there is no terminal to ask on; nothing was changed. ${consent.flag}`,
    );
    process.exitCode = 2;
    return false;
  }
  if (await confirm(consent.question, { input: process.stdin, output: process.stderr })) return true;
  printError(consent.declined);
  process.exitCode = 1;
  return false;
}
