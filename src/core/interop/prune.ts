import { MemoryError } from '../errors';
import { titleOf } from './collector';
import { sourcePrefix } from './ids';
import type { ImportTarget } from './plan';
import type { ImportedType, InteropScope, ItemOutcome } from './types';
import { asImport } from './write';

/**
 * What an import wrote before from a file that no longer holds it (a section
 * deleted, a heading renamed): found by the id prefix every item of that
 * file shares (see ids.ts), only for files read whole this time (a broken
 * line must not count as a deletion), and removed only while the store has
 * it as the import left it: one a person edited since is kept and reported.
 */

export interface Removal {
  id: string;
  type: ImportedType;
  file: string;
  title: string;
  /** False: kept, with `reason`. */
  remove: boolean;
  reason: string;
}

/** The ids of one scope's memories or skills that start with `prefix`, read as ids only. */
async function idsWithPrefix(target: ImportTarget, type: ImportedType, scope: InteropScope, prefix: string) {
  const user = scope.userId ?? null;
  const ids: string[] = [];
  for (const group of target.groups.categoryCounts(type, scope.agentId)) {
    if (group.userId !== user) continue;
    // One page of the whole category: ids only, one query, where pages of 200 would scan it again and again.
    const page = target.groups.categoryPage(type, scope.agentId, group.category, user, 0, group.count);
    ids.push(...page.filter((id) => id.startsWith(prefix)));
  }
  return ids;
}

export async function findRemovals(
  target: ImportTarget,
  scope: InteropScope,
  files: Iterable<string>,
  found: ReadonlySet<string>,
): Promise<Removal[]> {
  const removals: Removal[] = [];
  for (const file of files) {
    for (const type of ['memory', 'skill'] as const) {
      for (const id of await idsWithPrefix(target, type, scope, sourcePrefix(type, scope, file))) {
        if (found.has(id)) continue;
        const [head] = await target.history(id);
        const entity = head?.entity;
        if (!head || !entity || !('content' in entity)) continue;
        const title = titleOf([], entity.content);
        removals.push(
          head.commit.by.kind === 'import'
            ? { id, type, file, title, remove: true, reason: `no longer in ${file}` }
            : {
                id,
                type,
                file,
                title,
                remove: false,
                reason: `no longer in ${file}, but edited in this store since: kept`,
              },
        );
      }
    }
  }
  return removals;
}

/** Deletes the removals (history kept), as the import of their file; one a middleware keeps is reported kept. */
export async function removeImported(target: ImportTarget, removals: Removal[], format: string): Promise<void> {
  const files = new Set(removals.filter((removal) => removal.remove).map((removal) => removal.file));
  for (const file of files) {
    for (const type of ['memory', 'skill'] as const) {
      const doomed = removals.filter((removal) => removal.remove && removal.file === file && removal.type === type);
      if (doomed.length > 0) await remove(target, type, doomed, `import --from ${format} ${file}`);
    }
  }
}

async function remove(target: ImportTarget, type: ImportedType, doomed: Removal[], tool: string): Promise<void> {
  const collection = type === 'memory' ? target.memories : target.skills;
  try {
    const commits = await asImport(tool, () => collection.deleteMany(doomed.map((removal) => removal.id)));
    commits.forEach((commit, index) => {
      const removal = doomed[index]!;
      if (commit === null) Object.assign(removal, { remove: false, reason: `${removal.reason}; a middleware kept it` });
    });
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    for (const removal of doomed) {
      Object.assign(removal, { remove: false, reason: `${removal.reason}; not removed: ${error.message}` });
    }
  }
}

export function removalOutcome(removal: Removal): ItemOutcome {
  return {
    id: removal.id,
    type: removal.type,
    title: removal.title,
    source: removal.file,
    action: removal.remove ? 'remove' : 'skip',
    reason: removal.reason,
  };
}
