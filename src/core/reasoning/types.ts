/**
 * Reasoned search: the user's own model rewrites the query, or plans
 * searches step by step, and may order the best candidates, on top of any
 * search that returns scored hits (memories, recall's candidates, sessions).
 */

export const REASONING_MODES = ['none', 'rewrite', 'iterative'] as const;
/**
 * `none`: the query as given. `rewrite`: the model proposes better queries,
 * whose results are fused with the query's own. `iterative`: the model
 * reads what was found, notes evidence and plans the next searches, for a
 * bounded number of steps.
 */
export type ReasoningMode = (typeof REASONING_MODES)[number];

/** What reasoning needs of a search result; the search's own type rides along untouched. */
export interface Hit {
  readonly id: string;
  /** What the model reads of the hit (cut to the prompt's budget). */
  readonly text: string;
  readonly score: number;
}

/** A search, best first. It is given the run's signal and should stop when it aborts. */
export type SearchFn<T extends Hit> = (query: string, limit: number, signal?: AbortSignal) => Promise<T[]>;

export interface ReasoningOptions {
  /** Default 'none'. */
  reasoning?: ReasoningMode;
  /** Have the model order the top `rerankTop` candidates. Default false. */
  rerank?: boolean;
  /** Planning steps (model calls) of `iterative`. Default 3, at most 5. */
  maxSteps?: number;
  /** How many of the best candidates the model orders. Default 20, at most 50. */
  rerankTop?: number;
  /** Most tokens in a request to the model, estimated as characters / 4. Default 3,000. */
  maxPromptTokens?: number;
  /** Most tokens in the model's reply (sent to the model as its limit). Default 512. */
  maxOutputTokens?: number;
  /** Most characters of a candidate's text the model is shown. Default 800. */
  maxCandidateChars?: number;
  /** How long one model call may take before plain search answers instead. Default 30 s. */
  timeoutMs?: number;
  /** Aborting it ends the run with CANCELLED, whatever step it is at. */
  signal?: AbortSignal;
}

/** One thing a run did, in order: the first is always the search for the query as given. */
export interface ReasoningStep {
  kind: 'search' | 'rewrite' | 'plan' | 'rerank';
  /** The queries this step ran: none for a rerank, nor for a plan that stopped. */
  queries: string[];
  /** Results that no earlier step had found. */
  newResults: number;
  /** What the model noted toward an answer (plan steps). */
  evidence?: string[];
  /** The model said the evidence answers the query (plan steps). */
  enough?: boolean;
  /** How many candidates the model was shown to order (rerank). */
  candidates?: number;
}

/** Why plain search answered instead of the model. */
export interface Degradation {
  /** `unavailable`: the model failed or is missing; `invalid-output`: its replies were unusable even after a correction. */
  cause: 'unavailable' | 'invalid-output' | 'timeout';
  reason: string;
}

export interface ReasonedResult<T extends Hit> {
  /** Best first, at most the limit asked for: the search's own hits, never copies. */
  results: T[];
  /** What was asked for; when `degraded` is set, plain search answered instead. */
  strategy: { reasoning: ReasoningMode; rerank: boolean };
  /** What ran, including the steps before a failure. */
  steps: ReasoningStep[];
  /** Set when the model could not be used: `results` are then the query's own, unchanged. */
  degraded?: Degradation;
}
