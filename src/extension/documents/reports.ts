import * as vscode from 'vscode';

/** Generated reports (stats, a recall preview, verify's problems) open under this scheme, read-only. */
export const REPORT_SCHEME = 'workspace-memory-report';

/**
 * Serves each report's text to its read-only document. An untitled document
 * would open dirty and ask to be saved on close; a report is something to
 * read, titled by what it is. A report's text is dropped when its document
 * closes.
 */
class Reports implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 1;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** A new document for `text`, named `title` (unique, so an earlier report stays as it was). */
  add(title: string, text: string): vscode.Uri {
    // A path separator in the title (a query about "a/b") would turn into folders in the tab's name.
    const name = title.replace(/[/\\]/g, '-').trim() || 'Report';
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}.md`, query: String(this.next++) });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  closed(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }
}

const reports = new Reports();

export function registerReports(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, reports),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (document.uri.scheme === REPORT_SCHEME) reports.closed(document.uri);
    }),
  );
}

/**
 * Shows generated Markdown in a read-only tab titled `title`: as its source,
 * or `rendered` (tables and emphasis drawn, not their pipes and asterisks) in
 * VS Code's Markdown preview, when that is there (it is a built-in extension
 * a person can disable: the source is shown then).
 */
export async function showReport(title: string, markdown: string, rendered = false): Promise<vscode.TextDocument> {
  const document = await vscode.workspace.openTextDocument(reports.add(title, markdown));
  await vscode.languages.setTextDocumentLanguage(document, 'markdown');
  const previewed =
    rendered &&
    (await vscode.commands.executeCommand('markdown.showPreview', document.uri).then(
      () => true,
      () => false,
    ));
  if (!previewed) await vscode.window.showTextDocument(document, { preview: true });
  return document;
}
