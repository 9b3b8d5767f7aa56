import { MemoryError } from '../errors';
import { REASONING_MODES, type ReasoningMode, type ReasoningOptions } from './types';

/** ReasoningOptions with every default filled in and every bound checked. */
export interface ReasoningSettings {
  reasoning: ReasoningMode;
  rerank: boolean;
  maxSteps: number;
  rerankTop: number;
  maxPromptTokens: number;
  maxOutputTokens: number;
  maxCandidateChars: number;
  timeoutMs: number;
}

type Bounded = Exclude<keyof ReasoningSettings, 'reasoning' | 'rerank'>;

/**
 * Each numeric option's default and range. The upper bounds keep a run's
 * cost predictable whatever a caller (or a tool call from an agent) asks:
 * at most 5 plans, and prompts a small local model can still take.
 */
const BOUNDS: Record<Bounded, { fallback: number; min: number; max: number }> = {
  maxSteps: { fallback: 3, min: 1, max: 5 },
  rerankTop: { fallback: 20, min: 2, max: 50 },
  // The floor leaves room for the longest instructions and a few candidates.
  maxPromptTokens: { fallback: 3_000, min: 1_000, max: 32_000 },
  maxOutputTokens: { fallback: 512, min: 64, max: 4_096 },
  maxCandidateChars: { fallback: 800, min: 100, max: 8_000 },
  timeoutMs: { fallback: 30_000, min: 1, max: 600_000 },
};

/** Whether these options ask for anything beyond plain search: the one check plain search pays. */
export function wantsReasoning(options: ReasoningOptions | undefined): boolean {
  return (options?.reasoning ?? 'none') !== 'none' || options?.rerank === true;
}

/** The options with defaults filled in; INVALID_INPUT for a value out of range, before anything runs. */
export function reasoningSettings(options: ReasoningOptions): ReasoningSettings {
  const reasoning = options.reasoning ?? 'none';
  if (!REASONING_MODES.includes(reasoning)) {
    throw new MemoryError(
      'INVALID_INPUT',
      `reasoning must be ${REASONING_MODES.join(', ')} (got ${String(reasoning)}).`,
    );
  }
  const bounded = (name: Bounded): number => {
    const value = options[name] ?? BOUNDS[name].fallback;
    const { min, max } = BOUNDS[name];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new MemoryError('INVALID_INPUT', `${name} must be a whole number from ${min} to ${max} (got ${value}).`);
    }
    return value;
  };
  return {
    reasoning,
    rerank: options.rerank ?? false,
    maxSteps: bounded('maxSteps'),
    rerankTop: bounded('rerankTop'),
    maxPromptTokens: bounded('maxPromptTokens'),
    maxOutputTokens: bounded('maxOutputTokens'),
    maxCandidateChars: bounded('maxCandidateChars'),
    timeoutMs: bounded('timeoutMs'),
  };
}
