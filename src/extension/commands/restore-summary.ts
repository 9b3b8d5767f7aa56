import * as vscode from 'vscode';

import type { RestoreChange, RestorePreview } from '../../core/snapshots/preview';
import type { EntityType } from '../../core/types';
import { TYPE_INFO } from '../views/labels';

/** "3 entities (2 memories, 1 knowledge chunk)": a change's total and its split by type. */
function counts(change: RestoreChange): string {
  const types = Object.entries(change.byType)
    .map(
      ([type, n]) =>
        `${n} ${n === 1 ? TYPE_INFO[type as EntityType].singular : TYPE_INFO[type as EntityType].plural.toLowerCase()}`,
    )
    .join(', ');
  return vscode.l10n.t('{0} {1} ({2})', change.total, change.total === 1 ? 'entity' : 'entities', types);
}

/**
 * What restoring a snapshot would change, for the confirmation: one line per
 * kind of change that has any, then how many entities stay as they are.
 */
export function describeRestore(preview: RestorePreview): string {
  const lines: string[] = [];
  if (preview.restored.total > 0)
    lines.push(vscode.l10n.t('Brings back {0} deleted since the snapshot.', counts(preview.restored)));
  if (preview.removed.total > 0) lines.push(vscode.l10n.t('Removes {0} not in the snapshot.', counts(preview.removed)));
  if (preview.changed.total > 0)
    lines.push(vscode.l10n.t('Puts back the snapshot’s version of {0} changed since.', counts(preview.changed)));
  if (lines.length === 0) lines.push(vscode.l10n.t('No entity changes.'));
  lines.push(
    vscode.l10n.t('Leaves {0} unchanged.', preview.unchanged === 1 ? '1 entity' : `${preview.unchanged} entities`),
  );
  lines.push(vscode.l10n.t('Every entity’s history goes back to the snapshot: commits made since it are dropped.'));
  return lines.join('\n');
}
