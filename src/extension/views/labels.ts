import * as vscode from 'vscode';

import { type CommitProvenance, describeProvenance } from '../../core/provenance';
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
  if (entity.type === 'knowledge' && entity.source) {
    const heading = entity.headingPath?.at(-1);
    return heading ? `${entity.source} › ${heading}` : entity.source;
  }
  const firstLine = entity.content.split('\n').find((line) => line.trim()) ?? entity.id;
  const text = firstLine.replace(/^#+\s*/, '').trim();
  return text.length > LABEL_LENGTH ? `${text.slice(0, LABEL_LENGTH - 1)}…` : text;
}

/**
 * A document chunk under its document: its place and heading (or first
 * line); the document's path is its group's label already.
 */
export function chunkLabel(entity: Entity): string {
  if (entity.type !== 'knowledge') return entityLabel(entity);
  const place = entity.chunkIndex === undefined ? '' : `${entity.chunkIndex + 1}. `;
  const heading = entity.headingPath?.at(-1);
  if (heading) return `${place}${heading}`;
  const firstLine =
    entity.content
      .split('\n')
      .find((line) => line.trim())
      ?.replace(/^#+\s*/, '')
      .trim() ?? entity.id;
  return `${place}${firstLine.length > LABEL_LENGTH ? `${firstLine.slice(0, LABEL_LENGTH - 1)}…` : firstLine}`;
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

export function entityTooltip(entity: Entity): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString(undefined, true);
  tooltip.appendMarkdown(`$(${TYPE_INFO[entity.type].icon}) **${entity.type}** \`${entity.id}\`\n\n`);
  const preview = entity.content.length > 600 ? `${entity.content.slice(0, 600)}…` : entity.content;
  tooltip.appendText(preview);
  tooltip.appendMarkdown(`\n\n---\n${vscode.l10n.t('Updated {0}', new Date(entity.updatedAt).toLocaleString())}`);
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
  tooltip.appendText(warning);
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

export function relativeTime(iso: string, now = Date.now()): string {
  const elapsed = Date.parse(iso) - now;
  // One formatter for every row: building one per tree item is measurable on big scopes.
  const format = (formatter ??= new Intl.RelativeTimeFormat(vscode.env.language, { numeric: 'auto' }));
  for (const [unit, ms] of UNITS) {
    if (Math.abs(elapsed) >= ms) return format.format(Math.round(elapsed / ms), unit);
  }
  return vscode.l10n.t('just now');
}
