import * as vscode from 'vscode';

/**
 * Whether VS Code offers any chat language model. `@memory` needs one to
 * answer; without one, a user who types `@memory /remember …` gets only
 * "Language model unavailable", so the views say so beforehand (and that
 * everything else works without a model). Follows models being installed,
 * signed into or removed.
 */
export class ChatModelAvailability implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** Undefined until the first answer: the views say nothing while it is not known. */
  private state: boolean | undefined;
  private checking: Promise<boolean> | undefined;

  constructor(private readonly select: () => Thenable<readonly unknown[]> = () => vscode.lm.selectChatModels()) {
    this.subscription = vscode.lm.onDidChangeChatModels(() => void this.check());
    void this.check();
  }

  get available(): boolean | undefined {
    return this.state;
  }

  /** Asks VS Code again; resolves with whether a model is available (an error counts as none). */
  check(): Promise<boolean> {
    const checking = Promise.resolve(this.select()).then(
      (models) => models.length > 0,
      () => false,
    );
    this.checking = checking;
    return checking.then((available) => {
      // A later check wins over an earlier one that answered late.
      if (this.checking !== checking) return this.checking ?? available;
      if (available !== this.state) {
        this.state = available;
        void vscode.commands.executeCommand('setContext', 'workspaceMemory.noChatModel', !available);
        this.changed.fire();
      }
      return available;
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
