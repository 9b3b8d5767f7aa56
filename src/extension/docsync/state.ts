import * as vscode from 'vscode';

import type { DocSyncState, DocSyncStatus } from './status';

/** Fields that describe the moment and are dropped when the state moves on. */
type Transient = 'progress' | 'message';

/** The one place doc sync's status lives; every change is announced. */
export class DocSyncModel implements DocSyncState, vscode.Disposable {
  private current: DocSyncStatus = { state: 'starting' };
  private readonly changes = new vscode.EventEmitter<DocSyncStatus>();
  readonly onDidChange = this.changes.event;

  get status(): DocSyncStatus {
    return this.current;
  }

  /**
   * Moves to a new state. Counts and the last sync time carry over unless
   * given (they stay true until the next sync); progress and message are
   * the new state's own.
   */
  update(next: Pick<DocSyncStatus, 'state' | Transient> & Partial<DocSyncStatus>): void {
    const { progress: _progress, message: _message, ...kept } = this.current;
    this.current = { ...kept, ...next };
    this.changes.fire(this.current);
  }

  dispose(): void {
    this.changes.dispose();
  }
}
