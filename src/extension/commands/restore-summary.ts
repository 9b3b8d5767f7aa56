import * as vscode from 'vscode';

import type { RestoreChange, RestorePreview } from '../../core/snapshots';
import type { EntityType } from '../../core/types';
import { TYPE_INFO } from '../views/labels';

/** "3 (2 Memories, 1 Knowledge)": a change's total and its split by type. */
function counts(change: RestoreChange): string {
  const types = Object.entries(change.byType)
    .map(([type, n]) => `${n} ${TYPE_INFO[type as EntityType].plural}`)
    .join(', ');
  return `${change.total} (${types})`;
}

/**
 * What restoring a snapshot would change, for the confirmation: one line per
 * kind of change that has any, then how many entities stay as they are.
 */
export function describeRestore(preview: RestorePreview): string {
  const lines: string[] = [];
  if (preview.restored.total > 0)
    lines.push(vscode.l10n.t('Brings back {0} entities deleted since the snapshot.', counts(preview.restored)));
  if (preview.removed.total > 0)
    lines.push(vscode.l10n.t('Removes {0} entities that are not in the snapshot.', counts(preview.removed)));
  if (preview.changed.total > 0)
    lines.push(
      vscode.l10n.t('Puts back the snapshot’s version of {0} entities changed since.', counts(preview.changed)),
    );
  if (lines.length === 0)
    lines.push(vscode.l10n.t('No entity changes: only the history of edits made since is rewound.'));
  lines.push(vscode.l10n.t('Keeps {0} entities as they are.', preview.unchanged));
  return lines.join('\n');
}
