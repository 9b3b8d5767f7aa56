import * as vscode from 'vscode';

import { type CommitProvenance, describeProvenance } from '../../core/provenance';
import { cutAtWord, entityTitle, plainMarkdown } from '../../core/text';
import { looksLikeInstruction } from '../../core/trust/instructions';
import { type Entity, type EntityType, SHARED_AGENT_ID } from '../../core/types';

/** How each type looks in the views. */
export const TYPE_INFO: Record<EntityType, { singular: string; plural: string; icon: string }> = {
  memory: { singular: vscode.l10n.t('memory'), plural: vscode.l10n.t('Memories'), icon: 'lightbulb' },
  skill: { singular: vscode.l10n.t('skill'), plural: vscode.l10n.t('Skills'), icon: 'tools' },
  knowledge: { singular: vscode.l10n.t('knowledge chunk'), plural: vscode.l10n.t('Knowledge'), icon: 'book' },
  session: { singular: vscode.l10n.t('session'), plural: vscode.l10n.t('Sessions'), icon: 'comment-discussion' },
  profile: { singular: vscode.l10n.t('profile'), plural: vscode.l10n.t('Profiles'), icon: 'account' },
};

const LABEL_LENGTH = 80;

/** One line that tells entities apart: a knowledge chunk by its place, anything else by its first line. */
export function entityLabel(entity: Entity): string {
  return entityTitle(entity, LABEL_LENGTH).title;
}

/**
 * A document chunk under its document: its place and heading (or first
 * line); the document's path is its group's label already.
 */
export function chunkLabel(entity: Entity): string {
  if (entity.type !== 'knowledge') return entityLabel(entity);
  const place = entity.chunkIndex === undefined ? '' : `${entity.chunkIndex + 1}. `;
  // Its heading, else its first line: the title of the same chunk without the file it is under.
  const heading = entity.headingPath?.at(-1);
  const title =
    (heading && plainMarkdown(heading)) || entityTitle({ ...entity, source: undefined }, LABEL_LENGTH).title;
  return `${place}${title}`;
}

export function entityDescription(entity: Entity): string {
  const parts: string[] = [];
  if (entity.type === 'memory' || entity.type === 'skill') parts.push(entity.category);
  if (entity.type === 'skill' && entity.status !== 'active') parts.push(entity.status);
  if ('tags' in entity && entity.tags.length > 0) parts.push(entity.tags.map((t) => `#${t}`).join(' '));
  if (entity.userId) parts.push(`@${entity.userId}`);
  parts.push(relativeTime(entity.updatedAt));
  return parts.join(' · ');
}

/** How much of an entity's content its tooltip shows. */
const TOOLTIP_LENGTH = 600;

/**
 * Appends stored text to a tooltip as text, never as Markdown. The API's own
 * appendText escapes it, but also makes every space a non-breaking one, so a
 * hover cannot wrap between words and cuts them in the middle instead: a
 * single space between words is made a plain space again (runs of them, and
 * spaces opening a line, stay as they are, or they would make Markdown).
 */
export function appendPlain(tooltip: vscode.MarkdownString, text: string): void {
  const escaped = new vscode.MarkdownString(undefined, tooltip.supportThemeIcons).appendText(text).value;
  tooltip.appendMarkdown(escaped.replace(/(?<=\S)(?<!&nbsp;)&nbsp;(?!&nbsp;)/g, ' '));
}

/**
 * What hovering an entity's row shows: its type, the start of its content
 * (cut at a word), when it changed and its id, last, where a long id's wrap
 * does not split the text.
 */
export function entityTooltip(entity: Entity): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString(undefined, true);
  tooltip.appendMarkdown(`$(${TYPE_INFO[entity.type].icon}) **${TYPE_INFO[entity.type].singular}**`);
  if (entity.type === 'knowledge' && entity.source) {
    tooltip.appendMarkdown(' · ');
    appendPlain(tooltip, entityLabel(entity));
  }
  tooltip.appendMarkdown('\n\n');
  appendPlain(tooltip, cutAtWord(entity.content, TOOLTIP_LENGTH).head);
  tooltip.appendMarkdown(`\n\n---\n\n${vscode.l10n.t('Updated {0}', shortTime(entity.updatedAt))} · \`${entity.id}\``);
  return tooltip;
}

/** Who wrote, without how: "by Claude Desktop 0.9.1", "by Copilot", "by ana". */
export function writerLabel(by: CommitProvenance, author: string): string {
  const { model: _model, tool: _tool, conversation: _conversation, conversationTitle: _title, ...who } = by;
  return describeProvenance(who, author);
}

/**
 * What a row says of text that reads like instructions to an AI ("ignore
 * previous instructions…") rather than notes about the project, quoting the
 * phrase (plain text: the phrase may hold Markdown); undefined for ordinary text.
 */
export function instructionWarning(text: string): string | undefined {
  const phrase = looksLikeInstruction(text);
  return phrase === undefined
    ? undefined
    : vscode.l10n.t(
        'Reads like instructions to an AI (“{0}”): check it before an agent relies on it.',
        phrase.length > 80 ? `${phrase.slice(0, 79)}…` : phrase,
      );
}

/** Appends a warning line (plain text) to a row's tooltip. */
export function appendWarning(tooltip: vscode.MarkdownString, warning: string): void {
  tooltip.appendMarkdown('\n\n$(warning) ');
  appendPlain(tooltip, warning);
}

/** The icon of a row whose text reads like instructions to an AI. */
export const INSTRUCTION_ICON = new vscode.ThemeIcon(
  'warning',
  new vscode.ThemeColor('problemsWarningIcon.foreground'),
);

export function scopeLabel(agentId: string): string {
  return agentId === SHARED_AGENT_ID ? vscode.l10n.t('Shared') : vscode.l10n.t('Agent {0}', agentId);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600e3],
  ['month', 30 * 24 * 3600e3],
  ['day', 24 * 3600e3],
  ['hour', 3600e3],
  ['minute', 60e3],
];

let formatter: Intl.RelativeTimeFormat | undefined;

let timeFormat: Intl.DateTimeFormat | undefined;

/** A moment as the UI shows it everywhere (menus, tooltips, messages, chat): the short date and time of the user's language. */
export function shortTime(iso: string): string {
  timeFormat ??= new Intl.DateTimeFormat(vscode.env.language, { dateStyle: 'short', timeStyle: 'short' });
  return timeFormat.format(new Date(iso));
}

export function relativeTime(iso: string, now = Date.now()): string {
  const elapsed = Date.parse(iso) - now;
  // One formatter for every row: building one per tree item is measurable on big scopes.
  const format = (formatter ??= new Intl.RelativeTimeFormat(vscode.env.language, { numeric: 'auto' }));
  for (const [unit, ms] of UNITS) {
    if (Math.abs(elapsed) >= ms) return format.format(Math.round(elapsed / ms), unit);
  }
  return vscode.l10n.t('just now');
}
