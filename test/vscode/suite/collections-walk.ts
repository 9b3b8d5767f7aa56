// Walking the Collections view as a user expanding every row would: type →
// scope → groups (category, user, folder, document) → entities.
import type { Entity } from '../../../src/core/types';
import type { CollectionNode } from '../../../src/extension/views/collections-tree';
import type { RegisteredApi } from './extension-api';

type Views = RegisteredApi['views'];

/** Every row under `node`, depth first, without expanding entities or "Show more" rows. */
export async function descendants(views: Views, node?: CollectionNode): Promise<CollectionNode[]> {
  const rows: CollectionNode[] = [];
  for (const child of await views.collections.getChildren(node)) {
    rows.push(child);
    if (child.kind !== 'entity' && child.kind !== 'more') rows.push(...(await descendants(views, child)));
  }
  return rows;
}

/** The entities the view shows of one type, in every scope and group (the first page of each). */
export async function entitiesShownIn(views: Views, type: Entity['type']): Promise<Entity[]> {
  const types = await views.collections.getChildren();
  const typeNode = types.find((n) => n.kind === 'type' && n.type === type);
  if (!typeNode) return [];
  const rows = await descendants(views, typeNode);
  return rows.flatMap((row) => (row.kind === 'entity' ? [row.entity] : []));
}
