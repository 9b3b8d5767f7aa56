import type * as vscode from 'vscode';

/** What doc sync is doing, for the status bar and the views. */
export interface DocSyncStatus {
  state: 'starting' | 'idle' | 'syncing' | 'disabled' | 'restricted' | 'unsupported' | 'error';
  /** Documents and chunks ingested, after the last sync. */
  files?: number;
  chunks?: number;
  /** While syncing: files done of total. */
  progress?: { done: number; total: number };
  /** A short human explanation (why disabled, what failed). */
  message?: string;
  lastSyncAt?: number;
}

export interface DocSyncState {
  readonly status: DocSyncStatus;
  readonly onDidChange: vscode.Event<DocSyncStatus>;
}
