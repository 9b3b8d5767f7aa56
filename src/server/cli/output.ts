import { oneLine } from '../../core/text';
import type { CommitInfo, Entity, HistoryEntry } from '../../core/types';

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

export function entityLine(entity: Entity): string {
  const kind = 'category' in entity ? `${entity.type}/${entity.category}` : entity.type;
  const tags = 'tags' in entity && entity.tags.length ? ` [${entity.tags.join(', ')}]` : '';
  return `${entity.id}  ${kind}${tags}  ${oneLine(entity.content)}`;
}

export function entityDetail(entity: Entity): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(entity)) {
    if (key === 'content') continue;
    lines.push(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n\n${entity.content}`;
}

export function commitLine(commit: CommitInfo): string {
  return `${commit.hash.slice(0, 12)}  ${commit.time}  ${commit.op.padEnd(6)}  ${commit.author}  ${commit.message}`;
}

export function historyLines(entries: HistoryEntry[]): string {
  return entries
    .map((entry) => `${commitLine(entry.commit)}${entry.entity ? `\n    ${oneLine(entry.entity.content, 76)}` : ''}`)
    .join('\n');
}
