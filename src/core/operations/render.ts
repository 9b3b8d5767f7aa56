import type { Entity, HistoryEntry } from '../types';

/** How entities read in an operation's text: one line of facts, then the content. */

const MAX_SHOWN = 1500;

/** Long content is cut for the text only; `data` always has the whole entity. */
export function clip(text: string, max = MAX_SHOWN): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}

export function entityFacts(entity: Entity): string {
  const facts: string[] = [`id: ${entity.id}`];
  if ('category' in entity) facts.push(entity.category);
  if (entity.type === 'skill' && entity.status !== 'active') facts.push(entity.status);
  if ('tags' in entity && entity.tags.length) facts.push(`tags: ${entity.tags.join(', ')}`);
  facts.push(`updated ${entity.updatedAt}`);
  return facts.join('; ');
}

/** A Markdown bullet: content first (what the model reads), the facts after, continuation lines indented. */
export function entityBullet(entity: Entity, score?: number): string {
  const scored = score === undefined ? '' : `; score ${score.toFixed(2)}`;
  return `- ${clip(entity.content).replace(/\n/g, '\n  ')}\n  (${entityFacts(entity)}${scored})`;
}

export function historyLine(entry: HistoryEntry): string {
  const { commit, entity } = entry;
  const head = `${commit.time} ${commit.op} (commit ${commit.hash.slice(0, 12)})`;
  return entity ? `${head}: ${clip(entity.content, 300).replace(/\s+/g, ' ')}` : `${head}: deleted`;
}
