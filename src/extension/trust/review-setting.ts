/**
 * `workspaceMemory.review.agentWrites` as the store's review policy. No
 * `vscode` import, so the mapping is unit-tested under plain Node.
 */
import type { WriterKind } from '../../core/provenance';
import type { ReviewMode, ReviewPolicy } from '../../core/trust/review-policy';

/** The writers the setting is about: agents, not people nor the tools they run themselves (CLI, import, doc sync). */
export const AGENT_WRITERS = ['copilot', 'mcp', 'mining', 'consolidation'] as const satisfies readonly WriterKind[];
type AgentWriter = (typeof AGENT_WRITERS)[number];

export interface ReviewSetting {
  /** The policy the store opens with; undefined keeps the store's default (MCP clients, mining, consolidation wait). */
  policy: ReviewPolicy | undefined;
  /** Parts of the value that were left out, as written (an unknown writer, a mode other than queue or immediate). */
  ignored: string[];
}

const isMode = (value: unknown): value is ReviewMode => value === 'queue' || value === 'immediate';
const isAgentWriter = (value: string): value is AgentWriter => (AGENT_WRITERS as readonly string[]).includes(value);

/**
 * `"default"`: the store's defaults; `"queue"`: every agent's writes wait,
 * Copilot's included; `"immediate"`: nothing waits; an object sets agents
 * one by one (`{ "copilot": "queue" }`), the others keeping their default.
 * People's writes never wait. A value the store would refuse is ignored and
 * said, so a typo in settings.json never keeps the store from opening.
 */
export function reviewPolicyOf(value: unknown): ReviewSetting {
  if (value === undefined || value === null || value === 'default') return { policy: undefined, ignored: [] };
  if (value === 'queue') {
    return { policy: Object.fromEntries(AGENT_WRITERS.map((kind) => [kind, 'queue'])), ignored: [] };
  }
  if (value === 'immediate') return { policy: 'immediate', ignored: [] };
  if (typeof value !== 'object' || Array.isArray(value)) return { policy: undefined, ignored: [JSON.stringify(value)] };
  const policy: Partial<Record<WriterKind, ReviewMode>> = {};
  const ignored: string[] = [];
  for (const [kind, mode] of Object.entries(value)) {
    if (isAgentWriter(kind) && isMode(mode)) policy[kind] = mode;
    else ignored.push(`${JSON.stringify(kind)}: ${JSON.stringify(mode)}`);
  }
  return { policy: Object.keys(policy).length > 0 ? policy : undefined, ignored };
}
