import * as vscode from 'vscode';

import type { Entity } from '../core/types';
import { entityUri, sameEntityDocument } from './documents/uris';
import type { Services } from './services';

/**
 * Opens an entity as a document: a preview tab unless `edit` asks for a
 * lasting one. A document of it already open is shown again, even when its
 * tab has an older readable name (the entity's first words changed since).
 */
export async function openEntity(entity: Pick<Entity, 'type' | 'id'>, edit = false): Promise<void> {
  const uri = entityUri(entity);
  const open = vscode.workspace.textDocuments.find((document) => sameEntityDocument(document.uri, uri));
  const document = open ?? (await vscode.workspace.openTextDocument(uri));
  await vscode.window.showTextDocument(document, { preview: !edit, preserveFocus: !edit });
}

/** Runs `work` with a cancellable notification; the token becomes an AbortSignal for the store. */
export function withProgress<T>(
  title: string,
  work: (report: (message: string, increment?: number) => void, signal: AbortSignal) => Promise<T>,
  cancellable = true,
): Thenable<T> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable },
    (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      return work((message, increment) => progress.report({ message, increment }), controller.signal);
    },
  );
}

/** A modal yes/no; resolves true only when the user chose `action`. */
export async function confirm(message: string, action: string, detail?: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
}

/** A command handler whose failure reaches the user (a message with the log one click away), never silently. */
export function reporting<A extends unknown[], R>(
  services: Pick<Services, 'reportError'>,
  action: string,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R | undefined> {
  return (...args) =>
    fn(...args).catch((error: unknown) => {
      services.reportError(action, error);
      return undefined;
    });
}
