import { AsyncLocalStorage } from 'node:async_hooks';

import { MemoryError } from './errors';
import { guardText } from './secrets/guard';

/**
 * Who made a commit. Every shell says who is writing (the person in the UI,
 * Copilot through a tool, an MCP client, the CLI, an import, document sync,
 * mining, consolidation, the citation check moving a citation to where its
 * lines went); the store records it on each commit, inside the
 * commit's hash, so it can be shown, filtered on and reverted by.
 */
export const WRITER_KINDS = [
  'user',
  'copilot',
  'mcp',
  'cli',
  'import',
  'docsync',
  'mining',
  'consolidation',
  'anchoring',
  'team',
] as const;
export type WriterKind = (typeof WRITER_KINDS)[number];

export interface Provenance {
  kind: WriterKind;
  /** The person, or the MCP client's `clientInfo.name`. */
  name?: string;
  /** The MCP client's `clientInfo.version`. */
  version?: string;
  /** The language model involved, by id (the chat's model). */
  model?: string;
  /** The tool or command that wrote: `memory_save`, `/remember`, `workspace-memory add`. */
  tool?: string;
  /** The conversation or session the write came from. */
  conversation?: string;
  /** A readable name for that conversation (a chat's first words). */
  conversationTitle?: string;
  /** A person confirmed this write before it was made (the chat's tool confirmation): it counts as reviewed. */
  confirmed?: boolean;
}

/**
 * What a commit made before provenance was recorded says of its writer:
 * only the author's name, and what its operation or message gives away.
 * `legacy` marks it as read back rather than recorded.
 */
export interface LegacyProvenance extends Omit<Provenance, 'kind'> {
  kind: WriterKind | 'unknown';
  legacy: true;
}

export type CommitProvenance = Provenance | LegacyProvenance;

export function isWriterKind(value: unknown): value is WriterKind {
  return typeof value === 'string' && (WRITER_KINDS as readonly string[]).includes(value);
}

export function assertWriterKind(value: unknown): WriterKind {
  if (isWriterKind(value)) return value;
  throw new MemoryError(
    'UNKNOWN_WRITER',
    `Unknown writer kind ${JSON.stringify(value)}: use one of ${WRITER_KINDS.join(', ')}.`,
  );
}

const TEXT_FIELDS = ['name', 'version', 'model', 'tool', 'conversation', 'conversationTitle'] as const;
/** Long enough for any client name, model id or chat title; a provenance is not a place for content. */
const MAX_FIELD = 200;

/**
 * A provenance as stored: known kind, short single-line text fields, empty
 * ones left out (so two equal provenances hash alike). Shells pass what
 * clients told them (an MCP client's name is the client's own word), so it
 * is checked like any input.
 */
export function normalizeProvenance(value: unknown): Provenance {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MemoryError('INVALID_INPUT', 'A provenance must be an object with a `kind`.');
  }
  const input = value as Record<string, unknown>;
  const result: Provenance = { kind: assertWriterKind(input.kind) };
  for (const field of TEXT_FIELDS) {
    const raw = input[field];
    if (raw === undefined || raw === null) continue;
    if (typeof raw !== 'string') throw new MemoryError('INVALID_INPUT', `Provenance ${field} must be text.`);
    const clean = raw
      // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .trim()
      .slice(0, MAX_FIELD);
    // A label, not content: a secret pasted into a chat title or a client's name is always redacted.
    if (clean) result[field] = guardText(clean, 'redact').text;
  }
  if (input.confirmed === true) result.confirmed = true;
  return result;
}

const context = new AsyncLocalStorage<Provenance>();

/**
 * Runs `work` with every commit it makes (through any await) recorded as by
 * `provenance`. Nested calls replace the outer one for their duration.
 */
export function withProvenance<T>(provenance: Provenance, work: () => T): T {
  return context.run(normalizeProvenance(provenance), work);
}

/**
 * Runs `work` as a writer of `kind` on behalf of whoever runs now: mining,
 * consolidation, document sync and imports keep the model, tool and
 * conversation of the work that started them, not its confirmation (a person
 * confirmed starting it, not what it writes), unless `confirmed` says a person
 * saw what it writes (a plan shown, then applied).
 */
export function asWriter<T>(kind: WriterKind, work: () => T, options: { confirmed?: boolean } = {}): T {
  const {
    kind: _kind,
    confirmed: _confirmed,
    name: _name,
    version: _version,
    ...context
  } = currentProvenance() ?? ({} as Partial<Provenance>);
  return withProvenance({ ...context, kind, ...(options.confirmed ? { confirmed: true } : {}) }, work);
}

/** The writer of the work running now, if a shell said. */
export function currentProvenance(): Provenance | undefined {
  return context.getStore();
}

const KIND_LABEL: Record<WriterKind | 'unknown', string> = {
  user: 'you',
  copilot: 'Copilot',
  mcp: 'MCP',
  cli: 'CLI',
  import: 'import',
  docsync: 'document sync',
  mining: 'mining',
  consolidation: 'consolidation',
  anchoring: 'code anchoring',
  team: 'the team folder',
  unknown: 'unknown',
};

/**
 * One line for people: "by Copilot · gpt-4.1 · memory_save · in chat 'Fix
 * login'". `author` names the person where the provenance does not.
 */
export function describeProvenance(provenance: CommitProvenance, author?: string): string {
  const person = provenance.name ?? author;
  const who =
    provenance.kind === 'mcp'
      ? // "(MCP)": a client names itself, and must not pass for a person ("root (CLI)").
        `${[provenance.name ?? 'an MCP client', provenance.version].filter(Boolean).join(' ')} (MCP)`
      : provenance.kind === 'user' || provenance.kind === 'unknown'
        ? (person ?? KIND_LABEL[provenance.kind])
        : provenance.kind === 'cli' && person
          ? `${person} (CLI)`
          : provenance.kind === 'team' && person
            ? `${person} (team folder)`
            : KIND_LABEL[provenance.kind];
  const parts = [`by ${who}`];
  if (provenance.model) parts.push(provenance.model);
  if (provenance.tool) parts.push(provenance.tool);
  const conversation = provenance.conversationTitle ?? provenance.conversation;
  if (conversation) parts.push(`in ${provenance.kind === 'copilot' ? 'chat' : 'session'} '${conversation}'`);
  return parts.join(' · ');
}

/**
 * What is known of the writer of a commit made before provenance was
 * recorded: the author's name, and for an import, that it was one. Nothing
 * else in those commits tells the shells apart.
 */
export function legacyProvenance(author: string, op: string): LegacyProvenance {
  return { kind: op === 'import' ? 'import' : 'unknown', name: author, legacy: true };
}
