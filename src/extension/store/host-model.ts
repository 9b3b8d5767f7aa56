/**
 * The host's language model as the worker sees it: an AiProvider whose
 * every call is a question posted to the extension host (which owns
 * vscode.lm) and answered by message. Used for reasoning and reranking in
 * recall and the tools' searches, which run here, beside the database.
 */
import type { AiProvider, ChatMessage, ChatOptions } from '../../core/ai/provider';
import { MemoryError } from '../../core/errors';
import type { Response, SerializedError } from './protocol';

interface Waiting {
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

export class HostModels {
  private readonly waiting = new Map<number, Waiting>();
  private nextAsk = 1;

  constructor(
    private readonly post: (message: Response) => void,
    private readonly revive: (error: SerializedError) => Error,
  ) {}

  /** The model for call `id`: its questions stop when `callSignal` (the call's cancellation) aborts. */
  forCall(id: number, callSignal: AbortSignal): AiProvider {
    return {
      chat: (messages: readonly ChatMessage[], options: ChatOptions = {}) => {
        const signal = options.signal ? AbortSignal.any([callSignal, options.signal]) : callSignal;
        if (signal.aborted) return Promise.reject(new MemoryError('CANCELLED', 'Cancelled.'));
        const ask = this.nextAsk++;
        return new Promise<string>((resolve, reject) => {
          const onAbort = () => {
            this.waiting.delete(ask);
            this.post({ kind: 'model-cancel', ask });
            reject(new MemoryError('CANCELLED', 'Cancelled.'));
          };
          signal.addEventListener('abort', onAbort, { once: true });
          const settle =
            <V>(fn: (value: V) => void) =>
            (value: V) => {
              signal.removeEventListener('abort', onAbort);
              this.waiting.delete(ask);
              fn(value);
            };
          this.waiting.set(ask, { resolve: settle(resolve), reject: settle(reject) });
          this.post({
            kind: 'model',
            id,
            ask,
            messages: messages.map(({ role, content }) => ({ role, content })),
            ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
          });
        });
      },
    };
  }

  /** The host's answer to a question; one no longer waited for (cancelled) is dropped. */
  reply(ask: number, text: string | undefined, error: SerializedError | undefined): void {
    const waiting = this.waiting.get(ask);
    if (!waiting) return;
    if (error) waiting.reject(this.revive(error));
    else if (typeof text === 'string') waiting.resolve(text);
    else waiting.reject(new MemoryError('AI_UNAVAILABLE', 'The host answered with no text.'));
  }
}
