import { MemoryError } from '../../core/errors';
import { MAX_MESSAGE_BYTES } from '../mcp/transport';

/**
 * The largest request body read, in bytes: the MCP stdio server's limit on
 * a message, for the same reason (LIMITS.maxContentBytes of content, which
 * JSON escaping can make six times longer, and the other arguments).
 */
export const MAX_BODY_BYTES = MAX_MESSAGE_BYTES;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request's body as JSON, or undefined when it is empty. A body longer
 * than `limit` is refused (CONTENT_TOO_LARGE, answered 413) as soon as
 * that is known: from Content-Length before a byte is read, or while it
 * streams in, without keeping more than `limit` bytes. Bad UTF-8 or JSON is
 * INVALID_INPUT.
 */
export async function readJsonBody(request: Request, limit = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (size === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks, size));
  } catch {
    throw new MemoryError('INVALID_INPUT', 'The body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(limit: number): MemoryError {
  return new MemoryError('CONTENT_TOO_LARGE', `The body is larger than the limit of ${limit} bytes.`);
}
