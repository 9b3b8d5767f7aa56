import { MemoryError } from '../errors';

export interface JsonRequest {
  url: string;
  body: unknown;
  apiKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Names the service in error messages ("embeddings", "chat"). */
  service: string;
}

/**
 * POSTs JSON to an OpenAI-compatible endpoint and returns the parsed answer.
 * Every failure becomes a MemoryError: CANCELLED when the caller aborted,
 * AI_UNAVAILABLE otherwise, with what the server said.
 */
export async function postJson(request: JsonRequest): Promise<unknown> {
  const timeout = AbortSignal.timeout(request.timeoutMs ?? 60_000);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {}),
      },
      body: JSON.stringify(request.body),
      signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
    });
  } catch (error) {
    if (request.signal?.aborted)
      throw new MemoryError('CANCELLED', `The ${request.service} request was cancelled.`, { cause: error });
    throw new MemoryError(
      'AI_UNAVAILABLE',
      `Cannot reach the ${request.service} endpoint ${request.url}: ${describe(error)}`,
      {
        cause: error,
      },
    );
  }
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 200);
    throw new MemoryError('AI_UNAVAILABLE', `The ${request.service} endpoint answered ${response.status}: ${detail}`);
  }
  try {
    return await response.json();
  } catch (error) {
    throw new MemoryError('AI_UNAVAILABLE', `The ${request.service} endpoint did not answer JSON.`, { cause: error });
  }
}

/** The API base joined with an endpoint path, checked to be a URL. */
export function endpoint(base: string, path: string): string {
  try {
    return new URL(`${base.replace(/\/+$/, '')}/${path}`).toString();
  } catch {
    throw new MemoryError('INVALID_INPUT', `"${base}" is not a valid URL.`);
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
