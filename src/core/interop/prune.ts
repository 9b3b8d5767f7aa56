import { MemoryError } from '../errors';
import type { HistoryEntry } from '../types';
import { titleOf } from './collector';
import { isUnder } from './format-handler';
import { sourcePrefix } from './ids';
import { type ImportTarget, place, type PlannedItem } from './plan';
import type { ImportedType, InteropScope, ItemOutcome } from './types';
import { asImport } from './write';

/**
 * What an import wrote before from a file that no longer holds it (a section
 * deleted, a heading renamed): found by the id prefix every item of that
 * file shares (see ids.ts), only for files read whole this time (a broken
 * line must not count as a deletion), and removed only while the store has
 * it as the import left it: one a person edited since is kept and reported.
 *
 * An item's id follows its place (heading path and occurrence), so text can
 * move to another id while it is still in the file (one of two "## Notes"
 * deleted: the second one becomes the first). Its text is then matched among
 * this import's items of the file: if the item now holding it is written, the
 * old one is a duplicate and goes; if not (skipped: the other id was edited
 * here), the old one is the only copy in the store, and stays.
 *
 * A file gone altogether (deleted, renamed) is not read at all: when the
 * import covers a folder, what this format imported before from a file in
 * it that no longer exists is found by the file the last import's
 * provenance names ("import --from <format> <file>", see write.ts).
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
  planned: readonly PlannedItem[],
): Promise<Removal[]> {
  const found = new Set(planned.map((plan) => plan.id));
  const removals: Removal[] = [];
  for (const file of files) {
    for (const type of ['memory', 'skill'] as const) {
      for (const id of await idsWithPrefix(target, type, scope, sourcePrefix(type, scope, file))) {
        if (found.has(id)) continue;
        const removal = await removalOf(target, id, type, file, planned);
        if (removal) removals.push(removal);
      }
    }
  }
  return removals;
}

/**
 * What `format` imported before into `scope` from files under `folder` that
 * no longer exist (`exists` says), less the files read this time.
 */
export async function findGoneFiles(
  target: ImportTarget,
  scope: InteropScope,
  format: string,
  folder: string,
  read: ReadonlySet<string>,
  exists: (file: string) => boolean,
): Promise<Removal[]> {
  const removals: Removal[] = [];
  const tool = `import --from ${format} `;
  for (const type of ['memory', 'skill'] as const) {
    const byPrefix = new Map<string, string[]>();
    for (const id of await idsWithPrefix(target, type, scope, `${type}-imp-`)) {
      const prefix = id.slice(0, id.lastIndexOf('-') + 1);
      byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), id]);
    }
    for (const [prefix, ids] of byPrefix) {
      // Every id of a prefix comes from one file: the first one's provenance names it.
      const named = (await target.history(ids[0]!)).find((entry) => entry.commit.by.tool?.startsWith(tool));
      const file = named?.commit.by.tool?.slice(tool.length);
      if (file === undefined || read.has(file) || !isUnder(folder, file) || exists(file)) continue;
      // The prefix is the file's own: a tool string that only looks like one does not remove anything.
      if (sourcePrefix(type, scope, file) !== prefix) continue;
      for (const id of ids) {
        const removal = await removalOf(target, id, type, file, [], `${file} no longer exists`);
        if (removal) removals.push(removal);
      }
    }
  }
  return removals;
}

async function removalOf(
  target: ImportTarget,
  id: string,
  type: ImportedType,
  file: string,
  planned: readonly PlannedItem[],
  absent = `no longer in ${file}`,
): Promise<Removal | undefined> {
  const history = await target.history(id);
  const entity = history[0]?.entity;
  if (!entity || !('content' in entity)) return undefined;
  const title = titleOf([], entity.content);
  const byImport = history[0]!.commit.by.kind === 'import';
  const moved = movedTo(history, file, planned);
  if (moved && !written(moved)) {
    const why = byImport ? '' : ', and edited in this store since';
    return {
      id,
      type,
      file,
      title,
      remove: false,
      reason: `its text is still in ${place(moved.item)}, which is not imported over another item${why}: kept`,
    };
  }
  const where = moved ? `its text moved to ${place(moved.item)}` : absent;
  return byImport
    ? { id, type, file, title, remove: true, reason: where }
    : { id, type, file, title, remove: false, reason: `${where}, but edited in this store since: kept` };
}

/** This import's item of `file` holding the text the last import gave the item, if any. */
function movedTo(history: readonly HistoryEntry[], file: string, planned: readonly PlannedItem[]) {
  const imported = history.find((entry) => entry.commit.by.kind === 'import' && entry.entity)?.entity;
  if (!imported || !('content' in imported)) return undefined;
  return planned.find(
    (plan) =>
      plan.item.path === file &&
      (plan.item.content === imported.content || plan.write?.input.content === imported.content),
  );
}

/** Whether the store holds the planned item under its own id once the import is done. */
const written = (plan: PlannedItem): boolean =>
  plan.action === 'create' || plan.action === 'update' || plan.action === 'unchanged';

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
