import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import type { Entity } from '../../core/types';
import type { Services } from '../services';
import { collectionOf } from '../store/collections';
import {
  isReadOnly,
  isSyncedChunk,
  lineOfProblem,
  parseEntityDocument,
  renderEntity,
  type VersionNote,
  versionNote,
} from './format';
import { type EntityLocation, isCompared, parseEntityUri, SCHEME } from './uris';

/** A document's entity, as of its version, with what its header says of who wrote it. */
interface Loaded {
  entity: Entity;
  location: EntityLocation;
  note: VersionNote | undefined;
  /** When the version shown was made (an approval changes the document, not the entity's times). */
  mtime: number;
}

/**
 * Serves entities as files: the live version is editable and saving it
 * makes a new version; old versions are read-only, which is what the diff
 * editor compares. Open editors follow changes made anywhere (tools, CLI).
 */
class MemoryFileSystem implements vscode.FileSystemProvider {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  /** Watched documents by entity id, to tell editors when their entity changed. */
  private readonly watched = new Map<string, Set<string>>();

  constructor(
    private readonly services: Services,
    private readonly problems: vscode.DiagnosticCollection,
  ) {}

  storeChanged(entityIds: readonly string[]): void {
    const ids = entityIds.length > 0 ? entityIds.filter((id) => this.watched.has(id)) : [...this.watched.keys()];
    const events = ids.flatMap((id) =>
      [...(this.watched.get(id) ?? [])].map((uri) => ({
        type: vscode.FileChangeType.Changed,
        uri: vscode.Uri.parse(uri),
      })),
    );
    if (events.length > 0) this.changes.fire(events);
  }

  watch(uri: vscode.Uri): vscode.Disposable {
    const location = parseEntityUri(uri);
    if (!location || location.commit) return new vscode.Disposable(() => {});
    const key = uri.toString();
    let set = this.watched.get(location.id);
    if (!set) this.watched.set(location.id, (set = new Set()));
    set.add(key);
    return new vscode.Disposable(() => {
      set.delete(key);
      if (set.size === 0) this.watched.delete(location.id);
    });
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { entity, location, note, mtime } = await this.load(uri);
    const text = renderEntity(entity, Boolean(location.commit), note, isCompared(uri));
    return {
      type: vscode.FileType.File,
      ctime: Date.parse(entity.createdAt),
      // VS Code re-reads a changed document only when its time or size changed. A chunk that moved in
      // its file keeps its version (and time) and its lines often have as many digits as before, so the
      // time also moves with what the document says.
      mtime: mtime + textStamp(text),
      size: Buffer.byteLength(text),
      permissions: isReadOnly(entity, Boolean(location.commit), note) ? vscode.FilePermission.Readonly : undefined,
    };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { entity, location, note } = await this.load(uri);
    return Buffer.from(renderEntity(entity, Boolean(location.commit), note, isCompared(uri)), 'utf8');
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const { entity, location, note } = await this.load(uri);
    if (location.commit)
      throw vscode.FileSystemError.NoPermissions(
        vscode.l10n.t('Old versions are read-only; use Restore This Version.'),
      );
    if (isSyncedChunk(entity))
      throw vscode.FileSystemError.NoPermissions(
        vscode.l10n.t(
          'This chunk mirrors {0}: edit the file, and doc sync brings the change here.',
          entity.source ?? '',
        ),
      );
    if (note?.pending?.proposes?.action === 'delete')
      throw vscode.FileSystemError.NoPermissions(
        vscode.l10n.t(
          'This proposes to delete {0}: Approve or Reject it in the Memory view.',
          note.pending.proposes.target,
        ),
      );
    const text = Buffer.from(content).toString('utf8');
    try {
      const update = parseEntityDocument(text, entity);
      const memory = await this.services.memory();
      // A write waiting for review is approved by saving it, with the reviewer's edits.
      if (note?.pending) await memory.review.approve([entity.id], update ?? undefined);
      else if (update) await collectionOf(memory, entity.type).update(entity.id, update);
      this.problems.delete(uri);
    } catch (error) {
      if (!isMemoryError(error)) throw error;
      this.refused(uri, text, entity, error.message);
      throw vscode.FileSystemError.NoPermissions(error.message);
    }
  }

  /**
   * A save the store refused: VS Code's own "Failed to save … Unable to write
   * file" notice buries the reason at its end, so the reason is shown first in
   * a notice of our own, and marked on the line it is about.
   */
  private refused(uri: vscode.Uri, text: string, entity: Entity, reason: string): void {
    const line = lineOfProblem(text, entity.type, reason);
    const diagnostic = new vscode.Diagnostic(
      new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER),
      reason,
      vscode.DiagnosticSeverity.Error,
    );
    diagnostic.source = vscode.l10n.t('Workspace Memory');
    this.problems.set(uri, [diagnostic]);
    void vscode.window.showErrorMessage(vscode.l10n.t('Not saved: {0}', reason));
  }

  /**
   * The entity of a document: the version its commit names, or the current
   * one, which is the live entity or a write waiting for review (the store's
   * `get` leaves those out; their history has them).
   */
  private async load(uri: vscode.Uri): Promise<Loaded> {
    const location = parseEntityUri(uri);
    if (!location) throw vscode.FileSystemError.FileNotFound(uri);
    const memory = await this.services.memory();
    let loaded: Omit<Loaded, 'location'> | undefined;
    try {
      if (location.commit) {
        const [version, outline] = await Promise.all([
          memory.worker.entityAt(location.id, location.commit),
          memory.worker.historyOutline(location.id),
        ]);
        if (version?.entity) {
          const note = versionNote([version.commit]);
          // A retired memory's versions come back by Reinstate, not by Restore This Version.
          const head = outline.commits[0]?.commit;
          if (note && head?.op === 'supersede' && head.supersededBy) note.supersededBy = head.supersededBy;
          loaded = { entity: version.entity, note, mtime: Date.parse(version.commit.time) };
        }
      } else {
        const [live, { commits, latest }] = await Promise.all([
          memory.get(location.id),
          memory.worker.historyOutline(location.id),
        ]);
        const note = versionNote(commits.map(({ commit }) => commit));
        const entity = live ?? (note?.pending ? latest : null);
        if (entity) {
          const changed = commits[0] ? Date.parse(commits[0].commit.time) : 0;
          loaded = { entity, note, mtime: Math.max(Date.parse(entity.updatedAt), changed) };
        }
      }
    } catch (error) {
      if (isMemoryError(error, 'INVALID_ID')) throw vscode.FileSystemError.FileNotFound(uri);
      throw error;
    }
    if (!loaded || loaded.entity.type !== location.type) throw vscode.FileSystemError.FileNotFound(uri);
    return { ...loaded, location };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions();
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Use Memory: Delete to delete an entity.'));
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions();
  }
}

/** Registers the `workspace-memory:` file system; open documents follow store changes. */
export function registerMemoryFileSystem(context: vscode.ExtensionContext, services: Services): void {
  const problems = vscode.languages.createDiagnosticCollection('workspace-memory');
  const fileSystem = new MemoryFileSystem(services, problems);
  context.subscriptions.push(
    problems,
    // A refused save's mark lasts until the document is edited, reverted or closed (the next save says anew).
    vscode.workspace.onDidChangeTextDocument(({ document, contentChanges }) => {
      if (contentChanges.length > 0 && problems.has(document.uri)) problems.delete(document.uri);
    }),
    vscode.workspace.onDidCloseTextDocument((document) => problems.delete(document.uri)),
    vscode.workspace.registerFileSystemProvider(SCHEME, fileSystem, { isCaseSensitive: true }),
    services.onDidChangeStore((change) => fileSystem.storeChanged(change.entityIds)),
  );
}

/** 0–999 from a text (FNV-1a): added to a document's time, so that a change of text is a change of time. */
function textStamp(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % 1000;
}
