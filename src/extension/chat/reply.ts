/**
 * What a command handler writes to: the chat response stream, plus a record
 * of the text shown, so the turn can be stored in the conversation's session.
 */
import * as vscode from 'vscode';

import type { Entity } from '../../core/types';
import { chunkLocation } from '../documents/chunk-location';
import { isSyncedChunk } from '../documents/format';
import { entityUri } from '../documents/uris';

/** Inline Markdown that shows `text` literally: stored content may hold `*`, `_`, `[`, HTML… */
export function escape(text: string): string {
  return text.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

/** An entity to cite: a whole one, or just its type and id (what mining reports). */
export type Citable = Entity | Pick<Entity, 'type' | 'id'>;

/** A document chunk opens at its file and line; anything else as its entity document. */
function whereIs(entity: Citable): vscode.Location | vscode.Uri {
  return ('content' in entity && isSyncedChunk(entity) && chunkLocation(entity)) || entityUri(entity);
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
