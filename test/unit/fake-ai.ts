import type { AiProvider, ChatMessage } from '../../src/core/ai/provider';

/** A reply, or a function that makes one from the request (and may, say, abort the caller). */
export type CannedReply = string | ((messages: readonly ChatMessage[], call: number) => string);

/**
 * An AiProvider that answers from a list of canned replies, in order (the
 * last one repeats), and records every request it gets.
 */
export class FakeAi implements AiProvider {
  readonly requests: ChatMessage[][] = [];

  constructor(private readonly replies: readonly CannedReply[]) {}

  async chat(messages: readonly ChatMessage[], options: { signal?: AbortSignal } = {}): Promise<string> {
    if (options.signal?.aborted) throw new Error('aborted');
    this.requests.push(messages.map((message) => ({ ...message })));
    const call = this.requests.length;
    const reply = this.replies[Math.min(call, this.replies.length) - 1];
    if (reply === undefined) throw new Error('FakeAi has no replies');
    return typeof reply === 'string' ? reply : reply(messages, call);
  }

  /** The last message of request `index` (0-based): on a retry, the correction. */
  lastMessage(index: number): string {
    return this.requests[index]?.at(-1)?.content ?? '';
  }
}

export const json = (value: unknown): string => JSON.stringify(value);
