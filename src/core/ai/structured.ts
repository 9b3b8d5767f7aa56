import { z } from 'zod';

import { isMemoryError, MemoryError } from '../errors';
import type { AiProvider, ChatMessage } from './provider';

export interface StructuredRequest<S extends z.ZodType> {
  ai: AiProvider;
  /** What the model is asked to do; the reply format is appended to it. */
  instructions: string;
  /** A short example or description of the JSON expected, shown to the model. */
  format: string;
  /** The material to work on (a transcript, a list of entries). */
  input: string;
  /** Checks and shapes the reply; its error messages are what the model is told on a retry. */
  schema: S;
  /** How many times the model may answer in all; default 2 (one retry). */
  attempts?: number;
  signal?: AbortSignal;
}

/** The messages of a first request; exported so callers can measure a request against their budget. */
export function structuredPrompt(instructions: string, format: string, input: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `${instructions}\n\nReply with a single JSON object and nothing else (no explanation, no Markdown). Its shape:\n${format}`,
    },
    { role: 'user', content: input },
  ];
}

/** The least room a request must leave for its input once the instructions are counted. */
const MIN_INPUT_CHARS = 1_000;

/**
 * How many characters of input fit in a request of at most `maxRequestChars`
 * once the instructions and format are counted. A retry also carries the
 * rejected answer and the correction, so it may run over.
 */
export function inputBudget(instructions: string, format: string, maxRequestChars: number): number {
  const fixed = structuredPrompt(instructions, format, '').reduce((sum, message) => sum + message.content.length, 0);
  const budget = maxRequestChars - fixed;
  if (!Number.isInteger(maxRequestChars) || budget < MIN_INPUT_CHARS) {
    throw new MemoryError(
      'INVALID_INPUT',
      `maxRequestChars must be a whole number of at least ${fixed + MIN_INPUT_CHARS}: the instructions alone take ${fixed} characters (got ${maxRequestChars}).`,
    );
  }
  return budget;
}

/**
 * Asks the model for JSON matching `schema`. A reply that holds no JSON or
 * fails the schema is sent back with exactly what was wrong, so the model
 * can correct itself; after the last attempt the call fails with
 * AI_INVALID_OUTPUT. Aborting `signal` fails it with CANCELLED.
 */
export async function askStructured<S extends z.ZodType>(request: StructuredRequest<S>): Promise<z.output<S>> {
  const attempts = request.attempts ?? 2;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new MemoryError('INVALID_INPUT', `attempts must be a whole number of at least 1 (got ${attempts}).`);
  }
  const messages = structuredPrompt(request.instructions, request.format, request.input);
  let problem = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const reply = await chat(request.ai, messages, request.signal);
    const checked = checkReply(reply, request.schema);
    if (checked.ok) return checked.value;
    problem = checked.problem;
    // The conversation keeps the bad answer, so the correction refers to something the model can see.
    messages.push(
      { role: 'assistant', content: reply },
      {
        role: 'user',
        content: `That answer cannot be used: ${problem}\nReply again with only the corrected JSON object.`,
      },
    );
  }
  throw new MemoryError(
    'AI_INVALID_OUTPUT',
    `The model did not return usable JSON after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${problem}`,
  );
}

/** A reply that was usable, or what was wrong with it, in words the model is shown. */
export type ReplyCheck<T> = { ok: true; value: T } | { ok: false; problem: string };

function checkReply<S extends z.ZodType>(reply: string, schema: S): ReplyCheck<z.output<S>> {
  const json = extractJson(reply);
  if (!json.ok) return json;
  const parsed = schema.safeParse(json.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problem: `the JSON does not match the expected shape:\n${z.prettifyError(parsed.error)}` };
}

/**
 * The JSON value in a model's reply. Models wrap JSON in ```json fences or
 * in sentences, so this tries, in order: the whole reply, each fenced
 * block, then the first balanced {...} or [...] in the text.
 */
export function extractJson(reply: string): ReplyCheck<unknown> {
  const text = reply.trim();
  if (!text) return { ok: false, problem: 'the reply was empty.' };
  const candidates = [text, ...fencedBlocks(text), ...balancedSpans(text)];
  let malformed = '';
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch (error) {
      // Only a candidate that looks like JSON has a parse error worth telling the model about.
      if (/^[{[]/.test(candidate)) malformed ||= (error as Error).message;
    }
  }
  return {
    ok: false,
    problem: malformed ? `the JSON is malformed (${malformed}).` : 'the reply contains no JSON object.',
  };
}

function fencedBlocks(text: string): string[] {
  return [...text.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
}

/** Each top-level span from an opening { or [ to its matching closer, skipping brackets inside strings. */
function balancedSpans(text: string): string[] {
  const spans: string[] = [];
  let start = text.search(/[{[]/);
  while (start !== -1) {
    const end = matchingClose(text, start);
    if (end === -1) {
      // Unclosed: hand the rest over anyway so the parse error names what is missing.
      spans.push(text.slice(start));
      break;
    }
    spans.push(text.slice(start, end + 1));
    const next = text.slice(end + 1).search(/[{[]/);
    start = next === -1 ? -1 : end + 1 + next;
  }
  return spans;
}

function matchingClose(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') stack.push('}');
    else if (char === '[') stack.push(']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** One chat call; any failure after the caller aborted is reported as CANCELLED, whoever raised it. */
async function chat(ai: AiProvider, messages: readonly ChatMessage[], signal: AbortSignal | undefined) {
  if (signal?.aborted) throw new MemoryError('CANCELLED', 'The request to the model was cancelled.');
  try {
    return await ai.chat(messages, { signal });
  } catch (error) {
    if (signal?.aborted && !isMemoryError(error, 'CANCELLED')) {
      throw new MemoryError('CANCELLED', 'The request to the model was cancelled.', { cause: error });
    }
    throw error;
  }
}
