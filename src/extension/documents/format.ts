/**
 * An entity as an editable Markdown document: the fields a user may change in
 * YAML front matter, the content below it. Saving the document parses it
 * back into an update, so editing a memory is just editing a file.
 * No `vscode` here: the round trip is unit tested under plain Node.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

import { MemoryError } from '../../core/errors';
import { describeProvenance } from '../../core/provenance';
import type { CommitInfo, Entity, EntityType, KnowledgeEntity, UpdateByType } from '../../core/types';

/** Which fields each type lets a user edit, besides `content`. Sessions are records, edited by nobody. */
const EDITABLE: Record<EntityType, readonly string[]> = {
  memory: ['category', 'tags', 'appliesTo'],
  skill: ['category', 'status', 'tags', 'appliesTo'],
  knowledge: ['title', 'tags', 'questions'],
  session: [],
  profile: ['metadata'],
};

/**
 * What an editable field becomes when its line is deleted from the front
 * matter: deleting `tags:` clears the tags. Category and status always have
 * a value, so a deleted line leaves them as they are.
 */
const CLEARED: Readonly<Record<string, unknown>> = {
  tags: [],
  questions: [],
  metadata: {},
  title: '',
  appliesTo: [],
  citations: [],
};

export function isEditable(type: EntityType): boolean {
  return type !== 'session';
}

/**
 * A chunk that document sync keeps in step with its file (user-less knowledge
 * with the file's hash; the same condition as SYNC_CHUNK in core/rag/state.ts):
 * an edit here would be undone by the file's next sync, so it is read-only.
 */
export function isSyncedChunk(entity: Entity): entity is KnowledgeEntity {
  return entity.type === 'knowledge' && !entity.userId && Boolean(entity.sourceHash);
}

/**
 * Comment lines naming the entity. Times stay out: they change with every
 * version and would show up in every diff; the History view has them.
 */
function describe(entity: Entity): string[] {
  const who = [`agent ${entity.agentId}`, entity.userId ? `user ${entity.userId}` : undefined].filter(Boolean);
  const lines = [`# ${entity.type} ${entity.id} · ${who.join(' · ')}`];
  if (entity.type === 'knowledge' && entity.source) {
    // A synced chunk is named first by where it is; its id and agent are bookkeeping.
    return isSyncedChunk(entity) ? [`# ${sourcePlace(entity)}`, ...lines] : [...lines, `# ${sourcePlace(entity)}`];
  }
  if (entity.type === 'memory' && entity.supersedes) lines.push(`# corrects ${entity.supersedes}`);
  if (entity.type === 'memory' || entity.type === 'skill') {
    // Read-only: a citation is made from lines chosen in the editor, not typed.
    for (const { path, startLine, endLine, symbol } of entity.citations ?? []) {
      lines.push(
        `# cites ${path}:${startLine === endLine ? startLine : `${startLine}-${endLine}`}${symbol ? ` (${symbol})` : ''}`,
      );
    }
  }
  return lines;
}

/** Where knowledge comes from: "from docs/setup.md:12-30, under Setup › Linux" (its file, lines and headings). */
function sourcePlace(knowledge: KnowledgeEntity): string {
  const span = knowledge.startLine ? `:${knowledge.startLine}-${knowledge.endLine ?? knowledge.startLine}` : '';
  const headings = knowledge.headingPath?.length ? `, under ${knowledge.headingPath.join(' › ')}` : '';
  return `from ${knowledge.source ?? ''}${span}${headings}`;
}

/**
 * The fields a document shows in its front matter. A synced chunk's are
 * its file's (its title is the file's title, not the chunk's) and read-only:
 * only those holding something are shown, and never the title.
 */
function shownFields(entity: Entity): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of EDITABLE[entity.type]) {
    const value = (entity as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (isSyncedChunk(entity) && (key === 'title' || (Array.isArray(value) && value.length === 0))) continue;
    fields[key] = value;
  }
  return fields;
}

/** What the header says of the version shown: who wrote it and, while it waits for review, what approving it does. */
export interface VersionNote {
  /** Who wrote the version's content: "by Copilot · memory_save". */
  writtenBy: string;
  /** Who approved it, when the approval did not change the content. */
  approvedBy?: string;
  /** The version waits for review; `proposes` when approving it updates or deletes another entity. */
  pending?: { proposes?: CommitInfo['proposes'] };
  /** The entity is now retired by this correction (its versions can only be reinstated, not restored). */
  supersededBy?: string;
}

/** Commits that change an entity's state (approved, retired, reinstated) and keep its content. */
const STATE_OPS: readonly CommitInfo['op'][] = ['approve', 'supersede', 'reinstate'];

/**
 * The note for the version made by `commits[0]`, given its commits newest
 * first: an approval (or a retirement) keeps the content, so the content's
 * writer is the newest commit before those that made this object.
 */
export function versionNote(commits: readonly CommitInfo[]): VersionNote | undefined {
  const head = commits[0];
  if (!head) return undefined;
  let written = 0;
  while (
    STATE_OPS.includes(commits[written]!.op) &&
    commits[written + 1] !== undefined &&
    commits[written + 1]!.object === commits[written]!.object
  ) {
    written++;
  }
  const writer = commits[written]!;
  const note: VersionNote = { writtenBy: describeProvenance(writer.by, writer.author) };
  const approval = commits.slice(0, written + 1).find((commit) => commit.op === 'approve');
  if (approval && approval !== writer) note.approvedBy = describeProvenance(approval.by, approval.author);
  if (head.review === 'pending') note.pending = head.proposes ? { proposes: head.proposes } : {};
  return note;
}

/** The header's lines about the version's writer and, for the current version, its review. */
function noteLines(note: VersionNote, oldVersion: boolean): string[] {
  const lines = [`# written ${note.writtenBy}${note.approvedBy ? `, approved ${note.approvedBy}` : ''}`];
  if (note.pending && !oldVersion) {
    const proposes = note.pending.proposes;
    lines.push(
      `# Waiting for review${proposes ? `: approving it ${proposes.action === 'delete' ? 'deletes' : 'updates'} ${proposes.target}` : ''}.`,
    );
  }
  return lines;
}

/** Lists in flow style (`tags: [a, b]`), maps as blocks: the shortest readable YAML for each field. */
function yamlField(key: string, value: unknown): string {
  if (!Array.isArray(value)) return stringifyYaml({ [key]: value }).trimEnd();
  return `${key}: ${stringifyYaml(value, { collectionStyle: 'flow', flowCollectionPadding: false }).trimEnd()}`;
}

function sessionBody(entity: Extract<Entity, { type: 'session' }>): string {
  if (!entity.messages?.length) return entity.content;
  return entity.messages
    .map((m) => `**${m.role}**${m.timestamp ? ` (${m.timestamp})` : ''}\n\n${m.content}`)
    .join('\n\n---\n\n');
}

/**
 * The line of `text` a refused save is about: the front-matter line of the
 * field the message names ("category: Invalid option", "A tag is longer…"),
 * else the first line after the front matter when it is about the content,
 * else the first line. Zero-based, for an editor diagnostic.
 */
export function lineOfProblem(text: string, type: EntityType, message: string): number {
  const lines = text.split(/\r?\n/);
  const at = /at line (\d+)/.exec(message);
  if (at) return Math.min(Math.max(Number(at[1]) - 1, 0), lines.length - 1);
  const end = lines.indexOf('---', 1);
  for (const key of EDITABLE[type]) {
    const singular = key.replace(/s$/, '');
    if (!new RegExp(`\\b(${key}|${singular})\\b`, 'i').test(message)) continue;
    const line = lines.findIndex((l, i) => i < end && l.startsWith(`${key}:`));
    if (line >= 0) return line;
  }
  if (/\bcontent\b/i.test(message) && end > 0) return Math.min(end + 1, lines.length - 1);
  return 0;
}

/**
 * The document a user sees for `entity`: the current version, or an old one
 * (`oldVersion`), which is read-only; `note` says who wrote it, and whether
 * it waits for review. `compared`: one side of a comparison of two versions.
 */
export function renderEntity(entity: Entity, oldVersion = false, note?: VersionNote, compared = false): string {
  const fields = shownFields(entity);
  const header = describe(entity);
  // Two versions side by side differ only where the entity does: who wrote each and how each
  // document can be changed would differ on every comparison, so they are left out.
  if (note && !compared) header.push(...noteLines(note, oldVersion));
  if (!compared) header.push(`# ${editingNote(entity, oldVersion, note)}`);
  const yaml = Object.entries(fields)
    .map(([key, value]) => yamlField(key, value))
    .join('\n');
  const body = entity.type === 'session' ? sessionBody(entity) : entity.content;
  return ['---', ...header, ...(yaml ? [yaml] : []), '---', body].join('\n') + (body.endsWith('\n') ? '' : '\n');
}

/** Whether the document of a version is read-only: an old version, a session, a synced chunk, a proposed delete. */
export function isReadOnly(entity: Entity, oldVersion: boolean, note?: VersionNote): boolean {
  return (
    oldVersion || !isEditable(entity.type) || isSyncedChunk(entity) || note?.pending?.proposes?.action === 'delete'
  );
}

/** The header's last line: how this document can (or cannot) be changed. */
function editingNote(entity: Entity, oldVersion: boolean, note: VersionNote | undefined): string {
  if (oldVersion && note?.supersededBy) {
    return `Superseded by ${note.supersededBy}, read-only: Reinstate (in History or the Superseded group) brings it back.`;
  }
  if (oldVersion) return 'An old version, read-only: Restore This Version in the History view makes it current again.';
  if (note?.pending) {
    return isReadOnly(entity, oldVersion, note)
      ? 'Read-only: Approve or Reject it in the Memory view.'
      : 'Saving approves it with your edits; Approve or Reject in the Memory view take it as it is.';
  }
  if (isSyncedChunk(entity))
    return 'Read-only: doc sync keeps this chunk in step with its file. Edit the file instead.';
  if (!isEditable(entity.type)) return 'Read-only: a session is the record of a conversation.';
  return 'Edit the fields below and the content after the front matter; saving makes a new version.';
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/**
 * The update a saved document asks for: only fields that differ from
 * `current`, or null when nothing changed (no empty version is made).
 */
export function parseEntityDocument(text: string, current: Entity): UpdateByType[EntityType] | null {
  if (!isEditable(current.type)) {
    throw new MemoryError('INVALID_INPUT', 'Sessions are records of a conversation and cannot be edited.');
  }
  const match = FRONT_MATTER.exec(text);
  if (!match) {
    throw new MemoryError('INVALID_INPUT', 'The document must start with its front matter between two "---" lines.');
  }
  let fields: unknown;
  try {
    fields = parseYaml(match[1]!) ?? {};
  } catch (error) {
    // The parser counts lines from the front matter's first line, the file from its "---" above it;
    // its message ends in a colon before a snippet that is left out here.
    const first = ((error as Error).message.split('\n')[0] ?? '').replace(/:\s*$/, '');
    const reason = first.replace(/at line (\d+)/, (_, line: string) => `at line ${Number(line) + 1}`);
    throw new MemoryError('INVALID_INPUT', `The front matter is not valid YAML: ${reason}.`);
  }
  if (typeof fields !== 'object' || Array.isArray(fields) || fields === null) {
    throw new MemoryError('INVALID_INPUT', 'The front matter must be a set of "field: value" lines.');
  }
  const allowed = EDITABLE[current.type];
  const update: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!allowed.includes(key)) {
      throw new MemoryError(
        'INVALID_INPUT',
        `"${key}" cannot be edited here; a ${current.type} has ${allowed.length ? allowed.join(', ') : 'no fields'} besides its content.`,
      );
    }
    if (JSON.stringify(value) !== JSON.stringify((current as unknown as Record<string, unknown>)[key]))
      update[key] = value;
  }
  for (const key of allowed) {
    const was = (current as unknown as Record<string, unknown>)[key];
    if (key in fields || !(key in CLEARED) || was === undefined) continue;
    if (JSON.stringify(was) !== JSON.stringify(CLEARED[key])) update[key] = CLEARED[key];
  }
  const content = text.slice(match[0].length).replace(/\r\n/g, '\n').replace(/\n$/, '');
  if (content !== current.content.replace(/\n$/, '')) update.content = content;
  return Object.keys(update).length > 0 ? update : null;
}

/** The fields of an old version that a restore writes back as a new version. */
export function restorableFields(version: Entity): UpdateByType[EntityType] {
  const update: Record<string, unknown> = { content: version.content };
  // What the content cites goes back with it: the old text was about the old lines.
  const keys =
    version.type === 'memory' || version.type === 'skill'
      ? [...EDITABLE[version.type], 'citations']
      : EDITABLE[version.type];
  for (const key of keys) update[key] = (version as unknown as Record<string, unknown>)[key] ?? CLEARED[key];
  if (version.type === 'knowledge') {
    for (const key of ['source', 'chunkIndex', 'headingPath', 'startLine', 'endLine', 'sourceHash'] as const) {
      if (version[key] !== undefined) update[key] = version[key];
    }
  }
  return update;
}
