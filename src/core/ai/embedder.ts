import { MemoryError } from '../errors';
import { endpoint, postJson } from './http';

/**
 * Turns texts into vectors. `model` names the vector space: vectors made by
 * different models are never compared, and a model change re-embeds.
 */
export interface Embedder {
  readonly model: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface OpenAiCompatibleEmbedderOptions {
  /** The API base, e.g. http://localhost:11434/v1 (Ollama), http://localhost:1234/v1 (LM Studio), https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey?: string;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
}

/** An Embedder for any server that speaks OpenAI's POST /v1/embeddings. */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly model: string;
  private readonly url: string;

  constructor(private readonly options: OpenAiCompatibleEmbedderOptions) {
    if (!options?.url || !options.model) throw new MemoryError('INVALID_INPUT', 'An embedder needs a url and a model.');
    this.url = endpoint(options.url, 'embeddings');
    this.model = options.model;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const batchSize = this.options.batchSize ?? 64;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      vectors.push(...(await this.request(texts.slice(start, start + batchSize), signal)));
    }
    return vectors;
  }

  private async request(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const body = (await postJson({
      url: this.url,
      body: { model: this.model, input },
      apiKey: this.options.apiKey,
      timeoutMs: this.options.timeoutMs ?? 30_000,
      signal,
      service: 'embeddings',
    })) as { data?: { embedding?: unknown; index?: number }[] } | undefined;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new MemoryError('AI_UNAVAILABLE', 'The embeddings endpoint returned an unexpected response.');
    }
    return [...data]
      .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
      .map((item) => {
        const values = item.embedding;
        if (!Array.isArray(values) || values.length === 0 || !values.every((x) => typeof x === 'number')) {
          throw new MemoryError('AI_UNAVAILABLE', 'The embeddings endpoint returned a malformed vector.');
        }
        return Float32Array.from(values);
      });
  }
}
