import { MemoryError } from '../errors';

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
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiCompatibleEmbedderOptions) {
    if (!options?.url || !options.model) throw new MemoryError('INVALID_INPUT', 'An embedder needs a url and a model.');
    try {
      this.endpoint = new URL(`${options.url.replace(/\/+$/, '')}/embeddings`).toString();
    } catch {
      throw new MemoryError('INVALID_INPUT', `The embeddings URL "${options.url}" is not a valid URL.`);
    }
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
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.model, input }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw new MemoryError('CANCELLED', 'Embedding was cancelled.', { cause: error });
      throw new MemoryError(
        'EMBEDDER_UNAVAILABLE',
        `Cannot reach the embeddings endpoint ${this.endpoint}: ${describe(error)}`,
        {
          cause: error,
        },
      );
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 200);
      throw new MemoryError('EMBEDDER_UNAVAILABLE', `The embeddings endpoint answered ${response.status}: ${detail}`);
    }
    const body = (await response.json().catch(() => undefined)) as
      { data?: { embedding?: unknown; index?: number }[] } | undefined;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new MemoryError('EMBEDDER_UNAVAILABLE', 'The embeddings endpoint returned an unexpected response.');
    }
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      if (
        !Array.isArray(item.embedding) ||
        item.embedding.length === 0 ||
        !item.embedding.every((x) => typeof x === 'number')
      ) {
        throw new MemoryError('EMBEDDER_UNAVAILABLE', 'The embeddings endpoint returned a malformed vector.');
      }
      return Float32Array.from(item.embedding as number[]);
    });
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
