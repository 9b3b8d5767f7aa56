/**
 * What a command handler writes to: the chat response stream, plus a record
 * of the text shown, so the turn can be stored in the conversation's session.
 */
import * as vscode from 'vscode';
import type { Entity, KnowledgeEntity } from '../../core/types';
import { planWorkspace } from '../docsync/settings';
import { entityUri } from '../documents/uris';

/** Inline Markdown that shows `text` literally: stored content may hold `*`, `_`, `[`, HTML… */
export function escape(text: string): string {
  return text.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

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

/** An entity to cite: a whole one, or just its type and id (what mining reports). */
export type Citable = Entity | Pick<Entity, 'type' | 'id'>;

/** A document chunk opens at its file and line; anything else as its entity document. */
function whereIs(entity: Citable): vscode.Location | vscode.Uri {
  const chunk = entity.type === 'knowledge' && 'sourceHash' in entity && entity.sourceHash ? entity : undefined;
  return (chunk && chunkLocation(chunk as KnowledgeEntity)) || entityUri(entity);
}

export class Reply {
  private readonly shown: string[] = [];
  private readonly sources = new Set<string>();

  constructor(private readonly stream: vscode.ChatResponseStream) {}

  markdown(text: string): void {
    this.shown.push(text);
    this.stream.markdown(text);
  }

  progress(text: string): void {
    this.stream.progress(text);
  }

  /** A button; its title is kept in the record so the stored turn says what was offered. */
  button(command: vscode.Command): void {
    this.shown.push(`\n[${command.title}]\n`);
    this.stream.button(command);
  }

  /** Cites an entity (its document) or a document chunk (its file and line) as a source. */
  reference(entity: Citable): void {
    const where = whereIs(entity);
    this.sources.add(
      where instanceof vscode.Location ? `${where.uri.toString()}#${where.range.start.line + 1}` : where.toString(),
    );
    this.stream.reference(where);
  }

  /** An inline link to an entity's document (or a chunk's file). */
  anchor(entity: Citable, title: string): void {
    this.shown.push(title);
    this.stream.anchor(whereIs(entity), title);
  }

  /** An inline link to any document, such as one version of an entity. */
  link(uri: vscode.Uri, title: string): void {
    this.shown.push(title);
    this.stream.anchor(uri, title);
  }

  /** The sources cited, as URIs (a file's with `#line`), in the order first cited. */
  cited(): string[] {
    return [...this.sources];
  }

  /** Everything shown as text, for the conversation's session. */
  text(): string {
    return this.shown.join('').trim();
  }
}
