import { MemoryError } from '../errors';
import { endpoint, postJson } from './http';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatOptions {
  signal?: AbortSignal;
  /**
   * Most tokens the reply may take. Sent where the model's API takes it
   * (OpenAI's max_tokens); a provider without such a setting may ignore it,
   * so callers still treat a long reply as possible.
   */
  maxTokens?: number;
}

/**
 * A language model: chat messages in, text out. The core's AI features (RAG
 * answers, mining, consolidation) need nothing more, so the CLI can use any
 * OpenAI-compatible server and the extension VS Code's own models.
 */
export interface AiProvider {
  chat(messages: readonly ChatMessage[], options?: ChatOptions): Promise<string>;
}

export interface OpenAiCompatibleChatOptions {
  /** The API base, e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey?: string;
  /** Default 120 s: local models can be slow. */
  timeoutMs?: number;
}

/** An AiProvider for any server that speaks OpenAI's POST /v1/chat/completions. */
export class OpenAiCompatibleChat implements AiProvider {
  private readonly url: string;

  constructor(private readonly options: OpenAiCompatibleChatOptions) {
    if (!options?.url || !options.model)
      throw new MemoryError('INVALID_INPUT', 'A chat model needs a url and a model.');
    this.url = endpoint(options.url, 'chat/completions');
  }

  async chat(messages: readonly ChatMessage[], options: ChatOptions = {}): Promise<string> {
    const body = (await postJson({
      url: this.url,
      body: {
        model: this.options.model,
        messages,
        stream: false,
        ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
      },
      apiKey: this.options.apiKey,
      timeoutMs: this.options.timeoutMs ?? 120_000,
      signal: options.signal,
      service: 'chat',
    })) as { choices?: { message?: { content?: unknown } }[] } | undefined;
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new MemoryError('AI_UNAVAILABLE', 'The chat endpoint returned no message.');
    return content;
  }
}
