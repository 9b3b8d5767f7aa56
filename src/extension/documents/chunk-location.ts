import * as vscode from 'vscode';

import type { KnowledgeEntity } from '../../core/types';
import { planWorkspace } from '../docsync/settings';

/**
 * Where a document chunk came from, as a location in the workspace. Chunk
 * sources are relative paths, prefixed with the folder's name when the
 * workspace has several folders (see docsync/settings.ts).
 */
export function chunkLocation(chunk: KnowledgeEntity): vscode.Location | undefined {
  if (!chunk.source) return undefined;
  const plans = planWorkspace(vscode.workspace.workspaceFolders ?? []).active;
  const plan = plans.find((p) => p.options.sourcePrefix && chunk.source!.startsWith(`${p.options.sourcePrefix}/`));
  const folder = plan?.folder ?? (plans.length === 1 ? plans[0]!.folder : undefined);
  if (!folder) return undefined;
  const relative = plan ? chunk.source.slice(plan.options.sourcePrefix!.length + 1) : chunk.source;
  const line = Math.max((chunk.startLine ?? 1) - 1, 0);
  return new vscode.Location(vscode.Uri.joinPath(folder.uri, ...relative.split('/')), new vscode.Position(line, 0));
}
